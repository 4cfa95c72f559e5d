"""Index over the subscription points ``(l, r)`` of the subscription space S.

It answers, as searches of the k-d tree skeleton (:func:`cnsim.kdtree.traversal`), the
two questions the CN and Paint-Sparse ask (seed 003 §II-A, §II-B):
*rectangle reporting* — which subscriptions a message reaches — and ``snap`` — the
smallest rectangle holding all subscriptions inside a rectangle.

Rectangles are CN message rectangles ``(lO, lI, rI, rO)``: a subscription ``(l, r)``
is inside iff ``lO < l <= lI`` and ``rI <= r < rO`` (``[lI, rI] ⊆ σ ⊆ (lO, rO)``).
"""

from __future__ import annotations

import numba
import numpy as np

from cnsim import kdtree
from cnsim.subscriptions.space import holds_box, misses_box, reaches


class SubscriptionIndex:
    """A static k-d tree over the subscription points (callers count their snaps)."""

    def __init__(self, l: np.ndarray, r: np.ndarray):
        self.l = np.ascontiguousarray(l, np.float64)
        self.r = np.ascontiguousarray(r, np.float64)
        self._tree = kdtree.build(self.l, self.r)
        self._tree.leaf_of = np.empty(0, np.int64)  # static points: no refit, no leaf_of
        self._pl = self.l[self._tree.perm]
        self._pr = self.r[self._tree.perm]

    def __len__(self) -> int:
        return len(self.l)

    @property
    def points(self) -> tuple[np.ndarray, np.ndarray]:
        """The subscription points' coordinates ``(l, r)``."""
        return self.l, self.r

    @property
    def order(self) -> np.ndarray:
        """The subscription at every position of the index (leaf by leaf)."""
        return self._tree.perm

    def report(self, rects: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Subscriptions inside each rectangle of ``rects`` (shape (M, 4)), as CSR
        ``(offsets, ids)``: message ``j`` reaches ``ids[offsets[j]:offsets[j + 1]]``."""
        offsets, pos = self.report_positions(rects)
        return offsets, self._tree.perm[pos]

    def report_positions(self, rects: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """As :meth:`report`, with index positions (``order[pos]`` are the ids)."""
        t = self._tree
        rects = np.ascontiguousarray(rects, np.float64).reshape(-1, 4)
        ptr = np.arange(len(rects) + 1, dtype=np.int64)
        roots = np.zeros(len(rects), np.int64)  # one tree, rooted at node 0, per message
        return report_forest(t.start, t.end, t.leaf, t.box, self._pl, self._pr,
                             rects, ptr, roots)  # fmt: skip

    def snap(self, rect) -> tuple[int, float, float, float, float]:
        """``(count, l_min, l_max, r_min, r_max)`` of the subscriptions inside ``rect``;
        count 0 means the empty rectangle (seed 003's ``snap(G) = ∅``)."""
        t = self._tree
        lo_l, li, ri, ro = rect
        return _snap(t.start, t.end, t.leaf, t.box, self._pl, self._pr, lo_l, li, ri, ro)

    def nbytes(self) -> int:
        """Bytes of the index (points, permutation and nodes)."""
        t = self._tree
        arrays = (self.l, self.r, self._pl, self._pr, t.perm, t.start, t.end, t.box, t.leaf)
        return sum(a.nbytes for a in (*arrays, t.leaf_of))


# -- rectangle reporting: state = (out, n_out, pl, pr); query = (lO, lI, rI, rO) -------------


@numba.njit(cache=True, inline="always")
def _misses(box, v, q, state):
    return misses_box(q[0], q[1], q[2], q[3], box[v, 0], box[v, 1], box[v, 2], box[v, 3])


@numba.njit(cache=True, inline="always")
def _holds(box, v, q):
    return holds_box(q[0], q[1], q[2], q[3], box[v, 0], box[v, 1], box[v, 2], box[v, 3])


@numba.njit(cache=True, inline="always")
def _report_whole(box, v, s, e, q, state):
    if not _holds(box, v, q):
        return False
    out, n_out = state[0], state[1]
    for p in range(s, e):
        out[n_out[0]] = p
        n_out[0] += 1
    return True


@numba.njit(cache=True, inline="always")
def _report_leaf(s, e, q, state):
    out, n_out, pl, pr = state
    for p in range(s, e):
        if reaches(q[0], q[1], q[2], q[3], pl[p], pr[p]):
            out[n_out[0]] = p
            n_out[0] += 1


_report_search = kdtree.traversal(_misses, _report_whole, _report_leaf, kdtree.keep_order)


@numba.njit(cache=True)
def report_forest(start, end, leaf, box, pl, pr, rects, ptr, roots):
    """For each rectangle ``j``, the positions of the points inside it in the trees
    rooted at ``roots[ptr[j]:ptr[j + 1]]``, as CSR ``(offsets, positions)``."""
    m = rects.shape[0]
    offsets = np.zeros(m + 1, np.int64)
    out = np.empty(64, np.int64)
    n_out = np.zeros(1, np.int64)
    for j in range(m):
        q = (rects[j, 0], rects[j, 1], rects[j, 2], rects[j, 3])
        for t in range(ptr[j], ptr[j + 1]):
            root = roots[t]
            need = n_out[0] + end[root] - start[root]  # at most every point of the tree
            if need > len(out):
                grown = np.empty(max(need, 2 * len(out)), np.int64)
                grown[: n_out[0]] = out[: n_out[0]]
                out = grown
            _report_search(start, end, leaf, box, root, q, (out, n_out, pl, pr))
        offsets[j + 1] = n_out[0]
    return offsets, out[: n_out[0]].copy()


# -- snap: state = (acc, pl, pr), acc = [count, l_min, l_max, r_min, r_max] ---------------


@numba.njit(cache=True, inline="always")
def _grow(acc, count, l_min, l_max, r_min, r_max):
    acc[0] += count
    acc[1] = min(acc[1], l_min)
    acc[2] = max(acc[2], l_max)
    acc[3] = min(acc[3], r_min)
    acc[4] = max(acc[4], r_max)


@numba.njit(cache=True, inline="always")
def _snap_whole(box, v, s, e, q, state):
    if e <= s or not _holds(box, v, q):
        return e <= s  # an empty node is done with
    _grow(state[0], e - s, box[v, 0], box[v, 1], box[v, 2], box[v, 3])
    return True


@numba.njit(cache=True, inline="always")
def _snap_leaf(s, e, q, state):
    acc, pl, pr = state
    for p in range(s, e):
        if reaches(q[0], q[1], q[2], q[3], pl[p], pr[p]):
            _grow(acc, 1, pl[p], pl[p], pr[p], pr[p])


_snap_search = kdtree.traversal(_misses, _snap_whole, _snap_leaf, kdtree.keep_order)


@numba.njit(cache=True)
def _snap(start, end, leaf, box, pl, pr, lo_l, li, ri, ro):
    acc = np.array([0.0, np.inf, -np.inf, np.inf, -np.inf])
    _snap_search(start, end, leaf, box, 0, (lo_l, li, ri, ro), (acc, pl, pr))
    return int(acc[0]), acc[1], acc[2], acc[3], acc[4]
