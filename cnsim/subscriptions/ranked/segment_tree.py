"""Segment trees over elementary cells: the plain segment tree (node lists in id
order, every stabbed interval through a k-heap; seed 004's baseline) and seed 000's
scored segment tree (node lists in rank order merged by a heap of path nodes, seed
004's "sorted segment tree").

The tree is a complete binary tree in heap layout (node 1 is the root, node v has
children 2v and 2v + 1, leaf ``size + c`` is elementary cell c), so the path of a
query is ``leaf >> j`` and needs no pointers.
"""

from __future__ import annotations

import numba
import numpy as np

from cnsim.subscriptions.ranked._kernels import (
    MAX_DEPTH,
    cell_of,
    cell_ranges,
    kheap_offer,
    kheap_sorted,
    make_path_merge,
)
from cnsim.subscriptions.ranked.base import RankedIndex, rank_order


@numba.njit(cache=True, _nrt=False)
def seg_cover(a, b, size, out):
    """Heap-layout nodes of the canonical cover of cells ``[a, b]`` into ``out``; count."""
    lo = a + size
    hi = b + size + 1
    m = 0
    while lo < hi:
        if lo & 1:
            out[m] = lo
            m += 1
            lo += 1
        if hi & 1:
            hi -= 1
            out[m] = hi
            m += 1
        lo >>= 1
        hi >>= 1
    return m


@numba.njit(cache=True)
def seg_build(A, B, seq, size):
    """Node lists (CSR over heap-layout node ids) of the canonical cover of each
    cell range ``[A[i], B[i]]``, filled in the order of ``seq``; ``(offsets, items)``."""
    offsets = np.zeros(2 * size + 1, np.int64)
    cover = np.empty(2 * MAX_DEPTH, np.int64)
    for t in range(seq.shape[0]):
        i = seq[t]
        for j in range(seg_cover(A[i], B[i], size, cover)):
            offsets[cover[j] + 1] += 1
    for v in range(2 * size):
        offsets[v + 1] += offsets[v]
    fill = offsets[:-1].copy()
    items = np.empty(offsets[-1], np.int32)
    for t in range(seq.shape[0]):
        i = seq[t]
        for j in range(seg_cover(A[i], B[i], size, cover)):
            v = cover[j]
            items[fill[v]] = i
            fill[v] += 1
    return offsets, items


@numba.njit(cache=True, _nrt=False)
def seg_path(tree, q, path):
    """Nodes from the leaf of ``q``'s cell up to the root into ``path``; their count
    (``tree`` is the distinct endpoints and the number of leaves)."""
    xs, size = tree
    v = size + cell_of(xs, q)
    m = 0
    while v >= 1:
        path[m] = v
        m += 1
        v >>= 1
    return m


@numba.njit(cache=True)
def seg_all_top_k(tree, lists, q, k):
    """Report every interval on the path into a k-heap (plain segment tree)."""
    offsets, items = lists
    keys = np.empty(k, np.int64)
    vals = np.empty(k, np.int64)
    path = np.empty(MAX_DEPTH, np.int64)
    n = 0
    for i in range(seg_path(tree, q, path)):
        v = path[i]
        for t in range(offsets[v], offsets[v + 1]):
            n = kheap_offer(keys, vals, n, k, items[t])
    return kheap_sorted(vals, n)


@numba.njit(cache=True, _nrt=False)
def _seg_cursor(lists, v, last, q):
    """Next entry of node v's list: every entry of a path node is stabbed."""
    offsets, items = lists
    p = offsets[v] if last < 0 else last + 1
    if p < offsets[v + 1]:
        return p, np.int64(items[p])
    return -1, -1


_seg_merge = make_path_merge(seg_path, _seg_cursor)


@numba.njit(cache=True)
def seg_merge_top_k(tree, lists, q, k):
    """Heap merge of the rank-sorted lists on the path (scored segment tree)."""
    return _seg_merge(tree, lists, q, k)


def elementary(l: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Distinct endpoints, each interval's cell range, and the number of cells."""
    xs = np.unique(np.concatenate([l, r]))
    A, B = cell_ranges(xs, l, r)
    return xs, A, B, 2 * len(xs) + 1


class _SegmentBase(RankedIndex):
    _rank_sorted = True

    def _build(self, l, r, score):
        self._order = rank_order(score)
        self._xs, A, B, n_cells = elementary(l[self._order], r[self._order])
        self._tsize = 1 << max(0, int(n_cells - 1).bit_length())
        # rank order fills each node list best-first; id order leaves it unsorted
        seq = np.arange(len(l)) if self._rank_sorted else np.argsort(self._order)
        self._off, self._items = seg_build(A, B, seq, self._tsize)
        self._kargs = ((self._xs, self._tsize), (self._off, self._items))
        self._map = self._order

    def _core_nbytes(self):
        return self._order.nbytes + self._xs.nbytes + self._off.nbytes + self._items.nbytes


class SegmentTree(_SegmentBase):
    """Plain segment tree: every stabbed interval goes through a k-heap."""

    name = "segment_tree"
    _rank_sorted = False
    _kernel = staticmethod(seg_all_top_k)


class ScoredSegmentTree(_SegmentBase):
    """Seed 000's scored segment tree: rank-sorted node lists merged by a heap."""

    name = "scored_segment_tree"
    native_updates = True
    _kernel = staticmethod(seg_merge_top_k)
