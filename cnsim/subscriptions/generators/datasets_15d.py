"""Seed 003 appendix D's 1.5-d workloads (Tables VII-VIII): uniform objects (x1, x2, y),
the subscription datasets DS#1-DS#3 (l1, r1, r2) and §V's event rule, each drawn from a
generator given by the caller."""

from __future__ import annotations

import numpy as np

DATASETS = ["DS#1", "DS#2", "DS#3"]


def objects(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """x1, x2, y of n uniform objects."""
    return rng.random(n), rng.random(n), rng.random(n)


def subscriptions(
    dataset: str, m: int, x1: np.ndarray, rng: np.random.Generator, cover: dict | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """l1, r1, r2 of m subscriptions of ``dataset`` (DS#1, DS#2 or DS#3) over objects
    with x1-values ``x1``; ``cover`` overrides the objects DS#2/DS#3 cover."""
    cover = cover or {"DS#2": 1_000, "DS#3": 100}
    if dataset == "DS#1":
        a, b = rng.random(m), rng.random(m)
        l, r = np.minimum(a, b), np.maximum(a, b)
    elif dataset in cover:
        xs = np.sort(x1)
        l = rng.random(m)
        first = np.searchsorted(xs, l, side="left")
        r = xs[np.minimum(first + cover[dataset] - 1, len(xs) - 1)]
        r = np.maximum(r, l)
    else:
        raise ValueError(f"unknown dataset {dataset!r}; allowed: {', '.join(DATASETS)}")
    return l, r, rng.random(m)


def events(y: np.ndarray, count: int, rng: np.random.Generator) -> list[tuple[int, float]]:
    """Seed 003 §V's events: a uniformly chosen object's y is raised or lowered with
    probability 1/2, the new y uniform on that side of the old one."""
    y = np.array(y, np.float64)
    out = []
    for i, up, u in zip(rng.integers(0, len(y), count).tolist(), (rng.random(count) < 0.5).tolist(),
                        rng.random(count).tolist(), strict=True):  # fmt: skip
        y[i] = y[i] + u * (1.0 - y[i]) if up else u * y[i]
        out.append((i, float(y[i])))
    return out
