"""Index over the subscription points ``(l, r)`` of the subscription space S.

It answers the two questions the CN and Paint-Sparse ask (seed 003 §II-A, §II-B):
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

_STACK = 128


class SubscriptionIndex:
    """A static k-d tree over the subscription points (callers count their snaps)."""

    def __init__(self, l: np.ndarray, r: np.ndarray):
        self.l = np.ascontiguousarray(l, np.float64)
        self.r = np.ascontiguousarray(r, np.float64)
        self._tree = kdtree.build(self.l, self.r)
        self._pl = self.l[self._tree.perm]
        self._pr = self.r[self._tree.perm]

    def __len__(self) -> int:
        return len(self.l)

    def report(self, rects: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Subscriptions inside each rectangle of ``rects`` (shape (M, 4)), as CSR
        ``(offsets, ids)``: message ``j`` reaches ``ids[offsets[j]:offsets[j + 1]]``."""
        t = self._tree
        rects = np.ascontiguousarray(rects, np.float64).reshape(-1, 4)
        ptr = np.arange(len(rects) + 1, dtype=np.int64)
        roots = np.zeros(len(rects), np.int64)  # one tree, rooted at node 0, per message
        offsets, pos = report_forest(t.start, t.end, t.leaf, t.box, self._pl, self._pr,
                                     rects, ptr, roots)  # fmt: skip
        return offsets, t.perm[pos]

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


@numba.njit(cache=True, inline="always")
def _misses(box, v, lo_l, li, ri, ro):
    return misses_box(lo_l, li, ri, ro, box[v, 0], box[v, 1], box[v, 2], box[v, 3])


@numba.njit(cache=True, inline="always")
def _holds(box, v, lo_l, li, ri, ro):
    return holds_box(lo_l, li, ri, ro, box[v, 0], box[v, 1], box[v, 2], box[v, 3])


@numba.njit(cache=True)
def _report_one(start, end, leaf, box, pl, pr, root, lo_l, li, ri, ro, out, n_out):
    """Append the positions of the points of the tree rooted at node ``root`` (of a
    forest in implicit layout) inside the rectangle to ``out``."""
    stack = np.empty(_STACK, np.int64)
    stack[0] = 0
    sp = 1
    while sp > 0:
        sp -= 1
        v = root + stack[sp]
        if _misses(box, v, lo_l, li, ri, ro):
            continue
        full = _holds(box, v, lo_l, li, ri, ro)
        if full or leaf[v]:
            for p in range(start[v], end[v]):
                if full or reaches(lo_l, li, ri, ro, pl[p], pr[p]):
                    if n_out == len(out):
                        grown = np.empty(2 * len(out) + 16, np.int64)
                        grown[:n_out] = out[:n_out]
                        out = grown
                    out[n_out] = p
                    n_out += 1
            continue
        stack[sp] = 2 * stack[sp] + 1
        stack[sp + 1] = stack[sp] + 1
        sp += 2
    return out, n_out


@numba.njit(cache=True)
def report_forest(start, end, leaf, box, pl, pr, rects, ptr, roots):
    """For each rectangle ``j``, the positions of the points inside it in the trees
    rooted at ``roots[ptr[j]:ptr[j + 1]]``, as CSR ``(offsets, positions)``."""
    m = rects.shape[0]
    offsets = np.zeros(m + 1, np.int64)
    out = np.empty(64, np.int64)
    n_out = 0
    for j in range(m):
        lo_l, li, ri, ro = rects[j, 0], rects[j, 1], rects[j, 2], rects[j, 3]
        for t in range(ptr[j], ptr[j + 1]):
            out, n_out = _report_one(
                start, end, leaf, box, pl, pr, roots[t], lo_l, li, ri, ro, out, n_out
            )
        offsets[j + 1] = n_out
    return offsets, out[:n_out].copy()


@numba.njit(cache=True)
def _snap(start, end, leaf, box, pl, pr, lo_l, li, ri, ro):
    count = 0
    l_min, l_max, r_min, r_max = np.inf, -np.inf, np.inf, -np.inf
    stack = np.empty(_STACK, np.int64)
    stack[0] = 0
    sp = 1
    while sp > 0:
        sp -= 1
        v = stack[sp]
        if end[v] <= start[v] or _misses(box, v, lo_l, li, ri, ro):
            continue
        if _holds(box, v, lo_l, li, ri, ro):
            count += end[v] - start[v]
            l_min = min(l_min, box[v, 0])
            l_max = max(l_max, box[v, 1])
            r_min = min(r_min, box[v, 2])
            r_max = max(r_max, box[v, 3])
            continue
        if leaf[v]:
            for p in range(start[v], end[v]):
                if reaches(lo_l, li, ri, ro, pl[p], pr[p]):
                    count += 1
                    l_min = min(l_min, pl[p])
                    l_max = max(l_max, pl[p])
                    r_min = min(r_min, pr[p])
                    r_max = max(r_max, pr[p])
            continue
        stack[sp] = 2 * v + 1
        stack[sp + 1] = 2 * v + 2
        sp += 2
    return count, l_min, l_max, r_min, r_max
