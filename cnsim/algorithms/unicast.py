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

1.5-d ranges (appendix D) and d-dimensional boxes (§IV-C) run the same procedure with
their own index queries (:class:`Queries`, declared per kind in
:data:`cnsim.algorithms.kind_servers.SERVERS`); the paper describes no Unicast for them. The
candidates of an update of object i are the subscriptions whose box holds i (one box
report), and ``min_y`` over a subscription's box above its k-th is asked only where the
answer decides: a full list holding i that is lowered and may lose it (i is its k-th or
falls past it) — "one min_y per candidate" has no counterpart there.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass

import numba
import numpy as np

from cnsim.algorithms import regions
from cnsim.algorithms.base import Approach, ApproachSpec, ServerView
from cnsim.algorithms.messages import Messages, bounds, reach
from cnsim.server.object_index import EAST, WEST, ObjectIndex
from cnsim.subscriptions.index import SubscriptionIndex
from cnsim.subscriptions.lists import TopKLists
from cnsim.subscriptions.workload import Updates


def influence_rectangle(u: Unicast, i: int, x_i: float, z: float) -> np.ndarray:
    """Unicast's candidates of ``Upd(i)`` over 1-d ranges (§V): the subscriptions in
    (ℓ, x_i] × [x_i, r), (ℓ, r) = II(i) at the lower value z, which holds the other's."""
    L = u.objects.first_k(x_i, z, WEST, u.k, i)
    R = u.objects.first_k(x_i, z, EAST, u.k, i)
    lo, hi = regions.influence_interval(x_i, L, R, u.k)
    return u.subscriptions.report(np.array([[lo, x_i, x_i, hi]]))[1]


def holding(u: Unicast, i: int, x_i: float, z: float) -> np.ndarray:
    """Unicast's candidates of ``Upd(i)`` beyond 1-d: every subscription whose box holds
    object i (one box report)."""
    points = u.view.points(np.array([x_i]), np.array([i]))
    return u.subscriptions.report(reach(points, u.subscriptions.lower_open))[1]


@dataclass(frozen=True)
class Queries:
    """What Unicast asks a kind's object index (declared per kind in
    :data:`cnsim.algorithms.kind_servers.SERVERS`); the rest of its procedure is shared."""

    #: the candidate subscriptions of ``Upd(i)`` with i at ``(x_i, z)``, z the lower value
    candidates: Callable[[Unicast, int, float, float], np.ndarray]
    #: per closed box ``[lo[t], hi[t]]`` the object lowest above ``(y0[t], id0[t])``, -1 none
    min_y: Callable[..., np.ndarray]
    #: the paper's procedure (one min_y per candidate; messages in candidate order), or,
    #: for a kind the paper has no Unicast for, min_y only where the answer decides and
    #: the messages grouped: to the lists i enters, to those keeping i, to those asked
    paper: bool


class Unicast(Approach):
    """The paper's Unicast: one ``min_y`` for every candidate subscription of an update
    (1-d; 1.5-d ranges and boxes: only where the answer decides)."""

    family = "unicast"
    message = "targeted"  # one message per affected subscription, to its gateway
    # a partitioned run: each partition's server finds its own subscriptions' messages;
    # the candidates' queries (the influence interval's two first_k) are the same in
    # every partition, counted where the view says (ServerView.counts_shared)
    partition = "own"

    def __init__(self, objects: ObjectIndex, view: ServerView, lists: TopKLists | None = None):
        self.spec = ApproachSpec(self.family)
        self.objects = objects
        self.counter = objects.counter
        self.view = view  # the objects' attributes (:meth:`ServerView.points`)
        self.subscriptions: SubscriptionIndex = view.subscriptions
        self.k = view.k
        self.queries = view.server.unicast
        self.lo, self.hi = bounds(self.subscriptions)  # every subscription's box, for min_y
        if lists is None:
            ids = np.arange(len(objects.y))
            lists = TopKLists.initial(view.points(objects.x, ids), objects.y, self.lo,
                                      self.hi, self.k)  # fmt: skip
        self.lists = lists  # the server's own copy of every subscriber's list

    def object_index(self) -> ObjectIndex:
        return self.objects

    @property
    def subscriber_lists(self) -> TopKLists:
        """The server's copy is its subscribers' lists: it applies exactly the targeted
        deliveries it sends, in send order, so the runner shares it."""
        return self.lists

    @classmethod
    def create(cls, spec: ApproachSpec, view: ServerView) -> Unicast:
        """Unicast over its own object index and a copy of the initial lists."""
        lists = None if view.lists is None else view.lists.copy()
        return cls(view.object_index(), view, lists)

    def process(self, updates: Updates) -> Messages:
        """Apply ``updates`` in order; one message per affected subscription each."""
        parts = []
        for i, x_i, y_old, y_new in updates:
            self.view.apply(self.objects, i, x_i, y_new)
            parts.append(self._notify(i, x_i, y_old, y_new))
        return _concat(parts, 2 * self.subscriptions.dims)

    def _notify(self, i: int, x_i: float, y_old: float, y_new: float) -> tuple:
        # Fewer objects lie below the lower value, so its influence interval is the wider.
        with contextlib.nullcontext() if self.view.counts_shared else self.counter.uncounted():
            candidates = self.queries.candidates(self, i, x_i, min(y_old, y_new))
        lists = self.lists
        rows = lists.rows(candidates)
        where, case = _affected(lists.row_ids, lists.row_ys, rows, i, y_old, y_new)
        if not self.queries.paper:  # lists i enters, lists keeping it, lists asked
            order = np.argsort(np.where(case == DECIDES, 2, case > ENTERS), kind="stable")
            where, case = where[order], case[order]
        target = candidates[where]
        obj = np.full(len(target), i, np.int64)
        y = np.full(len(target), y_new)
        evict = np.full(len(target), -1, np.int64)
        # A full list that keeps i at a higher value: does an object outside it now rank
        # above i? The min_y over its range, above the list's current k-th, answers.
        h = np.full(len(candidates), -1, np.int64)
        asked = self._asked(len(candidates), where, case)
        h[asked] = self._min_y(candidates[asked])
        ask = np.flatnonzero(case >= KNOWN)
        h = h[where[ask]]
        y_h = self.objects.y[h]
        beats = (h >= 0) & (h != i) & ((y_h < y_new) | ((y_h == y_new) & (h < i)))
        obj[ask[beats]], y[ask[beats]], evict[ask[beats]] = h[beats], y_h[beats], i
        lists.apply(target, obj, y, evict)  # the server's copy stays in step
        x = self.objects.x[obj]
        return target, obj, x if x.ndim == 1 else x[:, 0], y, evict

    def _asked(self, n: int, where: np.ndarray, case: np.ndarray) -> np.ndarray:
        """The candidates (positions) whose ``min_y`` is asked. The paper's procedure
        processes every candidate: one min_y each; without it, a full list holding i
        that i may leave (i is its k-th, or falls past it)."""
        return np.arange(n) if self.queries.paper else where[case == DECIDES]

    def _min_y(self, t: np.ndarray) -> np.ndarray:
        """One ``min_y(σ_j, above S_j's k-th)`` per subscription of ``t`` (counted each)."""
        lists, k = self.lists, self.k
        rows = lists.rows(t)
        kth_y, kth_id = lists.row_ys[rows, k - 1], lists.row_ids[rows, k - 1]
        return self.queries.min_y(self.objects, self.lo[t], self.hi[t], kth_y, kth_id)


class UnicastLazy(Unicast):
    """Unicast asking ``min_y`` only where the outcome may depend on it: a full list that
    holds i and is lowered. Sends the same messages as :class:`Unicast`."""

    family = "unicast-lazy"

    def _asked(self, n: int, where: np.ndarray, case: np.ndarray) -> np.ndarray:
        return where[case >= KNOWN]


def _concat(parts: list[tuple], width: int) -> Messages:
    if not parts:
        e = np.empty(0, np.int64)
        return Messages(np.empty((0, width)), e, np.empty(0), np.empty(0), e, e.copy())
    target, obj, x, y, evict = (np.concatenate(p) for p in zip(*parts, strict=True))
    return Messages(np.zeros((len(obj), width)), obj, x, y, target=target, evict=evict)


#: ``_affected``'s cases of a list that changes: i ENTERS it; it holds i and KEEPS it
#: with nothing to ask (a list with room, or i raised); a full list holding a lowered i
#: keeps it below its k-th (KNOWN: no object outside can rank above i), or may lose it
#: (DECIDES: i is its k-th or falls past it, and the min_y answer decides)
ENTERS, KEEPS, KNOWN, DECIDES = 0, 1, 2, 3


@numba.njit(cache=True)
def _affected(ids, ys, candidates, i, y_old, y_new):
    """The positions (in ``candidates``, the candidates' list rows) of the subscriptions
    whose lists change, and the case of each."""
    n = len(candidates)
    where = np.empty(n, np.int64)
    case = np.empty(n, np.int8)
    count = 0
    k = ids.shape[1]
    for c in range(n):
        j = candidates[c]
        pos = -1
        for s in range(k):
            if ids[j, s] == i:
                pos = s
        kth_y, kth_id = ys[j, k - 1], ids[j, k - 1]
        below_kth = y_new < kth_y or (y_new == kth_y and i < kth_id)
        if y_new < y_old:  # rank-raising: i enters or moves up
            if pos < 0 and not below_kth:
                continue
            case[count] = ENTERS if pos < 0 else KEEPS
        else:  # rank-lowering: only lists holding i change
            if pos < 0:
                continue
            case[count] = KEEPS
            if kth_id >= 0:  # a full list: does i keep its place?
                case[count] = KNOWN if kth_id != i and below_kth else DECIDES
        where[count] = c
        count += 1
    return where[:count], case[:count]
