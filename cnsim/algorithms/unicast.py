"""Unicast, the baseline of seed 003 §V: the server tracks every object, every
subscription and its list, finds the affected subscriptions itself and sends each
one message to its gateway broker.

For ``Upd(x_i, y_old -> y_new)`` it computes ``II_old(i) ∪ II_new(i) = (ℓ, r)`` — the
influence interval at the lower of the two values, which holds the other (two
``first_k`` calls) — takes the subscriptions in ``(ℓ, x_i] × [x_i, r)`` of S as
candidates, and checks each against its copy of that subscription's list. A
subscription that loses i gets the object replacing it, found by one ``min_y``
call over its range above its current k-th (the paper's ``min_y(σ_j, y_old)`` when
i is the k-th).

A unicast message is ``(j, x, y, x_out)``: the subscription, the object's values
and the object it replaces (if any), four 4-byte values (``messages.unicast_bytes``).
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
    """The Unicast baseline over its own object index and copy of every list."""

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
        subs, lists = self.subscriptions, self.lists
        target, ask = _affected(lists.ids, lists.ys, candidates, i, y_old, y_new)
        obj = np.full(len(target), i, np.int64)
        y = np.full(len(target), y_new)
        evict = np.full(len(target), -1, np.int64)
        # A full list that keeps i at a higher value: does an object outside it now rank
        # above i? One min_y over the range, above the list's current k-th.
        ask = np.flatnonzero(ask)
        t = target[ask]
        k = self.k
        h = self.objects.min_y_many(subs.l[t], subs.r[t], lists.ys[t, k - 1], lists.ids[t, k - 1])
        y_h = self.objects.y[h]
        beats = (h >= 0) & (h != i) & ((y_h < y_new) | ((y_h == y_new) & (h < i)))
        obj[ask[beats]], y[ask[beats]], evict[ask[beats]] = h[beats], y_h[beats], i
        lists.apply(target, obj, y, evict)  # the server's copy stays in step
        return target, obj, self.objects.x[obj], y, evict


def _concat(parts: list[tuple]) -> Messages:
    if not parts:
        return Messages.empty()
    target, obj, x, y, evict = (np.concatenate(p) for p in zip(*parts, strict=True))
    rects = np.zeros((len(obj), 4))
    return Messages(rects, obj, x, y, target=target, evict=evict)


@numba.njit(cache=True)
def _affected(ids, ys, candidates, i, y_old, y_new):
    """The candidate subscriptions whose lists change, and for each whether it is a
    full list keeping i at a higher value (which needs a min_y for its replacement)."""
    n = len(candidates)
    target = np.empty(n, np.int64)
    ask = np.zeros(n, np.bool_)
    count = 0
    k = ids.shape[1]
    for j in candidates:
        pos = -1
        for c in range(k):
            if ids[j, c] == i:
                pos = c
        if y_new < y_old:  # rank-raising: i enters or moves up
            kth_y, kth_id = ys[j, k - 1], ids[j, k - 1]
            if pos < 0 and not (y_new < kth_y or (y_new == kth_y and i < kth_id)):
                continue
        else:  # rank-lowering: only lists holding i change
            if pos < 0:
                continue
            if ids[j, k - 1] >= 0:  # a full list: does i keep its place?
                ask[count] = True
        target[count] = j
        count += 1
    return target[:count], ask[:count]
