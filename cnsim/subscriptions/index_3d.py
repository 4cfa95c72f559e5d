"""Index over the subscription points ``(l1, r1, r2)`` of the 3-d subscription space S
of 1.5-dimensional range subscriptions (seed 003 appendix D).

A subscription ``[l1, r1] × (−∞, r2]`` is the point ``(l1, r1, r2)``. A message box
is ``(lO, lI, rI, rO, vI, vO)`` and reaches the subscriptions with

    ``lO < l1 <= lI``,  ``rI <= r1 < rO``,  ``vI <= r2 < vO``

— the 1-d rule of :mod:`cnsim.subscriptions.space` in (l1, r1) and a half-open
interval of r2 (x2-values ``[vI, vO)``; the paper's "extra side ranges from
x_min^(2) to x_max^(2)", Algorithm 8). The index answers *box reporting* (which
subscriptions a message reaches) and ``snap`` (the number of subscriptions inside
a box and the smallest closed box holding them). It is a static 3-d k-d tree
(splits cycling through l1, r1, r2 at the median), columnar, numba searches.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from cnsim import kdtree

LEAF_SIZE = 16


@numba.njit(cache=True, inline="always")
def reaches3(q, l, r, v) -> bool:
    """Whether box ``q = (lO, lI, rI, rO, vI, vO)`` reaches subscription ``(l, r, v)``."""
    return q[0] < l <= q[1] and q[2] <= r < q[3] and q[4] <= v < q[5]


def reaches3_np(box, l: np.ndarray, r: np.ndarray, v: np.ndarray) -> np.ndarray:
    """:func:`reaches3` over arrays of subscriptions (brute force, for checks)."""
    lO, lI, rI, rO, vI, vO = box
    return (lO < l) & (l <= lI) & (rI <= r) & (r < rO) & (vI <= v) & (v < vO)


def closed_box(l_min, l_max, r_min, r_max, v_min, v_max) -> tuple:
    """The message box reaching exactly the points of the closed box
    ``[l_min, l_max] × [r_min, r_max] × [v_min, v_max]``."""
    return (
        math.nextafter(l_min, -math.inf),
        l_max,
        r_min,
        math.nextafter(r_max, math.inf),
        v_min,
        math.nextafter(v_max, math.inf),
    )


def build3(coords: tuple[np.ndarray, ...], leaf_size: int = LEAF_SIZE):
    """A k-d tree over the points of ``coords`` (splits cycle through them): the
    permutation and node arrays, as :func:`cnsim.kdtree.build` for any dimension."""
    n = len(coords[0])
    d = len(coords)
    leaves = max(1, -(-n // leaf_size))
    depth = int(np.ceil(np.log2(leaves))) if leaves > 1 else 0
    n_nodes = 2 ** (depth + 1) - 1
    start = np.zeros(n_nodes, np.int64)
    end = np.zeros(n_nodes, np.int64)
    leaf = np.ones(n_nodes, np.bool_)
    perm = np.arange(n, dtype=np.int64)
    stack = [(0, 0, n, 0)]
    while stack:
        v, s, e, level = stack.pop()
        start[v], end[v] = s, e
        if e - s <= leaf_size or 2 * v + 1 >= n_nodes:
            continue
        leaf[v] = False
        mid = (s + e) // 2
        key = coords[level % d][perm[s:e]]
        order = np.argpartition(key, mid - s)
        perm[s:e] = perm[s:e][order]
        stack.append((2 * v + 1, s, mid, level + 1))
        stack.append((2 * v + 2, mid, e, level + 1))
    return perm, start, end, leaf


class SubscriptionIndex3D:
    """A static 3-d k-d tree over the subscription points (callers count their snaps)."""

    def __init__(self, l: np.ndarray, r: np.ndarray, v: np.ndarray):
        self.l = np.ascontiguousarray(l, np.float64)
        self.r = np.ascontiguousarray(r, np.float64)
        self.v = np.ascontiguousarray(v, np.float64)
        perm, self._start, self._end, self._leaf = build3((self.l, self.r, self.v))
        self.perm = perm
        self._pl, self._pr, self._pv = self.l[perm], self.r[perm], self.v[perm]
        self._box = np.empty((len(self._start), 6), np.float64)
        _fit_boxes(self._start, self._end, self._leaf, self._pl, self._pr, self._pv, self._box)

    def __len__(self) -> int:
        return len(self.l)

    # The interface of the 1-d SubscriptionIndex that a run's networks read (ideal CN,
    # Meghdoot), so a 1.5-d run passes this index where a 1-d run passes that one; the
    # space S itself is the kind's (cnsim.subscriptions.kinds.range15d).

    @property
    def points(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The subscription points' coordinates ``(l1, r1, r2)``."""
        return self.l, self.r, self.v

    @property
    def order(self) -> np.ndarray:
        """The subscription at every position of the index (leaf by leaf)."""
        return self.perm

    def report(self, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Subscriptions inside each box of ``boxes`` (shape (M, 6)), as CSR
        ``(offsets, ids)``: message ``j`` reaches ``ids[offsets[j]:offsets[j + 1]]``."""
        offsets, pos = self.report_positions(boxes)
        return offsets, self.perm[pos]

    def report_positions(self, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """As :meth:`report`, with index positions (``order[pos]`` are the ids)."""
        boxes = np.ascontiguousarray(boxes, np.float64).reshape(-1, 6)
        return _report(self._start, self._end, self._leaf, self._box,
                       self._pl, self._pr, self._pv, boxes)  # fmt: skip

    def nbytes(self) -> int:
        """Bytes of the index (points, permutation and nodes)."""
        arrays = (self.l, self.r, self.v, self._pl, self._pr, self._pv, self.perm,
                  self._start, self._end, self._leaf, self._box)  # fmt: skip
        return sum(a.nbytes for a in arrays)

    def snap(self, box) -> tuple[int, float, float, float, float, float, float]:
        """``(count, l_min, l_max, r_min, r_max, v_min, v_max)`` of the subscriptions
        inside ``box``; count 0 means the empty box (seed 003's ``snap(G) = ∅``)."""
        q = np.asarray(box, np.float64)
        acc = _snap(self._start, self._end, self._leaf, self._box,
                    self._pl, self._pr, self._pv, q)  # fmt: skip
        return (int(acc[0]), *map(float, acc[1:]))


@numba.njit(cache=True)
def _fit_boxes(start, end, leaf, pl, pr, pv, box):
    for v in range(len(start) - 1, -1, -1):
        if leaf[v]:
            b = np.array([np.inf, -np.inf, np.inf, -np.inf, np.inf, -np.inf])
            for p in range(start[v], end[v]):
                b[0] = min(b[0], pl[p])
                b[1] = max(b[1], pl[p])
                b[2] = min(b[2], pr[p])
                b[3] = max(b[3], pr[p])
                b[4] = min(b[4], pv[p])
                b[5] = max(b[5], pv[p])
            box[v, :] = b
        else:
            c1, c2 = 2 * v + 1, 2 * v + 2
            for d in range(3):
                box[v, 2 * d] = min(box[c1, 2 * d], box[c2, 2 * d])
                box[v, 2 * d + 1] = max(box[c1, 2 * d + 1], box[c2, 2 * d + 1])


@numba.njit(cache=True, inline="always")
def _misses(q, box, v):
    return (
        box[v, 1] <= q[0] or box[v, 0] > q[1] or box[v, 3] < q[2] or box[v, 2] >= q[3]
        or box[v, 5] < q[4] or box[v, 4] >= q[5]
    )  # fmt: skip


@numba.njit(cache=True, inline="always")
def _holds(q, box, v):
    return (
        box[v, 0] > q[0] and box[v, 1] <= q[1] and box[v, 2] >= q[2] and box[v, 3] < q[3]
        and box[v, 4] >= q[4] and box[v, 5] < q[5]
    )  # fmt: skip


@numba.njit(cache=True)
def _report(start, end, leaf, box, pl, pr, pv, boxes):
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
            if end[v] <= start[v] or _misses(q, box, v):
                continue
            whole = _holds(q, box, v)
            if whole or leaf[v]:
                if n_out + end[v] - start[v] > len(out):
                    grown = np.empty(max(n_out + end[v] - start[v], 2 * len(out)), np.int64)
                    grown[:n_out] = out[:n_out]
                    out = grown
                for p in range(start[v], end[v]):
                    if whole or reaches3(q, pl[p], pr[p], pv[p]):
                        out[n_out] = p
                        n_out += 1
                continue
            stack[sp] = 2 * v + 1
            stack[sp + 1] = 2 * v + 2
            sp += 2
        offsets[j + 1] = n_out
    return offsets, out[:n_out].copy()


@numba.njit(cache=True)
def _snap(start, end, leaf, box, pl, pr, pv, q):
    acc = np.array([0.0, np.inf, -np.inf, np.inf, -np.inf, np.inf, -np.inf])
    stack = np.empty(kdtree.STACK, np.int64)
    stack[0] = 0
    sp = 1
    while sp > 0:
        sp -= 1
        v = stack[sp]
        if end[v] <= start[v] or _misses(q, box, v):
            continue
        if _holds(q, box, v):
            acc[0] += end[v] - start[v]
            for d in range(3):
                acc[1 + 2 * d] = min(acc[1 + 2 * d], box[v, 2 * d])
                acc[2 + 2 * d] = max(acc[2 + 2 * d], box[v, 2 * d + 1])
            continue
        if leaf[v]:
            for p in range(start[v], end[v]):
                if reaches3(q, pl[p], pr[p], pv[p]):
                    acc[0] += 1
                    acc[1] = min(acc[1], pl[p])
                    acc[2] = max(acc[2], pl[p])
                    acc[3] = min(acc[3], pr[p])
                    acc[4] = max(acc[4], pr[p])
                    acc[5] = min(acc[5], pv[p])
                    acc[6] = max(acc[6], pv[p])
            continue
        stack[sp] = 2 * v + 1
        stack[sp + 1] = 2 * v + 2
        sp += 2
    return acc
