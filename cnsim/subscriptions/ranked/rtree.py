"""R-tree structures of seed 000: the scored R-tree (§2.2.3, packed in rank order),
the IR-tree (§3.1, a score-sorted interval tree whose node lists are each indexed
by a scored R-tree) and the SOPT-R-tree (§3.2: constraint graph by Algorithm 2,
arrangement by Algorithm 1, packed R-tree on the arrangement).

All trees are packed bottom-up (b consecutive entries per node, b = 50 as in
Table 1) and searched by the resumable left-first cursor ``rt_next``.
"""

from __future__ import annotations

import numba
import numpy as np

from cnsim.subscriptions.ranked._kernels import (
    centered_path,
    heap_pop,
    heap_push,
    make_path_merge,
    pack_levels,
    rt_next,
)
from cnsim.subscriptions.ranked.base import Param, RankedIndex, rank_order
from cnsim.subscriptions.ranked.interval_tree import build_score_sorted_tree
from cnsim.subscriptions.ranked.segment_tree import elementary

DEFAULT_B = 50
#: the fan-out of every packed R-tree here; b = 1 would never shrink a level
B_PARAM = Param(
    "b", int, DEFAULT_B, low=2, doc="R-tree fan-out, entries per node (seed 000 Table 1)."
)


@numba.njit(cache=True)
def rtree_top_k(lo0, hi0, ulo, uhi, lvl_start, lvl_count, height, b, q, k):
    """The first k arrangement positions stabbed by q, by left-first DFS."""
    out = np.empty(k, np.int64)
    cnt = 0
    p = -1
    while cnt < k:
        p = rt_next(q, p, 0, lo0, hi0, ulo, uhi, lvl_start, lvl_count, height, b)
        if p < 0:
            break
        out[cnt] = p
        cnt += 1
    return out[:cnt]


class _PackedRTree(RankedIndex):
    """A packed b-way R-tree over an arrangement of the intervals."""

    parameters = (B_PARAM,)

    def _arrangement(self, Lr, Rr):
        raise NotImplementedError

    def _build(self, l, r, score):
        b = self.params["b"]
        order = rank_order(score)
        Lr, Rr = l[order], r[order]
        arr = self._arrangement(Lr, Rr)
        self._ids = order[arr].astype(np.int32)
        self._lo0, self._hi0 = Lr[arr], Rr[arr]
        n = len(l)
        self._levels = pack_levels(
            self._lo0, self._hi0, np.zeros(1, np.int64), np.array([n], np.int64), b
        )
        self._kernel, self._map = rtree_top_k, self._ids
        self._kargs = (self._lo0, self._hi0, *self._levels, b)

    def _core_nbytes(self):
        return (
            self._ids.nbytes
            + self._lo0.nbytes
            + self._hi0.nbytes
            + sum(a.nbytes for a in self._levels)
        )


class ScoredRTree(_PackedRTree):
    """Seed 000's scored R-tree: leaves are consecutive blocks of the rank order."""

    name = "scored_rtree"

    def _arrangement(self, Lr, Rr):
        return np.arange(len(Lr))


# ---------------------------------------------------------------- SOPT-R-tree


@numba.njit(cache=True)
def _fw_add(fw, i, d):
    i += 1
    while i < fw.shape[0]:
        fw[i] += d
        i += i & -i


@numba.njit(cache=True)
def _fw_prefix(fw, i):
    """Number of piece starts at cells 0..i."""
    i += 1
    s = 0
    while i > 0:
        s += fw[i]
        i -= i & -i
    return s


@numba.njit(cache=True)
def _fw_kth(fw, k):
    """Cell of the k-th piece start (k >= 1)."""
    pos = 0
    step = 1
    while step * 2 < fw.shape[0]:
        step *= 2
    while step > 0:
        if pos + step < fw.shape[0] and fw[pos + step] < k:
            pos += step
            k -= fw[pos]
        step >>= 1
    return pos


@numba.njit(cache=True)
def constraint_graph(A, B, n_cells):
    """Algorithm 2: edges ``(src, dst)`` of G(I) for intervals in rank order.

    The line (as elementary cells) is kept as pieces, each owned by the worst-ranked
    interval added so far covering it (its "visible block" and associated interval).
    Adding interval i draws an edge from the owner of every piece it meets, then
    i owns its whole range.  Piece starts live in a Fenwick tree for predecessor search.
    """
    n = A.shape[0]
    owner = np.full(n_cells, -1, np.int64)
    fw = np.zeros(n_cells + 1, np.int64)
    _fw_add(fw, 0, 1)
    n_starts = 1
    cap = 5 * n + 8
    src = np.empty(cap, np.int64)
    dst = np.empty(cap, np.int64)
    ne = 0
    touched = np.empty(n_cells, np.int64)
    for i in range(n):
        a, b = A[i], B[i]
        c = _fw_prefix(fw, a)
        nt = 0
        touched[nt] = _fw_kth(fw, c)
        nt += 1
        end_last = n_cells - 1
        while c < n_starts:
            c += 1
            s = _fw_kth(fw, c)
            if s > b:
                end_last = s - 1
                break
            touched[nt] = s
            nt += 1
        for t in range(nt):
            o = owner[touched[t]]
            if o >= 0:
                if ne == cap:
                    cap *= 2
                    src = np.concatenate((src, np.empty(cap - ne, np.int64)))
                    dst = np.concatenate((dst, np.empty(cap - ne, np.int64)))
                src[ne] = o
                dst[ne] = i
                ne += 1
        o_last = owner[touched[nt - 1]]
        if end_last > b:
            _fw_add(fw, b + 1, 1)
            n_starts += 1
            owner[b + 1] = o_last
        for t in range(nt):
            if touched[t] >= a:
                _fw_add(fw, touched[t], -1)
                n_starts -= 1
        _fw_add(fw, a, 1)
        n_starts += 1
        owner[a] = i
    return src[:ne], dst[:ne]


@numba.njit(cache=True)
def arrangement(A, src, dst):
    """Algorithm 1: repeatedly take, among intervals with in-degree 0, the one with
    the smallest left endpoint (ties: better rank)."""
    n = A.shape[0]
    indeg = np.zeros(n, np.int64)
    out_off = np.zeros(n + 1, np.int64)
    for e in range(src.shape[0]):
        indeg[dst[e]] += 1
        out_off[src[e] + 1] += 1
    for i in range(n):
        out_off[i + 1] += out_off[i]
    fill = out_off[:-1].copy()
    out = np.empty(src.shape[0], np.int64)
    for e in range(src.shape[0]):
        out[fill[src[e]]] = dst[e]
        fill[src[e]] += 1
    keys = np.empty(n, np.int64)
    vals = np.empty(n, np.int64)
    size = 0
    for i in range(n):
        if indeg[i] == 0:
            size = heap_push(keys, vals, size, A[i] * n + i, i)
    res = np.empty(n, np.int64)
    m = 0
    while size > 0:
        i = vals[0]
        size = heap_pop(keys, vals, size)
        res[m] = i
        m += 1
        for e in range(out_off[i], out_off[i + 1]):
            d = out[e]
            indeg[d] -= 1
            if indeg[d] == 0:
                size = heap_push(keys, vals, size, A[d] * n + d, d)
    return res


def sopt_arrangement(Lr: np.ndarray, Rr: np.ndarray) -> np.ndarray:
    """The SOPT arrangement (rank positions) of rank-ordered intervals."""
    if len(Lr) == 0:
        return np.empty(0, np.int64)
    _, A, B, n_cells = elementary(Lr, Rr)
    src, dst = constraint_graph(A, B, n_cells)
    return arrangement(A, src, dst)


class SOPTRTree(_PackedRTree):
    """Seed 000's score-optimal R-tree: a packed R-tree on the Algorithm 1 arrangement."""

    name = "sopt_rtree"

    def _arrangement(self, Lr, Rr):
        return sopt_arrangement(Lr, Rr)


# -------------------------------------------------------------------- IR-tree


@numba.njit(cache=True, _nrt=False)
def _ir_cursor(lists, v, last, q):
    """Next stabbed entry of node v's list: getnext on the node's scored R-tree."""
    start, items, lo0, hi0, ulo, uhi, lvl_start, lvl_count, height, b = lists
    p = rt_next(q, last, v, lo0, hi0, ulo, uhi, lvl_start, lvl_count, height, b)
    if p < 0:
        return -1, -1
    return p, np.int64(items[start[v] + p])


_ir_merge = make_path_merge(centered_path, _ir_cursor)


@numba.njit(cache=True)
def ir_top_k(tree, lists, q, k):
    """Heap merge over the path nodes, each node's next stabbed interval found by
    getnext on its R-tree (seed 000 §3.1)."""
    return _ir_merge(tree, lists, q, k)


class IRTree(RankedIndex):
    """Seed 000's IR-tree: score-sorted interval tree, one scored R-tree per node."""

    name = "ir_tree"
    native_updates = True
    parameters = (B_PARAM,)

    def _build(self, l, r, score):
        b = self.params["b"]
        self._order = rank_order(score).astype(np.int32)
        t = build_score_sorted_tree(l[self._order], r[self._order])
        levels = pack_levels(t["Lv"], t["Rv"], t["start"], t["end"] - t["start"], b)
        self._t = {k: t[k] for k in ("center", "left", "right", "start", "items", "Lv", "Rv")}
        self._levels = levels
        lists = (t["start"], t["items"], t["Lv"], t["Rv"], *levels, b)
        self._kernel, self._map = ir_top_k, self._order
        self._kargs = ((t["center"], t["left"], t["right"]), lists)

    def _core_nbytes(self):
        return (
            self._order.nbytes
            + sum(a.nbytes for a in self._t.values())
            + sum(a.nbytes for a in self._levels)
        )
