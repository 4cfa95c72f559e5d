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


def batch_minimum(before, after, y_final, subs: np.ndarray, max_objects: int = 12) -> np.ndarray:
    """Per subscription ``subs[t]``, the fewest messages that take its list from
    ``before`` to ``after`` under the subscriber rule (the minimum Theorem 6 speaks
    of), by breadth-first search over message orders; ``-1`` where more than
    ``max_objects`` objects are on the two lists (the search is exponential).

    A message is about an object on either list and carries its value at the end of
    the batch (``y_final[o]``, ``+inf`` for a deleted object), at most one per
    object — the messages any Paint-Batch may send (Lemma 8). ``before`` and
    ``after`` are (ids, ys) top-k lists as from :func:`true_top_k`.
    """
    if not 1 <= max_objects <= 30:
        raise ValueError(f"max_objects = {max_objects}: allowed 1..30 (states are bit sets)")
    subs = np.asarray(subs, np.int64)
    return _fewest_messages(before[0], before[1], after[0], after[1], y_final, subs, max_objects)


@numba.njit(cache=True)
def _fewest_messages(b_ids, b_ys, a_ids, a_ys, y_final, subs, max_objects):
    k = b_ids.shape[1]
    out = np.full(len(subs), -1, np.int64)
    obj = np.empty(2 * k, np.int64)
    stale = np.empty(2 * k)  # value held before the batch (inf: not held)
    for t in range(len(subs)):
        s, u = subs[t], 0
        for c in range(k):
            if b_ids[s, c] >= 0:
                obj[u], stale[u] = b_ids[s, c], b_ys[s, c]
                u += 1
        held = u
        for c in range(k):
            o = a_ids[s, c]
            if o >= 0 and not _holds(b_ids[s], o):
                obj[u], stale[u] = o, np.inf
                u += 1
        if u > max_objects:
            continue
        start, target, need = (1 << held) - 1, 0, 0
        for j in range(u):
            for c in range(k):
                if a_ids[s, c] == obj[j]:
                    target |= 1 << j
                    if stale[j] != a_ys[s, c]:
                        need |= 1 << j  # new on the list, or a new value: needs a message
        final = np.empty(u)
        for j in range(u):
            final[j] = y_final[obj[j]]
        out[t] = _search(obj[:u], stale[:u], final, k, start, target, need)
    return out


@numba.njit(cache=True)
def _holds(ids, o):
    """Whether the list holds object o."""
    for c in range(len(ids)):  # noqa: SIM110 (numba compiles loops, not generators)
        if ids[c] == o:
            return True
    return False


@numba.njit(cache=True)
def _search(obj, stale, final, k, start, target, need):
    """Breadth-first search over states (held set, messaged set) of one list."""
    u = len(obj)
    frontier = [start]  # state = held | messaged << u
    seen = {start}
    depth = 0
    while len(frontier):
        nxt = []
        for state in frontier:
            held, sent = state & ((1 << u) - 1), state >> u
            if held == target and sent & need == need:
                return depth
            for j in range(u):
                if sent >> j & 1:
                    continue
                h = _receive_one(obj, stale, final, k, held, sent, j)
                if h < 0:
                    continue  # the message would change nothing
                new = h | (sent | 1 << j) << u
                if new not in seen:
                    seen.add(new)
                    nxt.append(new)
        frontier = nxt
        depth += 1
    return -1  # unreachable (an inconsistent before/after pair)


@numba.njit(cache=True)
def _receive_one(obj, stale, final, k, held, sent, j):
    """The held set after a message about object j, or -1 if it changes nothing."""
    if held >> j & 1:
        return held & ~(1 << j) if final[j] == np.inf else held
    if final[j] == np.inf:
        return -1
    size, worst, wy = 0, -1, 0.0
    for i in range(len(obj)):
        if held >> i & 1:
            size += 1
            y = final[i] if sent >> i & 1 else stale[i]
            if worst < 0 or _after(y, obj[i], wy, obj[worst]):
                worst, wy = i, y
    if size < k:
        return held | 1 << j
    if not _after(wy, obj[worst], final[j], obj[j]):
        return -1
    return (held & ~(1 << worst)) | 1 << j  # j displaces the k-th


@numba.njit(cache=True)
def _after(ya, ia, yb, ib):
    """Whether (ya, ia) ranks after (yb, ib)."""
    return ya > yb or (ya == yb and ia > ib)


def lemma5_count(before, after, pre, batch) -> np.ndarray:
    """Per subscription, the messages the proof of Theorem 6 counts (Lemma 5): one
    for every entry of the final list that is new or has a new value, plus one for
    every object that leaves the list, is rank-lowered in the (coalesced) ``batch``
    and is still in the list once the batch's rank-raising updates alone are applied
    (``pre``). A lower bound of :func:`batch_minimum`, not always reachable.

    ``before``, ``after`` and ``pre`` are (ids, ys) top-k lists as from
    :func:`true_top_k`; ``batch`` holds one update per object.
    """
    lowered = np.zeros(max(int(batch.obj.max(initial=-1)) + 1, 1), np.bool_)
    lowered[batch.obj[batch.y_new > batch.y_old]] = True
    return _lemma5_count(before[0], before[1], after[0], after[1], pre[0], pre[1], lowered)


@numba.njit(cache=True)
def _lemma5_count(b_ids, b_ys, a_ids, a_ys, p_ids, p_ys, lowered):
    m, k = b_ids.shape
    out = np.zeros(m, np.int64)
    for s in range(m):
        for c in range(k):
            o = a_ids[s, c]
            if o >= 0 and not _holds_value(b_ids[s], b_ys[s], o, a_ys[s, c]):
                out[s] += 1  # arrives, or changes its value
            o = b_ids[s, c]
            if o < 0 or _holds(a_ids[s], o) or o >= len(lowered):
                continue
            if lowered[o] and _holds(p_ids[s], o):
                out[s] += 1  # leaves, and only a message about itself can remove it
    return out


def returners(before, after, pre) -> np.ndarray:
    """Per subscription, the objects that stay in its list with their value over the
    batch but are not in its ``pre`` list (the rank-raising updates alone push them
    out, the rank-lowering ones bring them back). Paint-Batch sends each of them
    again, beyond :func:`lemma5_count`."""
    return _returners(before[0], before[1], after[0], after[1], pre[0])


@numba.njit(cache=True)
def _returners(b_ids, b_ys, a_ids, a_ys, p_ids):
    m, k = b_ids.shape
    out = np.zeros(m, np.int64)
    for s in range(m):
        for c in range(k):
            o = a_ids[s, c]
            if o >= 0 and _holds_value(b_ids[s], b_ys[s], o, a_ys[s, c]):
                out[s] += not _holds(p_ids[s], o)
    return out


@numba.njit(cache=True)
def _holds_value(ids, ys, o, y):
    """Whether the list holds object o with value y."""
    for c in range(len(ids)):  # noqa: SIM110 (numba compiles loops, not generators)
        if ids[c] == o and ys[c] == y:
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
