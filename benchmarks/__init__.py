"""Reproducible performance measurements (not tests)."""
