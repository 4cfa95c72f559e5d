"""Placement of brokers, publishers and subscribers on IP nodes (seeded, columnar).

The counts come from validated parameters (:mod:`cnsim.network.params`); the functions
assert them rather than re-validating."""

from __future__ import annotations

import numpy as np


def place_brokers(n_nodes: int, count: int, rng: np.random.Generator) -> np.ndarray:
    """IP node of each broker (distinct nodes, in random order: broker ``i`` is ``out[i]``)."""
    assert 1 <= count <= n_nodes, f"{count} brokers on {n_nodes} IP nodes"
    return rng.choice(n_nodes, size=count, replace=False).astype(np.int32)


def place_endpoints(n_nodes: int, count: int, rng: np.random.Generator) -> np.ndarray:
    """IP node of each of ``count`` publishers or subscribers (uniform, with replacement)."""
    assert count >= 0, f"{count} endpoints"
    return rng.integers(0, n_nodes, size=count, dtype=np.int32)
