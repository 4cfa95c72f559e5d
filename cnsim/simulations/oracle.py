"""The brute-force oracle: every subscription's true top-k, computed from scratch.

Deliberately independent of the indexes it checks: a plain scan of all objects
per subscription (vectorised over objects with numba), O(m · n).
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def true_top_k(x, y, l, r, k):
    """Ids and y-values of each subscription's top k (sorted by (y, id), padded with
    ``(-1, inf)``), by scanning every object for every subscription."""
    m = len(l)
    out_i = np.full((m, k), -1, np.int64)
    out_y = np.full((m, k), np.inf)
    for j in range(m):
        for o in range(len(x)):
            yo = y[o]
            if not (l[j] <= x[o] <= r[j]) or yo == np.inf:
                continue
            if yo > out_y[j, k - 1] or (yo == out_y[j, k - 1] and o > out_i[j, k - 1] >= 0):
                continue
            c = k - 1
            while c > 0 and (
                yo < out_y[j, c - 1] or (yo == out_y[j, c - 1] and o < out_i[j, c - 1])
            ):
                out_y[j, c] = out_y[j, c - 1]
                out_i[j, c] = out_i[j, c - 1]
                c -= 1
            out_y[j, c] = yo
            out_i[j, c] = o
    return out_i, out_y


@numba.njit(cache=True)
def ranks(x, y, l, r, subs, obj):
    """1-based rank of object ``obj[t]`` among the live objects of subscription
    ``subs[t]``'s range (objects with smaller y, ties by id, plus one)."""
    out = np.empty(len(subs), np.int64)
    for t in range(len(subs)):
        s, o = subs[t], obj[t]
        below = 0
        for p in range(len(x)):
            if p != o and l[s] <= x[p] <= r[s] and (y[p] < y[o] or (y[p] == y[o] and p < o)):
                below += 1
        out[t] = below + 1
    return out


def batch_minimum(before, after, pre, batch) -> np.ndarray:
    """Per subscription, the fewest messages that take its list from ``before`` to
    ``after`` (Theorem 6, with Lemma 5): one for every entry of the final list that
    is new or has a new value, plus one for every object that leaves the list,
    is rank-lowered in the (coalesced) ``batch`` and is still in the list once the
    batch's rank-raising updates alone are applied (``pre``); every other object that
    leaves is displaced by arrivals without a message of its own.

    ``before``, ``after`` and ``pre`` are (ids, ys) top-k lists as from
    :func:`true_top_k`; ``batch`` holds one update per object.
    """
    lowered = np.zeros(max(int(batch.obj.max(initial=-1)) + 1, 1), np.bool_)
    lowered[batch.obj[batch.y_new > batch.y_old]] = True
    return _batch_minimum(before[0], before[1], after[0], after[1], pre[0], pre[1], lowered)


@numba.njit(cache=True)
def _batch_minimum(b_ids, b_ys, a_ids, a_ys, p_ids, p_ys, lowered):
    m, k = b_ids.shape
    out = np.zeros(m, np.int64)
    for s in range(m):
        for c in range(k):
            o = a_ids[s, c]
            if o >= 0 and not _holds(b_ids[s], b_ys[s], o, a_ys[s, c]):
                out[s] += 1  # arrives, or changes its value
            o = b_ids[s, c]
            if o < 0 or _holds(a_ids[s], a_ys[s], o, np.nan) or o >= len(lowered):
                continue
            if lowered[o] and _holds(p_ids[s], p_ys[s], o, np.nan):
                out[s] += 1  # leaves, and only a message about itself can remove it
    return out


@numba.njit(cache=True)
def _holds(ids, ys, o, y):
    """Whether the list holds object o (with value y, unless y is NaN)."""
    for c in range(len(ids)):  # noqa: SIM110 (numba compiles loops, not generators)
        if ids[c] == o and (y != y or ys[c] == y):
            return True
    return False


def exhaustive_minimum(start_ids, start_ys, final_ids, final_ys, candidates) -> int:
    """The fewest messages from ``candidates`` (``(obj, y)`` pairs, each usable once)
    that take one list from ``start`` to ``final`` under the subscriber rule, by
    breadth-first search over all orders and subsets. For tests on tiny instances."""
    from cnsim.subscriptions.lists import TopKLists

    target = (tuple(final_ids), tuple(final_ys))
    frontier = {((tuple(start_ids), tuple(start_ys)), 0)}
    seen = set(frontier)
    for depth in range(len(candidates) + 1):
        if any(state == target for state, _ in frontier):
            return depth
        nxt = set()
        for (ids, ys), used in frontier:
            for j, (o, y) in enumerate(candidates):
                if used >> j & 1:
                    continue
                lists = TopKLists(np.array([ids], np.int64), np.array([ys], np.float64))
                lists.apply(np.zeros(1, np.int64), np.array([o], np.int64), np.array([y]))
                state = ((tuple(lists.ids[0]), tuple(lists.ys[0])), used | 1 << j)
                if state not in seen:
                    seen.add(state)
                    nxt.add(state)
        frontier = nxt
    raise ValueError(f"no sequence of the {len(candidates)} candidates reaches the final list")
