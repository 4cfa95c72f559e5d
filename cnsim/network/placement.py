"""Placement of brokers, publishers and subscribers on IP nodes (seeded, columnar)."""

from __future__ import annotations

import numpy as np

from cnsim.errors import ConfigError


def place_brokers(n_nodes: int, count: int, rng: np.random.Generator) -> np.ndarray:
    """IP node of each broker (distinct nodes, in random order: broker ``i`` is ``out[i]``)."""
    if not 1 <= count <= n_nodes:
        raise ConfigError(
            f"network.brokers = {count}: must be between 1 and the number of IP nodes ({n_nodes})"
        )
    return rng.choice(n_nodes, size=count, replace=False).astype(np.int32)


def place_endpoints(n_nodes: int, count: int, rng: np.random.Generator) -> np.ndarray:
    """IP node of each of ``count`` publishers or subscribers (uniform, with replacement)."""
    if count < 0:
        raise ConfigError(f"endpoint count = {count}: must be >= 0")
    return rng.integers(0, n_nodes, size=count, dtype=np.int32)
