"""The subscriptions each gateway broker holds (seed 003 §V: a Meghdoot subscription is
stored at the broker whose zone holds its point of S), over S of any dimension D
(1-d ranges: D = 2; 1.5-d ranges: D = 3; boxes over d attributes: D = 2d).

Brokers own their subscriptions: the points are laid out by gateway zone, and every
zone has its own k-d tree over its points (splits cycling through the D dimensions at
the median), all zones' trees in one columnar forest (:func:`cnsim.kdtree.build_forest`:
zone z's nodes are ``base[z] + v`` with children ``base[z] + 2v + 1``, ``base[z] + 2v + 2``).
A message box routed to a set of zones is delivered by each of their brokers from its
own tree (``report_forest`` of :func:`cnsim.kdtree.box_kernels`, over the zones the
message reached), with the reach rule of :mod:`cnsim.brokers.zones` per dimension
(``lo < p <= hi`` for a lower bound, ``lo <= p < hi`` for an upper bound) — so who
delivers is decided by routing alone.
"""

from __future__ import annotations

import numpy as np

from cnsim import kdtree


class Gateways:
    """Every zone's subscription points (N, D), indexed per zone."""

    def __init__(self, points: np.ndarray, zone: np.ndarray, n_zones: int, lower_open):
        self.lower_open = np.asarray(lower_open, np.bool_)
        order = np.argsort(zone, kind="stable")
        ptr = np.concatenate([[0], np.cumsum(np.bincount(zone, minlength=n_zones))])
        points = np.asarray(points, np.float64)[order]
        self._t, self.base = kdtree.build_forest(points, ptr)  # one tree per zone
        self._k = kdtree.box_kernels(tuple(self.lower_open))  # compiled for this S
        self.ids = order[self._t.perm]  # the subscription at every forest position
        self.zone_ptr = ptr  # zone z holds ids[ptr[z]:ptr[z + 1]]
        self._dead: kdtree.Tombstones | None = None  # made by the first set_alive
        self._pos: np.ndarray | None = None  # the forest position of every subscription

    def set_alive(self, ids: np.ndarray, alive: bool) -> None:
        """Subscriptions ``ids`` leave their gateways' stores (``alive`` False) or come
        back (:class:`cnsim.kdtree.Tombstones`)."""
        if self._dead is None:
            axis = int(np.flatnonzero(~self.lower_open)[0])  # an upper bound: never +inf
            self._dead = kdtree.Tombstones(self._t, self.base, axis)
            self._pos = np.empty(len(self.ids), np.int64)
            self._pos[self.ids] = np.arange(len(self.ids))
        self._dead.set(self._pos[np.asarray(ids, np.int64)], alive)

    def held(self) -> np.ndarray:
        """Number of subscriptions every zone holds."""
        return np.diff(self.zone_ptr)

    def deliver_positions(
        self, boxes: np.ndarray, reach_ptr: np.ndarray, reach_zone: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """The forest positions of the subscriptions inside each box ``j`` held by the
        zones it reached, ``reach_zone[reach_ptr[j]:reach_ptr[j + 1]]``, as CSR
        ``(offsets, pos)`` (``ids[pos]`` are the subscriptions)."""
        t = self._t
        boxes = np.ascontiguousarray(boxes, np.float64)
        roots = self.base[np.asarray(reach_zone, np.int64)]
        return self._k.report_forest(t.start, t.end, t.leaf, t.box, t.pts, boxes,
                                     np.asarray(reach_ptr, np.int64), roots)  # fmt: skip

    def nbytes(self) -> int:
        """Bytes the brokers' subscription stores take together."""
        t = self._t
        arrays = (self.ids, t.pts, t.start, t.end, t.leaf, self.base, t.box, self.zone_ptr)
        return sum(a.nbytes for a in arrays)
