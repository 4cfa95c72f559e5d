"""Subscriber-side top-k lists, one row per subscription (columnar, m × k).

Row ``j`` holds the ids and y-values of the objects subscription ``j`` currently
keeps, sorted by (y, id); empty slots are ``(-1, +inf)``. Deliveries are applied
with the subscriber rule of seed 003 §II-A: if the list holds the object, update
its y (``+inf`` removes it: the object was deleted); otherwise keep the top k of
the list plus the object.
"""

from __future__ import annotations

import numba
import numpy as np


class TopKLists:
    """The m × k lists of all subscriptions."""

    def __init__(self, ids: np.ndarray, ys: np.ndarray):
        self.ids = ids
        self.ys = ys

    @classmethod
    def initial(
        cls, x: np.ndarray, y: np.ndarray, l: np.ndarray, r: np.ndarray, k: int
    ) -> TopKLists:
        """Every subscription's true top-k over objects ``(x, y)``, in O((n + m) k log n)."""
        ids, ys = range_top_k(x, y, l, r, k)
        return cls(ids, ys)

    @property
    def k(self) -> int:
        """List length."""
        return self.ids.shape[1]

    def copy(self) -> TopKLists:
        """An independent copy."""
        return TopKLists(self.ids.copy(), self.ys.copy())

    def apply(
        self, subs: np.ndarray, obj: np.ndarray, y: np.ndarray, evict: np.ndarray | None = None
    ) -> None:
        """Apply deliveries ``(subs[t], obj[t], y[t])`` in order with the subscriber rule;
        a unicast delivery first removes the object it replaces (``evict[t] >= 0``)."""
        if evict is None:
            evict = np.full(len(subs), -1, np.int64)
        _apply(self.ids, self.ys, subs, obj, y, evict)


@numba.njit(cache=True)
def _before(ya, ia, yb, ib):
    return ya < yb or (ya == yb and ia < ib)


@numba.njit(cache=True)
def _apply(ids, ys, subs, obj, y, evict):
    for t in range(len(subs)):
        if evict[t] >= 0:
            _receive(ids, ys, subs[t], evict[t], np.inf)
        _receive(ids, ys, subs[t], obj[t], y[t])


@numba.njit(cache=True)
def _receive(ids, ys, s, o, yv):
    """The subscriber rule for one delivery of object o with value yv to list s."""
    k = ids.shape[1]
    j = -1
    for c in range(k):
        if ids[s, c] == o:
            j = c
            break
    if j < 0:
        if not _before(yv, o, ys[s, k - 1], ids[s, k - 1]):
            return  # not better than the k-th: the list keeps its top k
        j = k - 1
    if yv == np.inf:
        o = -1  # a deleted object leaves the list; its slot becomes empty
    ids[s, j], ys[s, j] = o, yv
    # Restore (y, id) order by moving the changed entry left or right.
    while j > 0 and _before(ys[s, j], ids[s, j], ys[s, j - 1], ids[s, j - 1]):
        _swap(ids, ys, s, j, j - 1)
        j -= 1
    while j < k - 1 and _before(ys[s, j + 1], ids[s, j + 1], ys[s, j], ids[s, j]):
        _swap(ids, ys, s, j, j + 1)
        j += 1


@numba.njit(cache=True)
def _swap(ids, ys, s, a, b):
    ids[s, a], ids[s, b] = ids[s, b], ids[s, a]
    ys[s, a], ys[s, b] = ys[s, b], ys[s, a]


def range_top_k(
    x: np.ndarray, y: np.ndarray, l: np.ndarray, r: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """For each range ``[l_j, r_j]``, the ids and y-values of the k objects with the
    smallest y inside it, sorted by (y, id), padded with ``(-1, inf)``.

    Objects with ``y = inf`` are absent. A bottom-up segment tree over the objects in
    x order stores each node's top-k; a range is the union of O(log n) nodes.
    """
    live = np.flatnonzero(np.isfinite(y))
    order = live[np.argsort(x[live], kind="stable")]
    xs = x[order]
    lo = np.searchsorted(xs, l, side="left")
    hi = np.searchsorted(xs, r, side="right")
    tree_ids, tree_ys = _build_segment_tree(order.astype(np.int64), y[order], k)
    return _query_all(tree_ids, tree_ys, len(order), lo, hi, k)


@numba.njit(cache=True)
def _merge_into(dst_i, dst_y, src_i, src_y, k):
    # Insert every entry of src into the sorted k-buffer dst (entries are distinct objects).
    for c in range(k):
        if src_i[c] < 0:
            break
        yv, iv = src_y[c], src_i[c]
        if not _before(yv, iv, dst_y[k - 1], dst_i[k - 1]):
            break  # src is sorted: nothing later can enter either
        j = k - 1
        while j > 0 and _before(yv, iv, dst_y[j - 1], dst_i[j - 1]):
            dst_y[j] = dst_y[j - 1]
            dst_i[j] = dst_i[j - 1]
            j -= 1
        dst_y[j] = yv
        dst_i[j] = iv


@numba.njit(cache=True)
def _build_segment_tree(ids, ys, k):
    n = len(ids)
    size = 1
    while size < max(n, 1):
        size *= 2
    tree_ids = np.full((2 * size, k), -1, np.int64)
    tree_ys = np.full((2 * size, k), np.inf)
    for p in range(n):
        tree_ids[size + p, 0] = ids[p]
        tree_ys[size + p, 0] = ys[p]
    for v in range(size - 1, 0, -1):
        tree_ids[v] = tree_ids[2 * v]
        tree_ys[v] = tree_ys[2 * v]
        _merge_into(tree_ids[v], tree_ys[v], tree_ids[2 * v + 1], tree_ys[2 * v + 1], k)
    return tree_ids, tree_ys


@numba.njit(cache=True)
def _query_all(tree_ids, tree_ys, n, lo, hi, k):
    size = tree_ids.shape[0] // 2
    m = len(lo)
    out_i = np.full((m, k), -1, np.int64)
    out_y = np.full((m, k), np.inf)
    for j in range(m):
        a, b = lo[j] + size, hi[j] + size
        while a < b:
            if a & 1:
                _merge_into(out_i[j], out_y[j], tree_ids[a], tree_ys[a], k)
                a += 1
            if b & 1:
                b -= 1
                _merge_into(out_i[j], out_y[j], tree_ids[b], tree_ys[b], k)
            a //= 2
            b //= 2
    return out_i, out_y
