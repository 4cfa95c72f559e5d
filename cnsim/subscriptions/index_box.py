"""Index over the subscription points of d-dimensional box subscriptions in the
subscription space S = R^{2d} (seed 003 §IV-C).

A subscription ``[l_1, r_1] × … × [l_d, r_d]`` is the point
``(l_1, r_1, …, l_d, r_d)`` (column ``2t`` is ``l_t``, ``2t+1`` is ``r_t``). A message
box is ``4d`` values, per dimension ``(lO, lI, rI, rO)``, and reaches the
subscriptions with ``lO < l_t <= lI`` and ``rI <= r_t < rO`` on every dimension — the
1-d rule of :mod:`cnsim.subscriptions.space`, once per dimension. The index answers
*box reporting* (which subscriptions a message reaches) and ``snap`` (how many
subscriptions a box holds and the smallest closed box holding them; ``snap = ∅``
when none), one box or many in one call (``snap_many``), and ``holds_any`` (whether
a box holds a subscription: a snap that stops at the first one). It is a static
k-d tree over the 2d coordinates (splits cycling through them at the median,
:func:`cnsim.subscriptions.index_3d.build3`), columnar, with numba searches —
:mod:`cnsim.subscriptions.index_3d` for any d. ``tree`` hands its columnar arrays to
kernels that ask it from inside numba (:func:`any_in_box`, :func:`report_upto`: the
pruned partition of Paint-Sparse, :mod:`cnsim.algorithms.boxes._partition_nb`).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from cnsim import kdtree
from cnsim.errors import InputError
from cnsim.subscriptions.index_3d import build3


@numba.njit(cache=True, inline="always")
def _reaches(q, pts, p):
    for t in range(pts.shape[1] // 2):
        l, r = pts[p, 2 * t], pts[p, 2 * t + 1]
        if not (q[4 * t] < l <= q[4 * t + 1] and q[4 * t + 2] <= r < q[4 * t + 3]):
            return False
    return True


def reaches_np(box: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Which subscription points ``pts`` (m, 2d) box ``box`` (4d,) reaches (brute force)."""
    ok = np.ones(len(pts), bool)
    for t in range(pts.shape[1] // 2):
        lO, lI, rI, rO = box[4 * t : 4 * t + 4]
        l, r = pts[:, 2 * t], pts[:, 2 * t + 1]
        ok &= (lO < l) & (l <= lI) & (rI <= r) & (r < rO)
    return ok


def closed_box(lows: np.ndarray, highs: np.ndarray) -> np.ndarray:
    """The message box reaching exactly the points of the closed box ``[lows, highs]``
    of S (per axis ``2t``: l_t, ``2t+1``: r_t)."""
    d = len(lows) // 2
    out = np.empty(4 * d)
    for t in range(d):
        out[4 * t] = math.nextafter(lows[2 * t], -math.inf)
        out[4 * t + 1] = highs[2 * t]
        out[4 * t + 2] = lows[2 * t + 1]
        out[4 * t + 3] = math.nextafter(highs[2 * t + 1], math.inf)
    return out


class SubscriptionIndexBox:
    """A static k-d tree over subscription points ``(l_1, r_1, …, l_d, r_d)``."""

    def __init__(self, l: np.ndarray, r: np.ndarray):
        l = np.asarray(l, np.float64)
        r = np.asarray(r, np.float64)
        if l.ndim == 1:
            l, r = l.reshape(-1, 1), r.reshape(-1, 1)
        if l.shape != r.shape or l.ndim != 2:
            raise InputError(
                f"subscriptions: l and r must both be (m, d), got {l.shape}, {r.shape}"
            )
        if np.isnan(l).any() or np.isnan(r).any():
            raise InputError("subscriptions: l and r must not contain NaN")
        if (l > r).any():
            j, t = np.argwhere(l > r)[0]
            raise InputError(
                f"subscription {j}: l_{t + 1} = {l[j, t]} > r_{t + 1} = {r[j, t]}; "
                "each side must have l <= r"
            )
        self.d = l.shape[1]
        pts = np.empty((len(l), 2 * self.d))
        pts[:, 0::2], pts[:, 1::2] = l, r
        self.points = pts
        perm, self._start, self._end, self._leaf = build3(tuple(pts.T))
        self.perm = perm
        self._pts = np.ascontiguousarray(pts[perm])
        self._box = np.empty((len(self._start), 4 * self.d))
        _fit(self._start, self._end, self._leaf, self._pts, self._box)

    def __len__(self) -> int:
        return len(self.points)

    def report(self, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Subscriptions inside each box (shape (M, 4d)) as CSR ``(offsets, ids)``."""
        boxes = np.ascontiguousarray(boxes, np.float64).reshape(-1, 4 * self.d)
        offsets, pos = _report(self._start, self._end, self._leaf, self._box, self._pts, boxes)
        return offsets, self.perm[pos]

    def snap(self, box: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
        """``(count, lows, highs)`` of the subscriptions inside ``box``: their number and
        the per-axis minima and maxima (count 0: the empty box)."""
        q = np.ascontiguousarray(box, np.float64)
        acc = _snap(self._start, self._end, self._leaf, self._box, self._pts, q)
        D = 2 * self.d
        return int(acc[0]), acc[1 : 1 + D], acc[1 + D :]

    def snap_many(self, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`snap` of each box (shape (M, 4d)): counts (M,), lows and highs (M, 2d)."""
        boxes = np.ascontiguousarray(boxes, np.float64).reshape(-1, 4 * self.d)
        acc = _snap_many(self._start, self._end, self._leaf, self._box, self._pts, boxes)
        D = 2 * self.d
        return acc[:, 0].astype(np.int64), acc[:, 1 : 1 + D], acc[:, 1 + D :]

    def holds_any(self, box: np.ndarray) -> bool:
        """Whether ``box`` (4d,) reaches at least one subscription (``snap``'s count > 0)."""
        return bool(any_in_box(*self.tree(), np.ascontiguousarray(box, np.float64)))

    def tree(self) -> tuple[np.ndarray, ...]:
        """The k-d tree's columnar arrays ``(start, end, leaf, box, pts)``, in the argument
        order of :func:`any_in_box`."""
        return self._start, self._end, self._leaf, self._box, self._pts


@numba.njit(cache=True)
def _fit(start, end, leaf, pts, box):
    # box[v] = mins (D) then maxes (D)
    D = pts.shape[1]
    for v in range(len(start) - 1, -1, -1):
        for a in range(D):
            box[v, a] = np.inf
            box[v, D + a] = -np.inf
        if leaf[v]:
            for p in range(start[v], end[v]):
                for a in range(D):
                    box[v, a] = min(box[v, a], pts[p, a])
                    box[v, D + a] = max(box[v, D + a], pts[p, a])
        else:
            for c in (2 * v + 1, 2 * v + 2):
                for a in range(D):
                    box[v, a] = min(box[v, a], box[c, a])
                    box[v, D + a] = max(box[v, D + a], box[c, D + a])


@numba.njit(cache=True, inline="always")
def _misses(q, box, v, D):
    for t in range(D // 2):
        a, b = 2 * t, 2 * t + 1
        if box[v, D + a] <= q[4 * t] or box[v, a] > q[4 * t + 1]:
            return True
        if box[v, D + b] < q[4 * t + 2] or box[v, b] >= q[4 * t + 3]:
            return True
    return False


@numba.njit(cache=True, inline="always")
def _holds(q, box, v, D):
    for t in range(D // 2):
        a, b = 2 * t, 2 * t + 1
        if not (box[v, a] > q[4 * t] and box[v, D + a] <= q[4 * t + 1]):
            return False
        if not (box[v, b] >= q[4 * t + 2] and box[v, D + b] < q[4 * t + 3]):
            return False
    return True


@numba.njit(cache=True)
def _report(start, end, leaf, box, pts, boxes):
    D = pts.shape[1]
    m = boxes.shape[0]
    offsets = np.zeros(m + 1, np.int64)
    out = np.empty(64, np.int64)
    n_out = 0
    stack = np.empty(kdtree.STACK, np.int64)
    for j in range(m):
        q = boxes[j]
        stack[0] = 0
        sp = 1
        while sp > 0:
            sp -= 1
            v = stack[sp]
            if end[v] <= start[v] or _misses(q, box, v, D):
                continue
            whole = _holds(q, box, v, D)
            if whole or leaf[v]:
                if n_out + end[v] - start[v] > len(out):
                    grown = np.empty(max(n_out + end[v] - start[v], 2 * len(out)), np.int64)
                    grown[:n_out] = out[:n_out]
                    out = grown
                for p in range(start[v], end[v]):
                    if whole or _reaches(q, pts, p):
                        out[n_out] = p
                        n_out += 1
                continue
            stack[sp] = 2 * v + 1
            stack[sp + 1] = 2 * v + 2
            sp += 2
        offsets[j + 1] = n_out
    return offsets, out[:n_out].copy()


@numba.njit(cache=True)
def _snap(start, end, leaf, box, pts, q):
    D = pts.shape[1]
    acc = np.empty(1 + 2 * D)
    acc[0] = 0.0
    acc[1 : 1 + D] = np.inf
    acc[1 + D :] = -np.inf
    stack = np.empty(kdtree.STACK, np.int64)
    stack[0] = 0
    sp = 1
    while sp > 0:
        sp -= 1
        v = stack[sp]
        if end[v] <= start[v] or _misses(q, box, v, D):
            continue
        if _holds(q, box, v, D):
            acc[0] += end[v] - start[v]
            for a in range(D):
                acc[1 + a] = min(acc[1 + a], box[v, a])
                acc[1 + D + a] = max(acc[1 + D + a], box[v, D + a])
            continue
        if leaf[v]:
            for p in range(start[v], end[v]):
                if _reaches(q, pts, p):
                    acc[0] += 1
                    for a in range(D):
                        acc[1 + a] = min(acc[1 + a], pts[p, a])
                        acc[1 + D + a] = max(acc[1 + D + a], pts[p, a])
            continue
        stack[sp] = 2 * v + 1
        stack[sp + 1] = 2 * v + 2
        sp += 2
    return acc


@numba.njit(cache=True)
def _snap_many(start, end, leaf, box, pts, qs):
    D = pts.shape[1]
    out = np.empty((qs.shape[0], 1 + 2 * D))
    for j in range(qs.shape[0]):
        out[j] = _snap(start, end, leaf, box, pts, qs[j])
    return out


@numba.njit(cache=True)
def any_in_box(start, end, leaf, box, pts, q):
    """Whether message box ``q`` reaches a subscription of the tree ``(start, end,
    leaf, box, pts)`` (:meth:`SubscriptionIndexBox.tree`): :func:`report_upto` stopping
    at the first subscription found."""
    return report_upto(start, end, leaf, box, pts, q, 0, np.empty(1, np.int64)) > 0


@numba.njit(cache=True)
def report_upto(start, end, leaf, box, pts, q, limit, out):
    """Positions (rows of ``pts``) of the subscriptions message box ``q`` reaches, written
    to ``out[:count]``, stopping once more than ``limit`` are found (then ``count`` is
    ``limit + 1`` and ``out`` holds some of them); :func:`_snap`'s walk."""
    D = pts.shape[1]
    n = 0
    stack = np.empty(kdtree.STACK, np.int64)
    stack[0] = 0
    sp = 1
    while sp > 0:
        sp -= 1
        v = stack[sp]
        if end[v] <= start[v] or _misses(q, box, v, D):
            continue
        whole = _holds(q, box, v, D)
        if whole or leaf[v]:
            for p in range(start[v], end[v]):
                if whole or _reaches(q, pts, p):
                    if n == limit:
                        return limit + 1
                    out[n] = p
                    n += 1
            continue
        stack[sp] = 2 * v + 1
        stack[sp + 1] = 2 * v + 2
        sp += 2
    return n
