"""The subscriptions each gateway broker holds (seed 003 §V: a Meghdoot subscription
is stored at the broker whose zone holds its point of S).

Brokers own their subscriptions: the run's subscriptions are laid out sorted by
gateway zone, and each zone has its own small k-d tree over its points (one forest
in one set of columnar arrays, :func:`cnsim.kdtree.build_forest`). A message routed
to a set of zones is delivered by each of their brokers from its own tree — one
numba kernel (:func:`cnsim.subscriptions.index.report_forest`) over the zones the
message reached — so who delivers is decided by routing alone.
"""

from __future__ import annotations

import numpy as np

from cnsim import kdtree
from cnsim.subscriptions.index import report_forest


class Gateways:
    """Every zone's subscriptions, indexed per zone (static: subscriptions do not move)."""

    def __init__(self, l: np.ndarray, r: np.ndarray, zone: np.ndarray, n_zones: int):
        order = np.argsort(zone, kind="stable")
        ptr = np.concatenate([[0], np.cumsum(np.bincount(zone, minlength=n_zones))])
        forest, self.root = kdtree.build_forest(l[order], r[order], ptr)
        self._nodes = (forest.start, forest.end, forest.leaf, forest.box)
        self.ids = order[forest.perm]  # the subscription at every forest position
        self._pl = np.ascontiguousarray(l[self.ids])
        self._pr = np.ascontiguousarray(r[self.ids])
        self.zone_ptr = ptr  # zone z holds ids[ptr[z]:ptr[z + 1]]

    def held(self) -> np.ndarray:
        """Number of subscriptions every zone holds."""
        return np.diff(self.zone_ptr)

    def deliver(
        self, rects: np.ndarray, reach_ptr: np.ndarray, reach_zone: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """The subscriptions inside each rectangle ``j`` held by the zones it reached,
        ``reach_zone[reach_ptr[j]:reach_ptr[j + 1]]``, as CSR ``(offsets, ids)``."""
        offsets, pos = self.deliver_positions(rects, reach_ptr, reach_zone)
        return offsets, self.ids[pos]

    def deliver_positions(
        self, rects: np.ndarray, reach_ptr: np.ndarray, reach_zone: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """As :meth:`deliver`, with forest positions (``ids[pos]`` are the ids)."""
        rects = np.ascontiguousarray(rects, np.float64)
        roots = self.root[reach_zone]
        return report_forest(*self._nodes, self._pl, self._pr, rects, reach_ptr, roots)

    def nbytes(self) -> int:
        """Bytes the brokers' subscription stores take together."""
        arrays = (self.ids, self._pl, self._pr, self.root, self.zone_ptr, *self._nodes)
        return sum(a.nbytes for a in arrays)
