"""Interval-tree structures: the endpoint-sorted interval tree collecting every
stabbed interval into a k-heap (IT, Xu & Lu; seed 004's baseline) and the
score-sorted interval tree of seed 000 §2.2.2 (its "scored interval tree")."""

from __future__ import annotations

import numba
import numpy as np

from cnsim.subscriptions.ranked._kernels import (
    build_centered,
    centered_path,
    kheap_offer,
    kheap_sorted,
    make_path_merge,
)
from cnsim.subscriptions.ranked.base import RankedIndex, rank_order


def node_of_positions(start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """The node owning each position of the concatenated node lists (nodes' lists are
    contiguous but laid out in build order, not node-id order)."""
    by_pos = np.argsort(start, kind="stable")
    return np.repeat(by_pos, (end - start)[by_pos])


def build_endpoint_forest(Lr: np.ndarray, Rr: np.ndarray, bounds: np.ndarray) -> dict:
    """One endpoint-sorted interval tree per rank range ``bounds[g]:bounds[g+1]``,
    in flat arrays; node lists hold ranks sorted by l ascending (A_left) and by
    r descending (A_right), with the keys beside them for a cache-friendly scan."""
    if len(bounds) < 2:
        bounds = np.array([0, 0])  # one empty tree keeps every array typed
    parts = {k: [] for k in ("center", "left", "right", "start", "end", "items")}
    roots = np.full(len(bounds) - 1, -1, np.int64)
    n_nodes = n_items = 0
    for g in range(len(bounds) - 1):
        g0, g1 = int(bounds[g]), int(bounds[g + 1])
        center, left, right, start, end, items = build_centered(Lr[g0:g1], Rr[g0:g1])
        if len(center):
            roots[g] = n_nodes
        parts["center"].append(center)
        parts["left"].append(np.where(left >= 0, left + n_nodes, -1))
        parts["right"].append(np.where(right >= 0, right + n_nodes, -1))
        parts["start"].append(start + n_items)
        parts["end"].append(end + n_items)
        parts["items"].append(items + g0)
        n_nodes += len(center)
        n_items += len(items)
    f = {k: np.concatenate(v) for k, v in parts.items()}
    items = f.pop("items").astype(np.int64)
    seg = f["start"][node_of_positions(f["start"], f["end"])]
    # sort within each node's segment, leaving the segments where they are
    al = items[np.lexsort((Lr[items], seg))]
    ar = items[np.lexsort((-Rr[items], seg))]
    for k in ("left", "right", "start", "end"):
        f[k] = f[k].astype(np.int32 if n_items < 2**31 else np.int64)
    f.update(
        roots=roots,
        al_items=al.astype(np.int32),
        al_key=Lr[al],
        ar_items=ar.astype(np.int32),
        ar_key=Rr[ar],
    )
    return f


@numba.njit(cache=True, _nrt=False)
def _offer_while(items, key, lo, hi, bound, sign, keys, vals, size, k):
    """Offer ``items[lo:hi]`` to a k-heap while ``sign * key <= sign * bound``; (size, #)."""
    cnt = 0
    for t in range(lo, hi):
        if sign * key[t] > sign * bound:
            break
        size = kheap_offer(keys, vals, size, k, items[t])
        cnt += 1
    return size, cnt


@numba.njit(cache=True, _nrt=False)
def stab_into(root, tree, q, keys, vals, size, k):
    """Offer every interval of one tree stabbed by ``q`` to a k-heap; (size, #stabbed)."""
    center, left, right, start, end, al_items, al_key, ar_items, ar_key = tree
    v = root
    total = 0
    while v >= 0:
        c = center[v]
        if q < c:
            # every interval here reaches c > q, so it is stabbed iff l <= q
            size, cnt = _offer_while(al_items, al_key, start[v], end[v], q, 1, keys, vals, size, k)
            v = left[v]
        elif q > c:
            # symmetric: stabbed iff r >= q (A_right is sorted by r descending)
            size, cnt = _offer_while(ar_items, ar_key, start[v], end[v], q, -1, keys, vals, size, k)
            v = right[v]
        else:
            size, cnt = _offer_while(
                al_items, al_key, start[v], end[v], np.inf, 1, keys, vals, size, k
            )
            v = -1
        total += cnt
    return size, total


@numba.njit(cache=True)
def forest_top_k(roots, tree, q, k):
    """Stab the trees in order until k intervals are found (seed 004 Algorithm 1)."""
    keys = np.empty(k, np.int64)
    vals = np.empty(k, np.int64)
    size = 0
    total = 0
    for g in range(roots.shape[0]):
        size, cnt = stab_into(roots[g], tree, q, keys, vals, size, k)
        total += cnt
        # trees hold rank ranges in order, so k hits in trees 1..g are the answer
        if total >= k:
            break
    return kheap_sorted(vals, size)


def forest_args(f: dict) -> tuple:
    """Kernel arguments of ``forest_top_k`` over a forest from ``build_endpoint_forest``."""
    names = ("center", "left", "right", "start", "end", "al_items", "al_key", "ar_items", "ar_key")
    return f["roots"], tuple(f[n] for n in names)


class IntervalTree(RankedIndex):
    """Endpoint-sorted interval tree; all stabbed intervals go through a k-heap."""

    name = "interval_tree"
    native_updates = True

    def _build(self, l, r, score):
        self._order = rank_order(score)
        bounds = np.array([0, len(l)])
        self._f = build_endpoint_forest(l[self._order], r[self._order], bounds)
        # one tree: forest_top_k cannot stop early, so this is IT exactly
        self._kernel, self._kargs, self._map = forest_top_k, forest_args(self._f), self._order

    def _core_nbytes(self):
        return self._order.nbytes + sum(a.nbytes for a in self._f.values())


# ------------------------------------------------ score-sorted interval tree


def build_score_sorted_tree(Lr: np.ndarray, Rr: np.ndarray) -> dict:
    """Centred interval tree whose node lists are in rank order, with each node's
    extent (min l, max r) and the lists' endpoints stored node-ordered."""
    center, left, right, start, end, items = build_centered(Lr, Rr)
    n_nodes = len(center)
    node_of = node_of_positions(start, end)
    Lv, Rv = Lr[items], Rr[items]
    minl = np.full(n_nodes, np.inf)
    maxr = np.full(n_nodes, -np.inf)
    np.minimum.at(minl, node_of, Lv)
    np.maximum.at(maxr, node_of, Rv)
    idx_t = np.int32
    return dict(
        center=center,
        left=left.astype(idx_t),
        right=right.astype(idx_t),
        start=start,
        end=end,
        items=items.astype(idx_t),
        Lv=Lv,
        Rv=Rv,
        minl=minl,
        maxr=maxr,
    )


@numba.njit(cache=True, _nrt=False)
def _next_stabbed(Lv, Rv, p, stop, q):
    while p < stop:
        if Lv[p] <= q <= Rv[p]:
            return p
        p += 1
    return -1


@numba.njit(cache=True, _nrt=False)
def _sit_cursor(lists, v, last, q):
    """Next stabbed entry of node v's score-sorted list (none if q is outside its extent)."""
    start, end, items, Lv, Rv, minl, maxr = lists
    if last < 0:
        if not (minl[v] <= q <= maxr[v]):
            return -1, -1
        p = _next_stabbed(Lv, Rv, start[v], end[v], q)
    else:
        p = _next_stabbed(Lv, Rv, last + 1, end[v], q)
    if p < 0:
        return -1, -1
    return p, np.int64(items[p])


_sit_merge = make_path_merge(centered_path, _sit_cursor)


@numba.njit(cache=True)
def sit_top_k(tree, lists, q, k):
    """Heap merge over the path of the score-sorted lists, skipping unstabbed entries."""
    return _sit_merge(tree, lists, q, k)


class ScoredIntervalTree(RankedIndex):
    """Seed 000's scored interval tree: score-sorted node lists merged by a heap."""

    name = "scored_interval_tree"
    native_updates = True

    def _build(self, l, r, score):
        self._order = rank_order(score)
        self._t = build_score_sorted_tree(l[self._order], r[self._order])
        t = self._t
        lists = tuple(t[n] for n in ("start", "end", "items", "Lv", "Rv", "minl", "maxr"))
        self._kernel, self._map = sit_top_k, self._order
        self._kargs = ((t["center"], t["left"], t["right"]), lists)

    def _core_nbytes(self):
        return self._order.nbytes + sum(a.nbytes for a in self._t.values())
