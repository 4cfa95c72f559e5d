"""Seed 003 appendix D's 1.5-d workloads (Tables VII-VIII): uniform objects (x1, x2, y),
the subscription datasets DS#1-DS#3 (l1, r1, r2) and §V's event rule, each drawn from a
generator given by the caller."""

from __future__ import annotations

import numpy as np

from cnsim.errors import InputError
from cnsim.subscriptions.generators.checks import (
    as_1d,
    check_choice,
    check_int,
    check_rng,
    short_repr,
)
from cnsim.subscriptions.kinds.range15d import DATASETS, draw_ranges

__all__ = ["DATASETS", "events", "objects", "subscriptions"]


def objects(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """x1, x2, y of n uniform objects (``n``: an integer in 0..``MAX_COUNT``; ``rng``: a
    ``numpy.random.Generator``)."""
    n = check_int("n", n)
    check_rng("rng", rng)
    return rng.random(n), rng.random(n), rng.random(n)


def subscriptions(
    dataset: str, m: int, x1: np.ndarray, rng: np.random.Generator, cover: dict | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """l1, r1, r2 of m subscriptions of ``dataset`` (DS#1, DS#2 or DS#3) over objects
    with x1-values ``x1``, as ``[subscriptions] kind = "range-1.5d"`` draws them;
    ``cover`` overrides the objects DS#2/DS#3 cover (a dict of dataset names to counts
    >= 1).  ``m``: an integer in 0..``MAX_COUNT``; ``x1``: numbers; ``rng``: a
    ``numpy.random.Generator``."""
    check_choice("dataset", dataset, DATASETS)
    m = check_int("m", m)
    x1 = as_1d("x1", x1, "float")
    check_rng("rng", rng)
    if cover is not None and not isinstance(cover, dict):
        raise InputError(f"cover = {short_repr(cover)}; allowed: None or a dict of dataset "
                         "names to object counts")  # fmt: skip
    count = (cover or {}).get(dataset)
    if count is not None:
        count = check_int(f"cover[{dataset!r}]", count, 1)
    return draw_ranges(rng, m, dataset, x1, count)


def events(y: np.ndarray, count: int, rng: np.random.Generator) -> list[tuple[int, float]]:
    """Seed 003 §V's events: a uniformly chosen object's y is raised or lowered with
    probability 1/2, the new y uniform on that side of the old one.  ``count``: an
    integer in 0..``MAX_COUNT``; events need at least one object; ``y``: numbers;
    ``rng``: a ``numpy.random.Generator``."""
    count = check_int("count", count)
    y = np.array(as_1d("y", y, "float"), np.float64)
    check_rng("rng", rng)
    if count and not len(y):
        raise InputError(f"count = {count} events over y = {y!r}; allowed: at least one object")
    out = []
    for i, up, u in zip(rng.integers(0, len(y), count).tolist(), (rng.random(count) < 0.5).tolist(),
                        rng.random(count).tolist(), strict=True):  # fmt: skip
        y[i] = y[i] + u * (1.0 - y[i]) if up else u * y[i]
        out.append((i, float(y[i])))
    return out
