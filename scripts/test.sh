#!/usr/bin/env bash
# Sets up (first use) and runs the checks: ruff, then the test suite on every core.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ruff check cnsim tests benchmarks
# Every core runs tests (pytest-xdist), a test file whole on one worker, so a module's
# fixtures (real runs, a Spark session) are built once. A later -n (e.g. -n 0) overrides.
.venv/bin/python -m pytest -n auto --dist loadfile "$@"
