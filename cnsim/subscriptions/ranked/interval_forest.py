"""Interval forest IF (seed 004 §3): rank-sorted groups of about sqrt(n) intervals,
one endpoint-sorted interval tree per group, stabbed in order until k hits."""

from __future__ import annotations

import math

import numpy as np

from cnsim.subscriptions.ranked.base import Param, RankedIndex, rank_order
from cnsim.subscriptions.ranked.interval_tree import (
    build_endpoint_forest,
    forest_args,
    forest_top_k,
)


class IntervalForest(RankedIndex):
    """Seed 004's IF; ``group_size`` defaults to 16·ceil(sqrt(n)), so p = O(sqrt n) trees.

    Seed 004 fixes p = O(sqrt n) but no constant; 16 is the fastest of the constants
    measured by ``cnsim bench stabbing`` (benchmarks/RESULTS_stabbing.md): with groups
    of sqrt(n), queries stabbing few intervals visit nearly every tree.
    """

    name = "interval_forest"
    parameters = (
        Param(
            "group_size",
            int,
            None,
            low=1,
            none="16·ceil(sqrt n)",
            doc="Intervals per group (seed 004 fixes only p = O(sqrt n) groups).",
        ),
    )

    def _build(self, l, r, score):
        n = len(l)
        g = self.params["group_size"]
        if g is None:
            g = 16 * max(1, math.ceil(math.sqrt(n)))
        self._order = rank_order(score)
        bounds = np.unique(np.append(np.arange(0, n, g), n))
        self._f = build_endpoint_forest(l[self._order], r[self._order], bounds)
        self._kernel, self._kargs, self._map = forest_top_k, forest_args(self._f), self._order

    def _core_nbytes(self):
        return self._order.nbytes + sum(a.nbytes for a in self._f.values())
