"""The subscriptions each gateway broker holds (seed 003 §V: a Meghdoot subscription is
stored at the broker whose zone holds its point of S), over S of any dimension D
(1-d ranges: D = 2; 1.5-d ranges: D = 3; boxes over d attributes: D = 2d).

Brokers own their subscriptions: the points are laid out by gateway zone, and every
zone has its own k-d tree over its points (splits cycling through the D dimensions at
the median, :func:`cnsim.subscriptions.index_3d.build3`), all zones' trees in one
columnar forest (zone z's nodes are ``base[z] + v`` with children ``2v + 1, 2v + 2``).
A message box routed to a set of zones is delivered by each of their brokers from its
own tree (one numba kernel over the zones the message reached), with the reach rule of
:mod:`cnsim.brokers.zones` per dimension (``lo < p <= hi`` for a lower bound,
``lo <= p < hi`` for an upper bound) — so who delivers is decided by routing alone.
"""

from __future__ import annotations

import numba
import numpy as np

from cnsim import kdtree
from cnsim.subscriptions.index_3d import build3


class Gateways:
    """Every zone's subscription points (N, D), indexed per zone."""

    def __init__(self, points: np.ndarray, zone: np.ndarray, n_zones: int, lower_open):
        points = np.ascontiguousarray(points, np.float64)
        self.lower_open = np.asarray(lower_open, np.bool_)
        order = np.argsort(zone, kind="stable")
        ptr = np.concatenate([[0], np.cumsum(np.bincount(zone, minlength=n_zones))])
        ids = np.empty(len(order), np.int64)
        base = np.zeros(n_zones + 1, np.int64)
        parts = []
        for z in range(n_zones):  # one small tree per zone (set-up only)
            seg = order[ptr[z] : ptr[z + 1]]
            perm, start, end, leaf = build3(tuple(points[seg].T))
            ids[ptr[z] : ptr[z + 1]] = seg[perm]
            parts.append((start + ptr[z], end + ptr[z], leaf))
            base[z + 1] = base[z] + len(start)
        self.ids = ids  # the subscription at every forest position
        self._start = np.concatenate([p[0] for p in parts])
        self._end = np.concatenate([p[1] for p in parts])
        self._leaf = np.concatenate([p[2] for p in parts])
        self.base = base
        self._p = np.ascontiguousarray(points[ids])
        self._box = _fit(self._start, self._end, self._leaf, base, self._p)
        self.zone_ptr = ptr  # zone z holds ids[ptr[z]:ptr[z + 1]]

    def held(self) -> np.ndarray:
        """Number of subscriptions every zone holds."""
        return np.diff(self.zone_ptr)

    def deliver_positions(
        self, boxes: np.ndarray, reach_ptr: np.ndarray, reach_zone: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """The forest positions of the subscriptions inside each box ``j`` held by the
        zones it reached, ``reach_zone[reach_ptr[j]:reach_ptr[j + 1]]``, as CSR
        ``(offsets, pos)`` (``ids[pos]`` are the subscriptions)."""
        boxes = np.ascontiguousarray(boxes, np.float64)
        return _deliver(self._start, self._end, self._leaf, self.base, self._box, self._p,
                        self.lower_open, boxes, reach_ptr, reach_zone)  # fmt: skip

    def nbytes(self) -> int:
        """Bytes the brokers' subscription stores take together."""
        arrays = (self.ids, self._p, self._start, self._end, self._leaf, self.base,
                  self._box, self.zone_ptr)  # fmt: skip
        return sum(a.nbytes for a in arrays)


@numba.njit(cache=True)
def _fit(start, end, leaf, base, p):  # pragma: no cover - numba
    d = p.shape[1]
    box = np.empty((len(start), 2 * d))
    for z in range(len(base) - 1):
        for v in range(base[z + 1] - base[z] - 1, -1, -1):
            g = base[z] + v
            if leaf[g]:
                for e in range(d):
                    box[g, 2 * e], box[g, 2 * e + 1] = np.inf, -np.inf
                for i in range(start[g], end[g]):
                    for e in range(d):
                        box[g, 2 * e] = min(box[g, 2 * e], p[i, e])
                        box[g, 2 * e + 1] = max(box[g, 2 * e + 1], p[i, e])
            else:
                c1, c2 = base[z] + 2 * v + 1, base[z] + 2 * v + 2
                for e in range(d):
                    box[g, 2 * e] = min(box[c1, 2 * e], box[c2, 2 * e])
                    box[g, 2 * e + 1] = max(box[c1, 2 * e + 1], box[c2, 2 * e + 1])
    return box


@numba.njit(cache=True, inline="always")
def _inside(q, p, lower_open):  # pragma: no cover - numba
    for e in range(len(p)):
        lo, hi, x = q[2 * e], q[2 * e + 1], p[e]
        if lower_open[e]:
            if not (lo < x <= hi):
                return False
        elif not (lo <= x < hi):
            return False
    return True


@numba.njit(cache=True, inline="always")
def _node(q, box, g, lower_open):  # pragma: no cover - numba
    """-1: the box misses the node's points, 1: it holds them all, 0: undecided."""
    whole = True
    for e in range(len(lower_open)):
        lo, hi, mn, mx = q[2 * e], q[2 * e + 1], box[g, 2 * e], box[g, 2 * e + 1]
        if lower_open[e]:
            if mx <= lo or mn > hi:
                return -1
            whole = whole and mn > lo and mx <= hi
        else:
            if mx < lo or mn >= hi:
                return -1
            whole = whole and mn >= lo and mx < hi
    return 1 if whole else 0


@numba.njit(cache=True)
def _deliver(start, end, leaf, base, box, p, lower_open, boxes, reach_ptr, reach_zone):  # noqa: E501  # pragma: no cover - numba
    m = boxes.shape[0]
    offsets = np.zeros(m + 1, np.int64)
    out = np.empty(64, np.int64)
    n_out = 0
    stack = np.empty(kdtree.STACK, np.int64)
    for j in range(m):
        q = boxes[j]
        for t in range(reach_ptr[j], reach_ptr[j + 1]):
            z = reach_zone[t]
            b = base[z]
            if base[z + 1] == b:
                continue
            stack[0] = 0
            sp = 1
            while sp > 0:
                sp -= 1
                v = stack[sp]
                g = b + v
                if end[g] <= start[g]:
                    continue
                state = _node(q, box, g, lower_open)
                if state < 0:
                    continue
                if state > 0 or leaf[g]:
                    if n_out + end[g] - start[g] > len(out):
                        grown = np.empty(max(n_out + end[g] - start[g], 2 * len(out)), np.int64)
                        grown[:n_out] = out[:n_out]
                        out = grown
                    for i in range(start[g], end[g]):
                        if state > 0 or _inside(q, p[i], lower_open):
                            out[n_out] = i
                            n_out += 1
                    continue
                stack[sp] = 2 * v + 1
                stack[sp + 1] = 2 * v + 2
                sp += 2
        offsets[j + 1] = n_out
    return offsets, out[:n_out].copy()
