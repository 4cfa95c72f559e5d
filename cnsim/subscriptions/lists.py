"""Subscriber-side top-k lists, one row per subscription (columnar, m × k).

A row holds the ids and y-values of the objects a subscription currently keeps,
sorted by (y, id); empty slots are ``(-1, +inf)``. Deliveries are applied with the
subscriber rule of seed 003 §II-A: if the list holds the object, update its y
(``+inf`` removes it: the object was deleted); otherwise keep the top k of the list
plus the object.

Rows are stored in a :class:`Layout`: the order in which the network delivers (for
the Meghdoot overlay, by gateway zone and then by leaf of the zone's k-d tree; for
the ideal CN, by leaf of the subscription index), so that the deliveries of one
message touch contiguous rows instead of one random row each. Ids stay
the original subscription ids everywhere outside: ``ids``/``ys`` and ``apply`` speak
subscription ids, ``apply(rows=...)`` takes rows a network already knows. Object ids
are stored in the smallest integer type that holds every id of the run.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np


def id_dtype(max_id: int) -> np.dtype:
    """The smallest signed integer type holding ids ``-1 .. max_id``."""
    for t in (np.int16, np.int32):
        if max_id <= np.iinfo(t).max:
            return np.dtype(t)
    return np.dtype(np.int64)


@dataclass(frozen=True)
class Layout:
    """The order subscriptions are stored in: ``order[row]`` is the subscription at
    ``row``, ``row_of[sub]`` its row. Shared by every list of a run."""

    order: np.ndarray
    row_of: np.ndarray

    @classmethod
    def of(cls, order: np.ndarray) -> Layout:
        """The layout storing subscription ``order[row]`` at ``row``."""
        dtype = np.int32 if len(order) < 2**31 else np.int64
        order = np.ascontiguousarray(order, dtype)
        row_of = np.empty_like(order)
        row_of[order] = np.arange(len(order), dtype=dtype)
        return cls(order, row_of)

    def nbytes(self) -> int:
        """Bytes of the two permutations."""
        return self.order.nbytes + self.row_of.nbytes


class TopKLists:
    """The m × k lists of all subscriptions, stored in ``layout`` order (None: row
    ``j`` is subscription ``j``)."""

    def __init__(self, ids: np.ndarray, ys: np.ndarray, layout: Layout | None = None):
        self.row_ids = ids  # rows in layout order
        self.row_ys = ys
        self.layout = layout

    @classmethod
    def initial(
        cls,
        x: np.ndarray,
        y: np.ndarray,
        l: np.ndarray,
        r: np.ndarray,
        k: int,
        layout: Layout | None = None,
        max_id: int | None = None,
    ) -> TopKLists:
        """Every subscription's true top-k over objects ``(x, y)``, stored in
        ``layout``; ids compact enough for ``max_id`` (default: the objects' ids).
        ``x`` (n,) with ranges ``[l, r]`` (m,), or the objects' points ``x`` (n, a) with
        boxes ``[l, r]`` (m, a) (:func:`box_top_k`; a box over one attribute is a range)."""
        if layout is not None:
            l, r = l[layout.order], r[layout.order]
        dtype = id_dtype(len(y) - 1 if max_id is None else max_id)
        if np.ndim(x) == 2 and np.shape(x)[1] == 1:
            x, l, r = x[:, 0], l[:, 0], r[:, 0]
        top_k = range_top_k if np.ndim(x) == 1 else box_top_k
        return cls(*top_k(x, y, l, r, k, dtype), layout)

    @property
    def k(self) -> int:
        """List length."""
        return self.row_ids.shape[1]

    @property
    def ids(self) -> np.ndarray:
        """Object ids of every list by subscription id (a copy unless stored in
        subscription order)."""
        return self.row_ids if self.layout is None else self.row_ids[self.layout.row_of]

    @property
    def ys(self) -> np.ndarray:
        """y-values of every list by subscription id (a copy unless stored in
        subscription order)."""
        return self.row_ys if self.layout is None else self.row_ys[self.layout.row_of]

    def rows(self, subs: np.ndarray) -> np.ndarray:
        """The rows of subscriptions ``subs``."""
        return subs if self.layout is None else self.layout.row_of[subs]

    def copy(self) -> TopKLists:
        """An independent copy (sharing the layout)."""
        return TopKLists(self.row_ids.copy(), self.row_ys.copy(), self.layout)

    def nbytes(self) -> int:
        """Bytes of the list rows (the layout is shared and not counted)."""
        return self.row_ids.nbytes + self.row_ys.nbytes

    def assign(self, subs: np.ndarray, ids: np.ndarray, ys: np.ndarray) -> None:
        """Set the lists of subscriptions ``subs`` to rows ``ids``, ``ys`` (a joining
        subscription's first list)."""
        rows = self.rows(subs)
        self.row_ids[rows] = ids.astype(self.row_ids.dtype)
        self.row_ys[rows] = ys

    def apply(
        self,
        subs: np.ndarray,
        obj: np.ndarray,
        y: np.ndarray,
        evict: np.ndarray | None = None,
        rows: np.ndarray | None = None,
    ) -> None:
        """Apply deliveries ``(subs[t], obj[t], y[t])`` in order with the subscriber rule;
        a unicast delivery first removes the object it replaces (``evict[t] >= 0``).
        ``rows``, if given, are the deliveries' rows in this list's layout."""
        if rows is None:
            rows = self.rows(subs)
        if evict is None:
            evict = _NO_EVICT
        _apply(self.row_ids, self.row_ys, rows, obj, y, evict)


_NO_EVICT = np.empty(0, np.int64)


@numba.njit(cache=True)
def _before(ya, ia, yb, ib):
    return ya < yb or (ya == yb and ia < ib)


@numba.njit(cache=True)
def _apply(ids, ys, rows, obj, y, evict):
    has_evict = len(evict) > 0
    for t in range(len(rows)):
        if has_evict and evict[t] >= 0:
            _receive(ids, ys, rows[t], evict[t], np.inf)
        _receive(ids, ys, rows[t], obj[t], y[t])


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


# Entries (levels × objects × k) up to which the initial lists use a sparse table (one
# merge per range) rather than the segment tree (O(log n) merges per range).
SPARSE_TABLE_ENTRIES = 2**22  # 64 MB of table


def range_top_k(
    x: np.ndarray,
    y: np.ndarray,
    l: np.ndarray,
    r: np.ndarray,
    k: int,
    dtype: np.dtype | type = np.int64,
) -> tuple[np.ndarray, np.ndarray]:
    """For each range ``[l_j, r_j]``, the ids (of type ``dtype``) and y-values of the k
    objects with the smallest y inside it, sorted by (y, id), padded with ``(-1, inf)``.

    Objects with ``y = inf`` are absent. Over the objects in x order, a sparse table
    holds the top-k of every run of 2^i objects, so a range is the union of two runs
    (one merge); where that table would be too big, a bottom-up segment tree, where a
    range is the union of O(log n) nodes.
    """
    live = np.flatnonzero(np.isfinite(y))
    order = live[np.argsort(x[live], kind="stable")]
    xs = x[order]
    lo = np.searchsorted(xs, l, side="left")
    hi = np.searchsorted(xs, r, side="right")
    ids, ys = order.astype(np.int64), y[order]
    n = len(order)
    levels = max(1, int(n).bit_length())
    out_i = np.full((len(l), k), -1, dtype)
    out_y = np.full((len(l), k), np.inf)
    if levels * n * k <= SPARSE_TABLE_ENTRIES:
        table_ids, table_ys = _build_sparse_table(ids, ys, k, levels)
        _query_sparse(table_ids, table_ys, lo, hi, k, out_i, out_y)
    else:
        tree_ids, tree_ys = _build_segment_tree(ids, ys, k)
        _query_all(tree_ids, tree_ys, n, lo, hi, k, out_i, out_y)
    return out_i, out_y


@numba.njit(cache=True)
def _build_sparse_table(ids, ys, k, levels):
    """Level ``i``, entry ``p``: the top-k of objects ``p .. p + 2^i - 1`` (x order)."""
    n = len(ids)
    t_i = np.full((levels, max(n, 1), k), -1, np.int64)
    t_y = np.full((levels, max(n, 1), k), np.inf)
    for p in range(n):
        t_i[0, p, 0] = ids[p]
        t_y[0, p, 0] = ys[p]
    for lv in range(1, levels):
        half = 1 << (lv - 1)
        for p in range(n - (1 << lv) + 1):
            _merge_two(t_i[lv - 1, p], t_y[lv - 1, p], t_i[lv - 1, p + half],
                       t_y[lv - 1, p + half], t_i[lv, p], t_y[lv, p], k)  # fmt: skip
    return t_i, t_y


@numba.njit(cache=True, inline="always")
def _merge_two(a_i, a_y, b_i, b_y, out_i, out_y, k):
    """The first k of two sorted k-buffers into ``out`` (an object in both, as two
    overlapping runs share, is taken once)."""
    a = b = 0
    for c in range(k):
        take_a = a < k and a_i[a] >= 0
        take_b = b < k and b_i[b] >= 0
        if take_a and take_b:
            if a_i[a] == b_i[b]:
                b += 1
            elif not _before(a_y[a], a_i[a], b_y[b], b_i[b]):
                take_a = False
        if take_a:
            out_i[c], out_y[c] = a_i[a], a_y[a]
            a += 1
        elif take_b:
            out_i[c], out_y[c] = b_i[b], b_y[b]
            b += 1
        else:
            break


@numba.njit(cache=True)
def _query_sparse(t_i, t_y, lo, hi, k, out_i, out_y):
    for j in range(len(lo)):
        length = hi[j] - lo[j]
        if length <= 0:
            continue
        lv = 0
        while (2 << lv) <= length:
            lv += 1
        _merge_two(t_i[lv, lo[j]], t_y[lv, lo[j]], t_i[lv, hi[j] - (1 << lv)],
                   t_y[lv, hi[j] - (1 << lv)], out_i[j], out_y[j], k)  # fmt: skip


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
def _query_all(tree_ids, tree_ys, n, lo, hi, k, out_i, out_y):
    size = tree_ids.shape[0] // 2
    m = len(lo)
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


def box_top_k(points, y, lo, hi, k, dtype=np.int64) -> tuple[np.ndarray, np.ndarray]:
    """For each box ``[lo_j, hi_j]`` over the objects' attributes (``lo``, ``hi``: (m, a);
    ``points``: (ids, a)), the ids (of type ``dtype``) and y-values of the k objects with
    the smallest y inside it, sorted by (y, id), padded with ``(-1, inf)``: the live
    objects in (y, id) order, the first k inside each box (numba)."""
    y = np.asarray(y, np.float64)
    order = np.lexsort((np.arange(len(y)), y))
    order = order[np.isfinite(y[order])]
    ids, ys = _scan_boxes(
        np.ascontiguousarray(np.asarray(points, np.float64)[order]),
        y[order],
        order.astype(np.int64),
        np.ascontiguousarray(lo, np.float64),
        np.ascontiguousarray(hi, np.float64),
        k,
    )
    return ids.astype(dtype), ys


@numba.njit(cache=True)
def _scan_boxes(sp, sy, sid, lo, hi, k):  # pragma: no cover - numba
    m, a = lo.shape
    out_i = np.full((m, k), -1, np.int64)
    out_y = np.full((m, k), np.inf)
    for j in range(m):
        c = 0
        for p in range(len(sy)):
            inside = True
            for t in range(a):
                if not (lo[j, t] <= sp[p, t] <= hi[j, t]):
                    inside = False
                    break
            if inside:
                out_i[j, c] = sid[p]
                out_y[j, c] = sy[p]
                c += 1
                if c == k:
                    break
    return out_i, out_y
