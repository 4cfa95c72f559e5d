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
from cnsim.algorithms.messages import Messages
from cnsim.server.object_index import EAST, WEST, ObjectIndex, _min_y
from cnsim.subscriptions.index import SubscriptionIndex
from cnsim.subscriptions.lists import TopKLists
from cnsim.subscriptions.workload import Updates


class Unicast:
    """The Unicast baseline over its own object index and copy of every list."""

    name = "unicast"
    exact = True
    eps = None

    def __init__(
        self,
        objects: ObjectIndex,
        subscriptions: SubscriptionIndex,
        k: int,
        lists: TopKLists | None = None,
    ):
        self.objects = objects
        self.counter = objects.counter
        self.subscriptions = subscriptions
        self.k = k
        if lists is None:
            lists = TopKLists.initial(objects.x, objects.y, subscriptions.l, subscriptions.r, k)
        self.lists = lists  # the server's own copy of every subscriber's list

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
        o = self.objects
        t = o._tree
        target, obj, y, evict, calls = _affected(
            self.lists.ids, self.lists.ys, candidates, self.subscriptions.l,
            self.subscriptions.r, i, y_old, y_new,
            t.start, t.end, t.leaf, t.box, o._px, o._py, o._pid,
        )  # fmt: skip
        self.counter.min_y += int(calls)
        self.lists.apply(target, obj, y, evict)  # the server's copy stays in step
        return target, obj, o.x[obj], y, evict


def _concat(parts: list[tuple]) -> Messages:
    if not parts:
        return Messages.empty()
    target, obj, x, y, evict = (np.concatenate(p) for p in zip(*parts, strict=True))
    rects = np.zeros((len(obj), 4))
    return Messages(rects, obj, x, y, target=target, evict=evict)


@numba.njit(cache=True)
def _affected(ids, ys, candidates, l, r, i, y_old, y_new, start, end, leaf, box, px, py, pid):
    """Messages for the candidate subscriptions, and the number of min_y calls."""
    n = len(candidates)
    target = np.empty(n, np.int64)
    obj = np.empty(n, np.int64)
    y = np.empty(n)
    evict = np.full(n, -1, np.int64)
    count, calls = 0, 0
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
            target[count], obj[count], y[count] = j, i, y_new
        else:  # rank-lowering: only lists holding i change
            if pos < 0:
                continue
            target[count], obj[count], y[count] = j, i, y_new
            if ids[j, k - 1] >= 0:  # a full list: does i keep its place?
                calls += 1
                p = _min_y(
                    start, end, leaf, box, px, py, pid, l[j], r[j], ys[j, k - 1], ids[j, k - 1]
                )
                h = pid[p] if p >= 0 else -1
                if h >= 0 and h != i and (py[p] < y_new or (py[p] == y_new and h < i)):
                    obj[count], y[count], evict[count] = h, py[p], i
        count += 1
    return target[:count], obj[:count], y[:count], evict[:count], calls
