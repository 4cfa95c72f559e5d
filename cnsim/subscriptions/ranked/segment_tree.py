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
    cell_of,
    cell_ranges,
    heap_pop,
    heap_push,
    heap_sift_down,
    kheap_offer,
    kheap_sorted,
)
from cnsim.subscriptions.ranked.base import RankedIndex, rank_order


@numba.njit(cache=True)
def seg_build(A, B, seq, size):
    """Node lists (CSR over heap-layout node ids) of the canonical cover of each
    cell range ``[A[i], B[i]]``, filled in the order of ``seq``; ``(offsets, items)``."""
    offsets = np.zeros(2 * size + 1, np.int64)
    for t in range(seq.shape[0]):
        i = seq[t]
        lo = A[i] + size
        hi = B[i] + size + 1
        while lo < hi:
            if lo & 1:
                offsets[lo + 1] += 1
                lo += 1
            if hi & 1:
                hi -= 1
                offsets[hi + 1] += 1
            lo >>= 1
            hi >>= 1
    for v in range(2 * size):
        offsets[v + 1] += offsets[v]
    fill = offsets[:-1].copy()
    items = np.empty(offsets[-1], np.int32)
    for t in range(seq.shape[0]):
        i = seq[t]
        lo = A[i] + size
        hi = B[i] + size + 1
        while lo < hi:
            if lo & 1:
                items[fill[lo]] = i
                fill[lo] += 1
                lo += 1
            if hi & 1:
                hi -= 1
                items[fill[hi]] = i
                fill[hi] += 1
            lo >>= 1
            hi >>= 1
    return offsets, items


@numba.njit(cache=True)
def seg_all_top_k(xs, size, offsets, items, q, k):
    """Report every interval on the path into a k-heap (plain segment tree)."""
    keys = np.empty(k, np.int64)
    vals = np.empty(k, np.int64)
    n = 0
    v = size + cell_of(xs, q)
    while v >= 1:
        for t in range(offsets[v], offsets[v + 1]):
            n = kheap_offer(keys, vals, n, k, items[t])
        v >>= 1
    return kheap_sorted(vals, n)


@numba.njit(cache=True)
def seg_merge_top_k(xs, size, offsets, items, q, k):
    """Heap merge of the rank-sorted lists on the path (scored segment tree)."""
    leaf = size + cell_of(xs, q)
    depth = 0
    v = leaf
    while v >= 1:
        depth += 1
        v >>= 1
    keys = np.empty(depth, np.int64)
    vals = np.empty(depth, np.int64)
    ptr = np.empty(depth, np.int64)
    n = 0
    v = leaf
    for i in range(depth):
        if offsets[v] < offsets[v + 1]:
            ptr[i] = offsets[v]
            n = heap_push(keys, vals, n, items[offsets[v]], i)
        v >>= 1
    out = np.empty(k, np.int64)
    cnt = 0
    while cnt < k and n > 0:
        out[cnt] = keys[0]
        cnt += 1
        i = vals[0]
        ptr[i] += 1
        if ptr[i] < offsets[(leaf >> i) + 1]:
            keys[0] = items[ptr[i]]
            heap_sift_down(keys, vals, n)
        else:
            n = heap_pop(keys, vals, n)
    return out[:cnt]


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
        self._kargs = (self._xs, self._tsize, self._off, self._items)
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
