"""Interval-tree structures: the endpoint-sorted interval tree collecting every
stabbed interval into a k-heap (IT, Xu & Lu; seed 004's baseline) and the
score-sorted interval tree of seed 000 §2.2.2 (its "scored interval tree")."""

from __future__ import annotations

import numba
import numpy as np

from cnsim.subscriptions.ranked._kernels import (
    build_centered,
    centered_path,
    heap_pop,
    heap_push,
    heap_sift_down,
    kheap_offer,
    kheap_sorted,
)
from cnsim.subscriptions.ranked.base import RankedIndex, rank_order

_MAX_DEPTH = 128


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


@numba.njit(cache=True)
def stab_into(
    root,
    center,
    left,
    right,
    start,
    end,
    al_items,
    al_key,
    ar_items,
    ar_key,
    q,
    keys,
    vals,
    size,
    k,
):
    """Offer every interval of one tree stabbed by ``q`` to a k-heap; (size, #stabbed)."""
    v = root
    cnt = 0
    while v >= 0:
        c = center[v]
        if q < c:
            # every interval here reaches c > q, so it is stabbed iff l <= q
            for t in range(start[v], end[v]):
                if al_key[t] > q:
                    break
                size = kheap_offer(keys, vals, size, k, al_items[t])
                cnt += 1
            v = left[v]
        elif q > c:
            for t in range(start[v], end[v]):
                if ar_key[t] < q:
                    break
                size = kheap_offer(keys, vals, size, k, ar_items[t])
                cnt += 1
            v = right[v]
        else:
            for t in range(start[v], end[v]):
                size = kheap_offer(keys, vals, size, k, al_items[t])
                cnt += 1
            break
    return size, cnt


@numba.njit(cache=True)
def forest_top_k(roots, center, left, right, start, end, al_items, al_key, ar_items, ar_key, q, k):
    """Stab the trees in order until k intervals are found (seed 004 Algorithm 1)."""
    keys = np.empty(k, np.int64)
    vals = np.empty(k, np.int64)
    size = 0
    total = 0
    for g in range(roots.shape[0]):
        size, cnt = stab_into(
            roots[g],
            center,
            left,
            right,
            start,
            end,
            al_items,
            al_key,
            ar_items,
            ar_key,
            q,
            keys,
            vals,
            size,
            k,
        )
        total += cnt
        # trees hold rank ranges in order, so k hits in trees 1..g are the answer
        if total >= k:
            break
    return kheap_sorted(vals, size)


def _forest_args(f: dict) -> tuple:
    return (
        f["roots"],
        f["center"],
        f["left"],
        f["right"],
        f["start"],
        f["end"],
        f["al_items"],
        f["al_key"],
        f["ar_items"],
        f["ar_key"],
    )


class IntervalTree(RankedIndex):
    """Endpoint-sorted interval tree; all stabbed intervals go through a k-heap."""

    name = "interval_tree"
    native_updates = True

    def _build(self, l, r, score):
        self._order = rank_order(score)
        bounds = np.array([0, len(l)])
        self._f = build_endpoint_forest(l[self._order], r[self._order], bounds)
        # one tree: forest_top_k cannot stop early, so this is IT exactly
        self._kernel, self._kargs, self._map = forest_top_k, _forest_args(self._f), self._order

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


@numba.njit(cache=True)
def _next_stabbed(Lv, Rv, p, stop, q):
    while p < stop:
        if Lv[p] <= q <= Rv[p]:
            return p
        p += 1
    return -1


@numba.njit(cache=True)
def sit_top_k(center, left, right, start, end, items, Lv, Rv, minl, maxr, q, k):
    """Heap merge over the path of the score-sorted lists, skipping unstabbed entries."""
    path = np.empty(_MAX_DEPTH, np.int64)
    m = centered_path(center, left, right, q, path)
    keys = np.empty(m, np.int64)
    vals = np.empty(m, np.int64)
    ptr = np.empty(m, np.int64)
    size = 0
    for i in range(m):
        v = path[i]
        if minl[v] <= q <= maxr[v]:
            p = _next_stabbed(Lv, Rv, start[v], end[v], q)
            if p >= 0:
                ptr[i] = p
                size = heap_push(keys, vals, size, items[p], i)
    out = np.empty(k, np.int64)
    cnt = 0
    while cnt < k and size > 0:
        out[cnt] = keys[0]
        cnt += 1
        i = vals[0]
        p = _next_stabbed(Lv, Rv, ptr[i] + 1, end[path[i]], q)
        if p >= 0:
            ptr[i] = p
            keys[0] = items[p]
            heap_sift_down(keys, vals, size)
        else:
            size = heap_pop(keys, vals, size)
    return out[:cnt]


class ScoredIntervalTree(RankedIndex):
    """Seed 000's scored interval tree: score-sorted node lists merged by a heap."""

    name = "scored_interval_tree"
    native_updates = True

    def _build(self, l, r, score):
        self._order = rank_order(score)
        self._t = build_score_sorted_tree(l[self._order], r[self._order])
        t = self._t
        self._kargs = (
            t["center"],
            t["left"],
            t["right"],
            t["start"],
            t["end"],
            t["items"],
            t["Lv"],
            t["Rv"],
            t["minl"],
            t["maxr"],
        )
        self._kernel, self._map = sit_top_k, self._order

    def _core_nbytes(self):
        return self._order.nbytes + sum(a.nbytes for a in self._t.values())
