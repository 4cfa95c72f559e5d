"""Unicast, the baseline of seed 003 §V: the server tracks every object, every
subscription and its list, finds the affected subscriptions itself and sends each
one message to its gateway broker. Two procedures, identical in what they send:

``unicast`` — the paper's procedure (seed 003 §V, "Approaches compared"; the papers
are listed in ``docs/PAPERS.md``):

    "Given Upd(x_i, y_old → y_new), the server first computes II_old(i) ∪ II_new(i) =
    (ℓ, r), and finds all subscriptions in (ℓ, x_i] × [x_i, r) ⊆ S. Next, the server
    processes each such subscription S_j in turn. For a rank-lowering update, the
    exposed object has y-value between y_old and y_new, and can be found by
    min_y(σ_j, y_old)."

and of the Yahoo! results (lines 1519–1522): "the number of min_y calls remains huge for
Unicast, because it still checks all subscriptions in (ℓ, x_i] × [x_i, r) ⊆ S even
though the majority of events affect no subscriptions". The candidates are every
subscription in that rectangle — a superset of the affected ones when k > 1 (the
influence region is a staircase inside it), equal to them when k = 1 — and each
candidate costs one ``min_y``, on *every* update, rank-raising or rank-lowering and
whether or not its list changes. The tables confirm this count: at k = 1 Unicast's
``min_y`` per event (Table III, line 1412: 444.141) equals the messages received per
event (Table I, line 1356: 444.141) — at k = 1 the rectangle is exactly the affected
set, one message each — while a count over rank-lowering updates only, or over the
lists that lose i, would be a small fraction of it (in cnsim's workload rank-lowering
updates hold under 1% of the candidates at k = 1). So ``unicast`` calls, for every candidate,
``min_y(σ_j, above S_j's k-th)`` — the object that enters S_j's list if one leaves,
which is the paper's ``min_y(σ_j, y_old)`` when i is S_j's k-th — in one vectorised
call over all candidates, and uses the answer where S_j's list loses i.

``unicast-lazy`` — the cheaper procedure cnsim used before: it asks ``min_y`` only for
a full list that holds i and is lowered (the only case whose outcome depends on it;
whether i keeps its place is decided by the answer). Every answer it asks for is the
same query ``unicast`` makes for that subscription, so both send identical messages;
only ``calls_min_y`` and server time differ.

Both compute ``(ℓ, r)`` as the influence interval at the lower of the two values,
which holds the other (two ``first_k`` calls), and check each candidate against the
server's copy of its list. A unicast message is ``(j, x, y, x_out)``: the
subscription, the object's values and the object it replaces (if any), four 4-byte
values (``messages.unicast_bytes``).
"""

from __future__ import annotations

import numba
import numpy as np

from cnsim.algorithms import regions
from cnsim.algorithms.base import Approach, ApproachSpec, ServerView
from cnsim.algorithms.messages import Messages
from cnsim.server.object_index import EAST, WEST, ObjectIndex
from cnsim.subscriptions.index import SubscriptionIndex
from cnsim.subscriptions.lists import TopKLists
from cnsim.subscriptions.workload import Updates


class Unicast(Approach):
    """The paper's Unicast: one ``min_y`` for every candidate subscription of an update."""

    family = "unicast"
    message = "targeted"  # one message per affected subscription, to its gateway

    def __init__(
        self,
        objects: ObjectIndex,
        subscriptions: SubscriptionIndex,
        k: int,
        lists: TopKLists | None = None,
    ):
        self.spec = ApproachSpec(self.family)
        self.objects = objects
        self.counter = objects.counter
        self.subscriptions = subscriptions
        self.k = k
        if lists is None:
            lists = TopKLists.initial(objects.x, objects.y, subscriptions.l, subscriptions.r, k)
        self.lists = lists  # the server's own copy of every subscriber's list

    @property
    def subscriber_lists(self) -> TopKLists:
        """The server's copy is its subscribers' lists: it applies exactly the targeted
        deliveries it sends, in send order, so the runner shares it."""
        return self.lists

    @classmethod
    def create(cls, spec: ApproachSpec, view: ServerView) -> Unicast:
        """Unicast over its own object index and a copy of the initial lists."""
        lists = None if view.lists is None else view.lists.copy()
        return cls(view.object_index(), view.subscriptions, view.k, lists)

    def process(self, updates: Updates) -> Messages:
        """Apply ``updates`` in order; one message per affected subscription each."""
        parts = []
        for i, x_i, y_old, y_new in updates:
            self.objects.apply(i, x_i, y_new)
            parts.append(self._notify(i, x_i, y_old, y_new))
        return _concat(parts)

    def _notify(self, i: int, x_i: float, y_old: float, y_new: float) -> tuple:
        # Fewer objects lie below the lower value, so its influence interval is the wider.
        z = min(y_old, y_new)
        L = self.objects.first_k(x_i, z, WEST, self.k, i)
        R = self.objects.first_k(x_i, z, EAST, self.k, i)
        lo, hi = regions.influence_interval(x_i, L, R, self.k)
        _, candidates = self.subscriptions.report(np.array([[lo, x_i, x_i, hi]]))
        lists = self.lists
        rows = lists.rows(candidates)
        where, ask = _affected(lists.row_ids, lists.row_ys, rows, i, y_old, y_new)
        target = candidates[where]
        obj = np.full(len(target), i, np.int64)
        y = np.full(len(target), y_new)
        evict = np.full(len(target), -1, np.int64)
        # A full list that keeps i at a higher value: does an object outside it now rank
        # above i? The min_y over its range, above the list's current k-th, answers.
        ask = np.flatnonzero(ask)
        h = self._replacements(candidates, where[ask])
        y_h = self.objects.y[h]
        beats = (h >= 0) & (h != i) & ((y_h < y_new) | ((y_h == y_new) & (h < i)))
        obj[ask[beats]], y[ask[beats]], evict[ask[beats]] = h[beats], y_h[beats], i
        lists.apply(target, obj, y, evict)  # the server's copy stays in step
        return target, obj, self.objects.x[obj], y, evict

    def _replacements(self, candidates: np.ndarray, asked: np.ndarray) -> np.ndarray:
        """The best object above the k-th of each list ``candidates[asked]`` (-1: none).
        The paper's procedure processes every candidate: one min_y each."""
        return self._min_y(candidates)[asked]

    def _min_y(self, t: np.ndarray) -> np.ndarray:
        """One ``min_y(σ_j, above S_j's k-th)`` per subscription of ``t`` (counted each)."""
        subs, lists, k = self.subscriptions, self.lists, self.k
        rows = lists.rows(t)
        return self.objects.min_y_many(
            subs.l[t], subs.r[t], lists.row_ys[rows, k - 1], lists.row_ids[rows, k - 1]
        )


class UnicastLazy(Unicast):
    """Unicast asking ``min_y`` only where the outcome depends on it: a full list that
    holds i and is lowered. Sends the same messages as :class:`Unicast`."""

    family = "unicast-lazy"

    def _replacements(self, candidates: np.ndarray, asked: np.ndarray) -> np.ndarray:
        return self._min_y(candidates[asked])


def _concat(parts: list[tuple]) -> Messages:
    if not parts:
        return Messages.empty()
    target, obj, x, y, evict = (np.concatenate(p) for p in zip(*parts, strict=True))
    rects = np.zeros((len(obj), 4))
    return Messages(rects, obj, x, y, target=target, evict=evict)


@numba.njit(cache=True)
def _affected(ids, ys, candidates, i, y_old, y_new):
    """The positions (in ``candidates``, the candidates' list rows) of the subscriptions
    whose lists change, and for each whether it is a full list keeping i at a higher
    value (whose replacement the answer of a min_y decides)."""
    n = len(candidates)
    where = np.empty(n, np.int64)
    ask = np.zeros(n, np.bool_)
    count = 0
    k = ids.shape[1]
    for c in range(n):
        j = candidates[c]
        pos = -1
        for s in range(k):
            if ids[j, s] == i:
                pos = s
        if y_new < y_old:  # rank-raising: i enters or moves up
            kth_y, kth_id = ys[j, k - 1], ids[j, k - 1]
            if pos < 0 and not (y_new < kth_y or (y_new == kth_y and i < kth_id)):
                continue
        else:  # rank-lowering: only lists holding i change
            if pos < 0:
                continue
            if ids[j, k - 1] >= 0:  # a full list: does i keep its place?
                ask[count] = True
        where[count] = c
        count += 1
    return where[:count], ask[:count]


def lazy_messages(lists: TopKLists, subs: np.ndarray, k: int, i: int, y_old: float,
                  y_new: float, successor) -> tuple[np.ndarray, ...]:  # fmt: skip
    """``unicast-lazy``'s messages for ``Upd(i, y_old → y_new)`` given the candidate
    subscriptions ``subs`` (those whose range holds i), applied to the server's copy
    ``lists`` as sent: ``(target, obj, y, evict)``.  ``successor(j, kth_y, kth_id)`` is
    the ``min_y`` over subscription j's range above its k-th and that object's y (the
    object entering j's list if i leaves it; -1 if none), asked only for a full list
    that holds i and is lowered.  Shared by the 1.5-d and the d-dimensional box subscriptions, whose
    candidates and ``min_y`` differ (``range15d.approaches``, ``boxes.approaches``)."""
    rows = lists.rows(subs)
    ids, ys = lists.row_ids[rows].astype(np.int64), lists.row_ys[rows]
    full = ids[:, k - 1] >= 0
    kth_y, kth_id = ys[:, k - 1], ids[:, k - 1]
    held = (ids == i).any(axis=1)
    new_below_kth = (y_new < kth_y) | ((y_new == kth_y) & (i < kth_id))
    target, obj, yv, evict = [], [], [], []
    # not held: i enters when it beats the k-th (or the list has room)
    enter = ~held & (~full | new_below_kth) & np.isfinite(y_new)
    # held: a list with room keeps i (or drops it at inf) with nothing to add; a raised i
    # keeps its place; a lowered i that stays below the k-th (not itself the k-th) too
    lowered = y_new > y_old
    stay = held & (~full | (y_new < y_old) | (lowered & (kth_id != i) & new_below_kth))
    for mask, evicts in ((enter, np.where(full, kth_id, -1)), (stay, np.full(len(subs), -1))):
        if mask.any():
            target.append(subs[mask])
            obj.append(np.full(mask.sum(), i))
            yv.append(np.full(mask.sum(), y_new))
            evict.append(evicts[mask])
    for j in np.flatnonzero(held & full & lowered & ~stay).tolist():
        # a full list that may lose i: one min_y over its range for its successor
        sj = int(subs[j])
        h, h_y = successor(sj, float(kth_y[j]), int(kth_id[j]))
        if h < 0 or h == i:  # nothing beats i's new value: i keeps the k-th place
            h, h_y, h_evict = i, y_new, -1
        else:
            h_evict = i
        target.append(np.array([sj]))
        obj.append(np.array([h]))
        yv.append(np.array([h_y]))
        evict.append(np.array([h_evict]))
    if not target:
        e = np.empty(0, np.int64)
        return e, e, np.empty(0), e
    out = (
        np.concatenate(target).astype(np.int64),
        np.concatenate(obj).astype(np.int64),
        np.concatenate(yv).astype(np.float64),
        np.concatenate(evict).astype(np.int64),
    )
    lists.apply(*out)
    return out
