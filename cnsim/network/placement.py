"""Placement of brokers on IP nodes (seeded, columnar). A run places its subscribers
and publishers itself (:mod:`cnsim.brokers.endpoints`).

The counts come from validated parameters (:mod:`cnsim.network.params`); the functions
assert them rather than re-validating."""

from __future__ import annotations

import numpy as np


def place_brokers(n_nodes: int, count: int, rng: np.random.Generator) -> np.ndarray:
    """IP node of each broker (distinct nodes, in random order: broker ``i`` is ``out[i]``)."""
    assert 1 <= count <= n_nodes, f"{count} brokers on {n_nodes} IP nodes"
    return rng.choice(n_nodes, size=count, replace=False).astype(np.int32)
