"""The fewest messages a batch needs, per subscription (seed 003 §IV-A, Theorem 6).

For one subscription and one batch, ``before`` is its top-k list before the batch,
``after`` its list at the end, and ``pre`` its list once only the batch's
rank-raising updates are applied (the state "E↓ applied" of Paint-Batch). All
three are (ids, ys) arrays, m × k, as from :func:`cnsim.simulations.oracle.true_top_k`.

Messages are those Paint-Batch may send: about an object on either list, carrying
its value at the end of the batch (``+inf`` for a deleted object), at most one per
object (Lemma 8), applied with the subscriber rule. Over the objects of ``before``
that are not in ``pre`` (the ones the rank-raising updates push out), a
*returner* stays on the list with its value, a *stale departer* leaves it.

* :func:`lemma5_count` counts the messages the proof of Theorem 6 calls necessary:
  one per entry of ``after`` that is new or has a new value, plus one per object
  of ``pre`` that leaves (it is rank-lowered).
* Paint-Batch delivers exactly :func:`lemma5_count` plus one message per returner
  (:func:`returners`): a rank-raising object displaces the returner, which comes
  back as an exposed object.
* :func:`fewest_messages` is the minimum: a subscription can keep returners
  instead, those ranked above some point of its list, but every stale departer
  ranked above that point then needs a message of its own (it can no longer be
  displaced for free). Found by analysis, checked against the brute-force
  :func:`search_fewest_messages` (tests and ``cnsim verify``).
"""

from __future__ import annotations

import numba
import numpy as np


def lemma5_count(before, after, pre) -> np.ndarray:
    """Per subscription, one message per entry of ``after`` that is new or has a new
    value, plus one per object of ``before`` and ``pre`` that leaves the list (only a
    message about itself can remove it). A lower bound of :func:`fewest_messages`."""
    return _counts(before, after, pre)[0]


def returners(before, after, pre) -> np.ndarray:
    """Per subscription, the objects that stay on the list with their value but are
    not in ``pre``."""
    return _counts(before, after, pre)[1]


def fewest_messages(before, after, pre) -> np.ndarray:
    """Per subscription, the fewest messages that take its list from ``before`` to
    ``after``: :func:`lemma5_count` plus :func:`returners`, less the best saving of
    keeping the returners ranked above some point, which costs a message for every
    stale departer ranked above it."""
    lemma5, back, saving = _counts(before, after, pre)
    return lemma5 + back - saving


def _counts(before, after, pre):
    return _count_kernel(before[0], before[1], after[0], after[1], pre[0])


@numba.njit(cache=True)
def _count_kernel(b_ids, b_ys, a_ids, a_ys, p_ids):
    m, k = b_ids.shape
    lemma5 = np.zeros(m, np.int64)
    back = np.zeros(m, np.int64)
    saving = np.zeros(m, np.int64)
    for s in range(m):
        for c in range(k):
            o = a_ids[s, c]
            if o >= 0 and not _holds_value(b_ids[s], b_ys[s], o, a_ys[s, c]):
                lemma5[s] += 1  # arrives, or changes its value
        gain = 0
        for c in range(k):  # best first: the gain of keeping everything from here up
            o = b_ids[s, c]
            if o < 0:
                break
            leaves = not _holds(a_ids[s], o)
            if _holds(p_ids[s], o):
                lemma5[s] += leaves  # a rank-lowered object of pre that leaves
            elif leaves:
                gain -= 1  # a stale departer: kept, it needs a message
            elif _holds_value(a_ids[s], a_ys[s], o, b_ys[s, c]):
                back[s] += 1
                gain += 1  # a returner: kept, it needs none
            saving[s] = max(saving[s], gain)
    return lemma5, back, saving


@numba.njit(cache=True)
def _holds(ids, o):
    """Whether the list holds object o."""
    for c in range(len(ids)):  # noqa: SIM110 (numba compiles loops, not generators)
        if ids[c] == o:
            return True
    return False


@numba.njit(cache=True)
def _holds_value(ids, ys, o, y):
    """Whether the list holds object o with value y."""
    for c in range(len(ids)):  # noqa: SIM110 (numba compiles loops, not generators)
        if ids[c] == o and ys[c] == y:
            return True
    return False


def search_fewest_messages(
    before, after, y_final: np.ndarray, subs, max_objects: int = 12
) -> np.ndarray:
    """Per subscription ``subs[t]``, the fewest messages that take its list from
    ``before`` to ``after``, by breadth-first search over message orders (brute
    force); ``-1`` where more than ``max_objects`` objects are on the two lists (the
    search is exponential). ``y_final[o]`` is object o's value at the end."""
    if not 1 <= max_objects <= 30:
        raise ValueError(f"max_objects = {max_objects}: allowed 1..30 (states are bit sets)")
    subs = np.asarray(subs, np.int64)
    return _search_all(before[0], before[1], after[0], after[1], y_final, subs, max_objects)


@numba.njit(cache=True)
def _search_all(b_ids, b_ys, a_ids, a_ys, y_final, subs, max_objects):
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
def _search(obj, stale, final, k, start, target, need):
    """Breadth-first search over the states (held set, messaged set) of one list."""
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
                h = _receive(obj, stale, final, k, held, sent, j)
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
def _receive(obj, stale, final, k, held, sent, j):
    """The subscriber rule on held sets: the set after a message about object j,
    or -1 if it changes nothing."""
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
