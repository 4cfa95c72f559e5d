"""Ranked delivery over the content-based overlay: every published event reaches exactly
the k best-scoring subscriptions of the whole network that match it, for scored boxes
(d = 1..3) and for Boolean expressions, by per-neighbour score bounds along the reverse
paths.  The
Meghdoot counterpart, whose notation this module keeps, is :mod:`cnsim.brokers.ranked`.

Notation
--------
* The overlay is seed 001's acyclic broker tree (:mod:`cnsim.brokers.spanning`): link
  ``j`` goes ``u -> v`` (``src[j] -> nbr[j]``); *v's side* of ``j`` is the component
  holding ``v`` once the edge ``{u, v}`` is removed.
* A subscription ``i`` is held at its *home* broker ``h_i`` (its subscriber's broker, as
  :class:`~cnsim.brokers.content_based.ContentBasedCN` places them).  Two kinds:

  - **boxes**: ``[lo_i, hi_i]`` in d dimensions with a score ``s_i`` independent of the
    event; it matches the point ``x`` when ``lo_i <= x <= hi_i``; ``score(i, x) = s_i``
    (seed 000's exact matching).
  - **BE expressions** (seed 002 §III): a conjunction of weighted predicates; it
    matches an event expression when every predicate holds; ``score(i, E)`` is the
    paper's weighted sum ``sum_p w_p * w_E(attr_p)`` (weights are >= 0).

* Rank order: score descending, ties by the smaller subscription id; ``top_k(x)`` is
  the first k matching subscriptions over all brokers.
* Expressions' bounds have one column per attribute, ``0 .. attributes - 1`` (at most
  :data:`MAX_CELLS`), fixed when the network is built: a dense per-link table, meant
  for the notebook and test scales of the BE*-tree here, not for its 400-dimension
  benchmark workloads.
* Each broker answers *local* top-k queries from a structure of part 1 built over the
  subscriptions it holds in id order (local ids order as global ones, so local ties
  break as global ones): boxes through
  :class:`~cnsim.subscriptions.ranked.multidim.ExactMatcher` over any entry of
  :data:`cnsim.subscriptions.ranked.REGISTRY` (default ``scored_rtree``, seed 000
  §2.2.3), rebuilt at the broker's next query after a join or leave there (the
  matcher is static); expressions through any entry of
  :data:`cnsim.subscriptions.ranked.boolean.REGISTRY` (default ``betree_star``, the
  BE*-tree, fully dynamic).

Bounds
------
A *bound vector* has ``C`` columns.  ``L[b, c]`` (broker ``b``'s *local* bound) is the
maximum of ``value(i, c)`` over the live subscriptions ``i`` it holds (``-inf``: none);
``B[j, c]`` (the *per-neighbour* bound of link ``j = u -> v``, kept at ``u``) is the
maximum of ``L[w, c]`` over the brokers ``w`` on v's side.  An event ``x`` reads a bound
vector through ``bound(x) = sum_c coef_c(x) * max(V[c], 0)`` over its columns (boxes:
one column with coefficient 1 and ``-inf`` kept as is):

* **boxes** with ``regions = G`` (cells per dimension; the domain ``[0, 1]^d`` cut into
  ``G^d`` grid cells, coordinates clipped into it): ``value(i, c) = s_i`` if the box
  meets cell ``c``, else ``-inf``; the event reads the one column of its cell.
  ``G = 1`` is the plain bound, the maximum score over the whole subtree (the simplest
  exact choice); ``G > 1`` is the finer *per-region* bound (choice: a grid rather than
  per covering box, so the bounds do not depend on the covering structures; a box
  meeting the event's cell is all the bound needs to be exact).
* **expressions**: one column per attribute, ``value(i, a)`` = the weight of ``i``'s
  predicate on ``a`` (none: ``-inf``), coefficient ``w_E(a)`` for the event's
  attributes: the upper-bound score over a weight summary (seed 002 §III-C, the BE*-tree's
  pruning in §VI) lifted to a subtree.
  Exact: a matching subscription's attributes are among the event's, weights are >= 0,
  and the sums run in attribute order on both sides (IEEE rounding is monotone).

Joins and leaves change ``L[h]`` (a join raises it at once; a leave recomputes it from
the broker's live subscriptions) and the change travels along the *reverse paths*: the
broker on the far side of a changed link ``a -> b`` sends ``a`` the new ``B[a -> b]``,
and ``a`` recomputes its links away from ``b``; propagation stops at an unchanged bound.
Each changed link is one *bound message* over its tree link (``BOUND_HEADER_BYTES``
plus ``BOUND_BYTES`` per changed column, as :mod:`cnsim.brokers.ranked`'s 8-byte
update: column id and score), counted in ``bound_changes``, ``bound_msgs``,
``bound_ip_hops`` and ``bound_ip_bytes``; :meth:`RankedTree.setup_bound_traffic` is the
initial dissemination (every link's non-empty bound, once).

Routing tables
--------------
Content-based forwarding (seed 001) opens a link ``u -> v`` for an event only if some
live subscription on v's side matches it (covering is exact).  The simulator decides
this as :mod:`cnsim.brokers.batch_forwarding` does: one global index of the live
subscriptions (boxes: the covering index of an
:class:`~cnsim.brokers.batch_forwarding.EventRouter`; expressions: one BE*-tree) gives
the matches, and their homes give every link's answer.  Both modes use the tables
(choice: a ranked query, like the event itself, is never sent where the tables say no
match lives).

Two ways of answering an event entering at broker ``e``
-----------------------------------------------------
* **pruned** (best-first search, threshold pruning): ``e`` keeps a frontier, ordered by
  bound descending (ties: lower broker id), of (a) its own local set, bound ``L[e](x)``,
  if it holds a match, and (b) the links whose tables match ``x``, bound ``B[j](x)``.
  It repeatedly takes the best item and stops as soon as it holds ``k`` results and
  that item's bound is *below* the k-th score ``s_k`` (an equal bound could hide a tie
  with a smaller id).  Taking its own set costs nothing; taking link ``j = u -> v``
  *visits* ``v``: a query ``(x, k, e, s_k, id_k)`` straight over IP from ``e`` (``e``
  learnt ``v``'s address from ``u``'s answer), answered straight back with ``v``'s local
  top-k entries that beat ``(s_k, id_k)`` and ``v``'s own links away from ``u`` whose
  tables match and whose bounds are not below ``s_k`` (neighbour id and bound each), which
  join the frontier.  A visited broker holding no match is a relay: its answer carries
  links only.  Exact: the first unvisited broker on the path to a missed winner sits
  behind a frontier link whose bound is at least the winner's score.
* **baseline** (flood along the routing tables): the event travels from ``e`` over every
  link whose tables match (``e``'s depth-first order, as the content-based overlay
  routes events); every broker reached answers its local top-k straight to ``e`` (an
  empty answer too, so ``e`` knows the flood is over: as in :mod:`cnsim.brokers.ranked`)
  and ``e`` merges.

Costs per event, both modes (the fields of :data:`cnsim.brokers.ranked.COST_FIELDS`):
``visited`` brokers (``e`` included when it holds a match or, in the baseline, always),
``messages`` (queries and answers; a baseline query per tree hop), ``overlay_hops``
(= messages: each is one overlay hop, straight over IP or along a tree link),
``ip_hops``, ``entries`` (subscriptions carried in answers), ``overlay_bytes`` and
``ip_bytes`` (size × hops).  Sizes (4-byte values, as seed 003's CN messages): the event
is ``4 d`` bytes for a point, ``4 + 12 p + 4 v`` for an expression of ``p`` predicates
with ``v`` operand values; a baseline query adds ``k`` and ``e`` (8 bytes), a pruned one
also ``(s_k, id_k)`` (8 more); an answer is a 4-byte entry count plus 8 per entry
(id, score), and in the pruned mode a 4-byte link count plus 8 per link reported.
The notification of the winners is the same in both modes and left out, as
:class:`~cnsim.brokers.ranked.RankedZones` leaves it out.

Choices where the issue is silent: the search's queries and answers travel straight
over IP between the entry broker and the visited broker (as the pruned queries of
:mod:`cnsim.brokers.ranked` do), not hop by hop along the tree; the search and the
flood both follow the routing tables; the entry broker's own set is an item of the
frontier like any other (taking it costs no message).

In a run (``[overlay] kind = "content-based"``, approach ``ranked``):
:class:`RankedTreeOverlay`, the run's ranges as 1-d boxes, ``[ranked] regions`` the
grid, notifications to the winners' brokers added, as
:class:`~cnsim.brokers.ranked.RankedOverlay` does over the zones.
"""

from __future__ import annotations

import heapq
import itertools

import numba
import numpy as np

from cnsim.brokers.ranked import (
    ANSWER_HEADER_BYTES,
    COST_FIELDS,
    ENTRY_BYTES,
    MODES,
    RankedDelivery,
    TopKSearch,
    check_k,
    check_mode,
    event_costs,
    notifications,
)
from cnsim.brokers.ranked_churn import JoinsAndLeaves, RankedChurn
from cnsim.brokers.spanning import Tree
from cnsim.errors import InputError

KINDS = ("boxes", "expressions")
DEFAULT_INDEX = {"boxes": "scored_rtree", "expressions": "betree_star"}
MAX_REGIONS = 64  # cells per dimension of the per-region bound
MAX_CELLS = 4096  # G^d columns at most
MAX_DIMS = 3
EXTRA_QUERY_BYTES = {"baseline": 8, "pruned": 16}  # k, e (+ s_k, id_k)
LINK_BYTES = 8  # a link reported in a pruned answer: neighbour id and bound
LINKS_HEADER_BYTES = 4  # number of links reported
BOUND_HEADER_BYTES = 4  # a bound message: the number of columns it updates
BOUND_BYTES = 8  # per updated column: column id and score

__all__ = ["KINDS", "MODES", "RankedTree", "check_regions"]


def check_regions(regions, d: int) -> int:
    """``regions`` as an int, or InputError naming it and what is allowed."""
    ok = isinstance(regions, int | np.integer) and not isinstance(regions, bool | np.bool_)
    if not ok or not 1 <= regions <= MAX_REGIONS or int(regions) ** d > MAX_CELLS:
        raise InputError(
            f"ranked content-based delivery: regions = {regions!r} is not allowed; regions "
            f"must be an integer in [1, {MAX_REGIONS}] with regions ** d <= {MAX_CELLS} "
            f"(d = {d})"
        )
    return int(regions)


# ----------------------------------------------------------------- tree kernels
@numba.njit(cache=True)
def _side_counts(ptr, nbr, e, cnt):
    """Rooted at ``e``: ``parent`` and ``side[v]``, the matches in ``v``'s subtree."""
    n = ptr.shape[0] - 1
    parent = np.full(n, -1, np.int64)
    order = np.empty(n, np.int64)
    seen = np.zeros(n, np.bool_)
    order[0], seen[e] = e, True
    head, tail = 0, 1
    while head < tail:
        u = order[head]
        head += 1
        for j in range(ptr[u], ptr[u + 1]):
            v = nbr[j]
            if not seen[v]:
                seen[v] = True
                parent[v] = u
                order[tail] = v
                tail += 1
    side = cnt.copy()
    for t in range(n - 1, 0, -1):
        side[parent[order[t]]] += side[order[t]]
    return parent, side


@numba.njit(cache=True)
def _flood(ptr, nbr, e, side):
    """Hops of the event routed from ``e`` over every link with a match on its far
    side, in depth-first order (as :func:`cnsim.brokers.batch_forwarding.route_event`)."""
    n = ptr.shape[0] - 1
    hop_from = np.empty(max(n - 1, 0), np.int64)
    hop_to = np.empty(max(n - 1, 0), np.int64)
    stack_b = np.empty(n, np.int64)
    stack_f = np.empty(n, np.int64)
    top, h = 1, 0
    stack_b[0], stack_f[0] = e, -1
    while top > 0:
        top -= 1
        b, frm = stack_b[top], stack_f[top]
        for j in range(ptr[b], ptr[b + 1]):
            v = nbr[j]
            if v != frm and side[v] > 0:
                hop_from[h], hop_to[h] = b, v
                h += 1
                stack_b[top], stack_f[top] = v, b
                top += 1
    return hop_from[:h], hop_to[:h]


def _subtree_bounds(tree: Tree, L: np.ndarray) -> np.ndarray:
    """``B[j]`` for every link from the local bounds ``L`` (two passes over the tree
    rooted at broker 0)."""
    n, C = L.shape
    B = np.full((tree.n_links, C), -np.inf)
    if n <= 1:
        return B
    parent, side = _side_counts(tree.ptr, tree.nbr, 0, np.zeros(n, np.int64))
    del side
    order = _bfs_order(tree.ptr, tree.nbr)
    sub = L.copy()  # max over each broker's subtree (rooted at 0)
    for v in order[::-1][:-1]:
        np.maximum(sub[parent[v]], sub[v], out=sub[parent[v]])
    up = np.full((n, C), -np.inf)  # max over everything outside v's subtree
    for u in order:
        kids = [j for j in tree.links(u) if tree.nbr[j] != parent[u]]
        base = np.maximum(L[u], up[u]) if u != 0 else L[u].copy()
        if not kids:
            continue
        subs = np.stack([sub[tree.nbr[j]] for j in kids])
        pre = np.maximum.accumulate(np.vstack([np.full((1, C), -np.inf), subs[:-1]]), axis=0)
        suf = np.maximum.accumulate(np.vstack([subs[1:], np.full((1, C), -np.inf)])[::-1], axis=0)[
            ::-1
        ]
        for t, j in enumerate(kids):
            v = tree.nbr[j]
            B[j] = sub[v]  # u -> v: v's subtree
            up[v] = np.maximum(base, np.maximum(pre[t], suf[t]))
            B[tree.rev[j]] = up[v]  # v -> u: everything but v's subtree
    return B


@numba.njit(cache=True)
def _bfs_order(ptr, nbr):
    n = ptr.shape[0] - 1
    order = np.empty(n, np.int64)
    seen = np.zeros(n, np.bool_)
    order[0], seen[0] = 0, True
    head, tail = 0, 1
    while head < tail:
        u = order[head]
        head += 1
        for j in range(ptr[u], ptr[u + 1]):
            if not seen[nbr[j]]:
                seen[nbr[j]] = True
                order[tail] = nbr[j]
                tail += 1
    return order


# ----------------------------------------------------------------- subscription kinds
class _Boxes:
    """Scored boxes: columns, per-broker ExactMatcher (rebuilt lazily), global match."""

    dynamic = False  # the per-broker structures are rebuilt when used, not updated

    def __init__(self, lows, highs, score, home, tree, index, regions, params):
        from cnsim.brokers.batch_forwarding import EventRouter
        from cnsim.subscriptions.ranked.multidim import ExactMatcher, _index_class

        lows = np.ascontiguousarray(lows, np.float64)
        highs = np.ascontiguousarray(highs, np.float64)
        if lows.ndim == 1:
            lows, highs = lows[:, None], highs[:, None]
        if lows.ndim != 2 or lows.shape != highs.shape:
            raise InputError(
                f"ranked content-based delivery: lows and highs must be (n, d) arrays of one "
                f"shape, got {lows.shape} and {highs.shape}"
            )
        self.d = lows.shape[1]
        if not 1 <= self.d <= MAX_DIMS:
            raise InputError(
                f"ranked content-based delivery: d = {self.d} is not allowed; d must be in "
                f"[1, {MAX_DIMS}]"
            )
        cls = _index_class(index)
        cls.check_params(params)
        self._matcher = lambda lo, hi, s: ExactMatcher(lo, hi, s, cls, **params)
        self.G = check_regions(regions, self.d)
        self.C = self.G**self.d
        self._check(lows, highs, score)
        n = len(score)
        cap = max(16, n)
        self.lows, self.highs = np.empty((cap, self.d)), np.empty((cap, self.d))
        self.score = np.empty(cap)
        self.lows[:n], self.highs[:n], self.score[:n] = lows, highs, score
        self.router = EventRouter(tree, self.d, np.zeros(cap, np.int64), domain=(0.0, 1.0))
        for i in range(n):
            self.router.subscribe(i, lows[i], highs[i])
        # cell coordinates of every column (for the boxes' cell ranges)
        self._coords = np.stack(np.unravel_index(np.arange(self.C), (self.G,) * self.d), 1)

    def _check(self, lows, highs, score):
        if len(score) != len(lows):
            raise InputError(
                f"ranked content-based delivery: {len(score)} scores for {len(lows)} boxes"
            )
        if np.isnan(lows).any() or np.isnan(highs).any() or not np.isfinite(score).all():
            raise InputError("ranked content-based delivery: NaN in a box or a non-finite score")
        bad = np.flatnonzero((lows > highs).any(axis=1))
        if bad.size:
            raise InputError(f"ranked content-based delivery: box {int(bad[0])} has lo > hi")

    def grow(self, cap):
        for name in ("lows", "highs", "score"):
            a = getattr(self, name)
            b = np.zeros((cap, *a.shape[1:]), a.dtype)
            b[: len(a)] = a
            setattr(self, name, b)

    def add(self, i, sub):
        lo, hi, s = sub
        lo = np.asarray(lo, np.float64).reshape(-1)
        hi = np.asarray(hi, np.float64).reshape(-1)
        if lo.shape != (self.d,) or hi.shape != (self.d,):
            raise InputError(f"ranked content-based delivery: a box needs {self.d} coordinates")
        self._check(lo[None], hi[None], np.array([float(s)]))
        if i >= len(self.score):
            self.grow(2 * len(self.score))
        self.lows[i], self.highs[i], self.score[i] = lo, hi, float(s)
        self.router.subscribe(i, lo, hi)

    def remove(self, i):
        self.router.unsubscribe(i)

    def _cell(self, x):
        return np.clip((np.asarray(x) * self.G).astype(np.int64), 0, self.G - 1)

    def values(self, ids):
        """``(n, C)``: each subscription's value per column."""
        out = np.full((len(ids), self.C), -np.inf)
        if self.C == 1:
            out[:, 0] = self.score[ids]
            return out
        lo = np.clip(np.floor(self.lows[ids] * self.G), 0, self.G - 1).astype(np.int64)
        hi = np.clip(np.floor(self.highs[ids] * self.G), 0, self.G - 1).astype(np.int64)
        meets = np.ones((len(ids), self.C), bool)
        for t in range(self.d):
            c = self._coords[:, t]
            meets &= (lo[:, t : t + 1] <= c) & (c <= hi[:, t : t + 1])
        out[meets] = np.broadcast_to(self.score[ids][:, None], out.shape)[meets]
        return out

    def event(self, x):
        p = np.asarray(x, np.float64).reshape(-1)
        if p.shape != (self.d,) or np.isnan(p).any():
            raise InputError(
                f"ranked content-based delivery: an event is a point of {self.d} coordinates "
                f"without NaN, got {x!r}"
            )
        return p

    def event_bytes(self, x):
        return 4 * self.d

    def bound_reader(self, x):
        col = int(np.ravel_multi_index(tuple(self._cell(x)), (self.G,) * self.d))
        return lambda V: V[..., col]

    def matches(self, x):
        # the router's public event routing: every live match, whatever broker it
        # is published at (the routes themselves are recomputed from the homes)
        return np.sort(self.router.publish(0, x)[0]).astype(np.int64)

    def build_local(self, ids):
        return self._matcher(self.lows[ids], self.highs[ids], self.score[ids])

    def local_top_k(self, ix, x, k):
        return ix.top_k(x, k)

    def scores(self, ids, x):
        return self.score[ids]

    def brute_top_k(self, alive, x, k):
        from cnsim.subscriptions.ranked.multidim import brute_exact_top_k

        n = len(alive)
        hit = brute_exact_top_k(self.lows[:n], self.highs[:n], self.score[:n], x, n)
        return hit[alive[hit]][:k]

    def nbytes(self):
        return self.lows.nbytes + self.highs.nbytes + self.score.nbytes


class _Expressions:
    """BE expressions: a store, a per-broker BE index (dynamic), one global BE*-tree."""

    dynamic = True  # the per-broker structures are built at once and updated in place

    def __init__(self, exprs, index, params, attributes=None):
        from cnsim.subscriptions.ranked.boolean import REGISTRY as BE
        from cnsim.subscriptions.ranked.boolean import BEStarTree

        if index not in BE:
            raise InputError(
                f"ranked content-based delivery: index = {index!r} is unknown for "
                f"expressions; one of {sorted(BE)}"
            )
        self._cls, self._params = BE[index], dict(params)
        self.glob = BEStarTree(exprs)  # the routing tables' stand-in (exact matches)
        used = int(exprs.attr.max(initial=-1)) + 1
        if attributes is None:
            attributes = max(used, 1)
        ok = isinstance(attributes, int | np.integer) and not isinstance(attributes, bool)
        if not ok or not max(used, 1) <= attributes <= MAX_CELLS:
            raise InputError(
                f"ranked content-based delivery: attributes = {attributes!r} is not allowed; "
                f"an integer in [{max(used, 1)}, {MAX_CELLS}] (the expressions use "
                f"attributes 0..{used - 1})"
            )
        self.C = int(attributes)

    def add(self, i, sub):
        from cnsim.subscriptions.ranked.boolean.expressions import as_expression

        e = as_expression(sub, "subscription")
        if int(e.attr.max(initial=-1)) >= self.C:
            raise InputError(
                f"ranked content-based delivery: attribute {int(e.attr.max())} of a joining "
                f"expression is beyond the network's attributes 0..{self.C - 1}"
            )
        got = self.glob.insert(e)
        assert got == i
        self.last = e

    def remove(self, i):
        self.glob.delete(i)

    def expr(self, ids):
        from cnsim.subscriptions.ranked.boolean import Expressions

        all_ = self.glob.subscriptions()
        return Expressions.concat([all_[int(i)] for i in ids])

    def values(self, ids):
        out = np.full((len(ids), self.C), -np.inf)
        e = self.glob.subscriptions()
        for t, i in enumerate(ids):
            a, b = int(e.indptr[i]), int(e.indptr[i + 1])
            out[t, e.attr[a:b]] = e.weight[a:b]
        return out

    def event(self, x):
        from cnsim.subscriptions.ranked.boolean.expressions import as_expression

        return as_expression(x, "event")

    def event_bytes(self, x):
        return 4 + 12 * len(x.attr) + 4 * len(x.values)

    def bound_reader(self, x):
        keep = x.attr < self.C
        attrs, w = x.attr[keep], x.weight[keep]  # attribute order

        def read(V):
            acc = np.zeros(V.shape[:-1])
            for a, c in zip(attrs.tolist(), w.tolist(), strict=True):
                v = V[..., a]
                acc = acc + c * np.where(np.isneginf(v), 0.0, v)
            return acc

        return read

    def matches(self, x):
        return self.glob.match(x).astype(np.int64)

    def build_local(self, ids):
        return self._cls(self.expr(ids), **self._params) if len(ids) else self._cls(**self._params)

    def local_top_k(self, ix, x, k):
        return ix.top_k(x, k)

    def scores(self, ids, x):
        from cnsim.subscriptions.ranked.boolean import brute_scores

        if not len(ids):
            return np.empty(0)
        return brute_scores(self.expr(ids), x)

    def brute_top_k(self, alive, x, k):
        from cnsim.subscriptions.ranked.boolean import brute_top_k

        return brute_top_k(self.glob.subscriptions(), x, k, alive)

    def nbytes(self):
        return self.glob.nbytes()


def _local_bounds(kind, ids: np.ndarray, home: np.ndarray, n: int, chunk: int = 1 << 15):
    """``L``: per broker the column-wise maximum of its subscriptions' values (in
    chunks, so a per-region bound never holds a value per subscription and cell)."""
    L = np.full((n, kind.C), -np.inf)
    for s in range(0, len(ids), chunk):
        vals = kind.values(ids[s : s + chunk])
        h = home[s : s + chunk]
        for c in range(kind.C):
            np.maximum.at(L[:, c], h, vals[:, c])
    return L


# ----------------------------------------------------------------- the network
class RankedTree:
    """Scored subscriptions held at their home brokers of the content-based tree, with
    the per-neighbour bounds, and the pruned and baseline ranked delivery of events (see
    the module docstring).  Build with :meth:`boxes` or :meth:`expressions`."""

    def __init__(self, tree: Tree, broker_hops, kind, home):
        self.tree = tree
        self.broker_hops = np.asarray(broker_hops)
        self.kind = kind
        home = np.ascontiguousarray(home, np.int64).reshape(-1)
        if len(home) and (home.min() < 0 or home.max() >= tree.n):
            raise InputError(
                f"ranked content-based delivery: home brokers must be in 0..{tree.n - 1}"
            )
        n = len(home)
        cap = max(16, n)
        self._home = np.zeros(cap, np.int64)
        self._home[:n] = home
        self._alive = np.zeros(cap, bool)
        self._alive[:n] = True
        self._size = n
        if isinstance(kind, _Boxes):
            kind.router.home = self._home
        self._dynamic = kind.dynamic
        self.bound_changes = 0
        self.bound_msgs = self.bound_ip_hops = self.bound_ip_bytes = 0
        nb = tree.n
        order = np.argsort(home, kind="stable")
        ptr = np.concatenate([[0], np.cumsum(np.bincount(home, minlength=nb))])
        self._gid = [order[ptr[b] : ptr[b + 1]].astype(np.int64) for b in range(nb)]
        self._ix: list = [None] * nb  # local structures, built at first use
        self._ix_gid: list = [None] * nb  # the ids a structure was built over (boxes)
        self._local = np.zeros(cap, np.int64)  # expressions: id in the broker's index
        self.L = _local_bounds(kind, np.arange(n), home, nb)
        self.B = _subtree_bounds(tree, self.L)
        if self._dynamic:  # dynamic structures: built now, updated in place
            for b in range(nb):
                self._ix[b] = kind.build_local(self._gid[b])
                self._ix_gid[b] = self._gid[b].copy()
                self._local[self._gid[b]] = np.arange(len(self._gid[b]))

    @classmethod
    def boxes(cls, tree, broker_hops, home, lows, highs, score, index=None, regions=1, **params):
        """Scored boxes (``(n, d)`` corners, d = 1..3) held at brokers ``home``."""
        index = DEFAULT_INDEX["boxes"] if index is None else index
        kind = _Boxes(lows, highs, score, home, tree, index, regions, params)
        return cls(tree, broker_hops, kind, home)

    @classmethod
    def expressions(cls, tree, broker_hops, home, exprs, index=None, attributes=None, **params):
        """BE expressions (texts or :class:`Expressions`) held at brokers ``home``; the
        bounds have one column per attribute ``0 .. attributes - 1`` (default: up to the
        largest attribute of ``exprs``; a joining expression beyond it is refused)."""
        from cnsim.subscriptions.ranked.boolean.base import as_expressions

        index = DEFAULT_INDEX["expressions"] if index is None else index
        kind = _Expressions(as_expressions(exprs), index, params, attributes)
        return cls(tree, broker_hops, kind, home)

    # ------------------------------------------------------------ state
    def __len__(self) -> int:
        """Number of live subscriptions."""
        return int(self._alive[: self._size].sum())

    def alive(self) -> np.ndarray:
        """Which of the ids given so far are live."""
        return self._alive[: self._size].copy()

    def held(self) -> np.ndarray:
        """Live subscriptions per broker."""
        live = self._alive[: self._size]
        return np.bincount(self._home[: self._size][live], minlength=self.tree.n)

    def _local_index(self, b: int):
        if self._ix[b] is None:
            self._ix[b] = self.kind.build_local(self._gid[b])
            self._ix_gid[b] = self._gid[b]
        return self._ix[b]

    def insert(self, sub, home: int) -> int:
        """A subscription joins at broker ``home`` (boxes: ``(lo, hi, score)``;
        expressions: a text or one expression); returns its id."""
        if isinstance(home, bool) or not 0 <= int(home) < self.tree.n:
            raise InputError(
                f"ranked content-based delivery: home broker {home!r} is not in "
                f"0..{self.tree.n - 1}"
            )
        i = self._size
        if i == len(self._home):
            cap = 2 * len(self._home)
            for name in ("_home", "_alive", "_local"):
                a = getattr(self, name)
                b = np.zeros(cap, a.dtype)
                b[: len(a)] = a
                setattr(self, name, b)
            if isinstance(self.kind, _Boxes):
                self.kind.router.home = self._home
        self.kind.add(i, sub)
        self._home[i], self._alive[i] = home, True
        self._size += 1
        self._gid[home] = np.append(self._gid[home], i)
        if self._dynamic:
            got = self._ix[home].insert(self.kind.last)
            assert got == len(self._ix_gid[home])  # local ids continue in join order
            self._ix_gid[home] = np.append(self._ix_gid[home], i)
            self._local[i] = got
        else:
            self._ix[home] = None
        v = self.kind.values(np.array([i]))[0]
        new = np.maximum(self.L[home], v)
        if not np.array_equal(new, self.L[home]):
            self._set_local(home, new)
        return i

    def delete(self, i: int) -> None:
        """Subscription ``i`` leaves; its broker's local bound is recomputed."""
        if isinstance(i, bool) or not (0 <= i < self._size) or not self._alive[i]:
            raise InputError(f"ranked content-based delivery: no live subscription with id {i!r}")
        h = int(self._home[i])
        self._alive[i] = False
        self.kind.remove(i)
        self._gid[h] = self._gid[h][self._gid[h] != i]
        if self._dynamic:
            self._ix[h].delete(int(self._local[i]))
        else:
            self._ix[h] = None
        vals = self.kind.values(self._gid[h])
        new = vals.max(axis=0) if len(vals) else np.full(self.kind.C, -np.inf)
        if not np.array_equal(new, self.L[h]):
            self._set_local(h, new)

    def _set_local(self, h: int, new: np.ndarray) -> None:
        """``L[h]`` changes: recompute the links pointing towards ``h`` along the reverse
        paths, one bound message per changed link."""
        t = self.tree
        self.L[h] = new
        self.bound_changes += 1
        todo = [(h, j) for j in t.links(h)]  # (broker that recomputes, its link a->b)
        while todo:
            b, j = todo.pop()
            a = int(t.nbr[j])  # b recomputes B[a -> b] from L[b] and b's other links
            back = int(t.rev[j])
            val = self.L[b].copy()
            for jj in t.links(b):
                if jj != j:
                    np.maximum(val, self.B[jj], out=val)
            changed = int((val != self.B[back]).sum())
            if not changed:
                continue
            self.B[back] = val
            h_ip = int(self.broker_hops[b, a])
            size = BOUND_HEADER_BYTES + BOUND_BYTES * changed
            self.bound_msgs += 1
            self.bound_ip_hops += h_ip
            self.bound_ip_bytes += size * h_ip
            todo.extend((a, jj) for jj in t.links(a) if jj != back)

    def setup_bound_traffic(self) -> dict[str, int]:
        """Traffic of the initial dissemination: every link's bound, once (its finite
        columns), over its tree link."""
        t = self.tree
        cols = np.isfinite(self.B).sum(axis=1)
        send = cols > 0
        ip = self.broker_hops[t.nbr, t.src].astype(np.int64)
        size = BOUND_HEADER_BYTES + BOUND_BYTES * cols
        return {
            "bound_msgs": int(send.sum()),
            "bound_ip_bytes": int((size * ip)[send].sum()),
        }

    def check_bounds(self) -> None:
        """Assert the kept bounds equal bounds recomputed from scratch (for tests)."""
        live = np.flatnonzero(self._alive[: self._size])
        L = _local_bounds(self.kind, live, self._home[live], self.tree.n)
        np.testing.assert_array_equal(L, self.L)
        np.testing.assert_array_equal(_subtree_bounds(self.tree, L), self.B)

    # ------------------------------------------------------------ queries
    def brute_top_k(self, x, k: int) -> np.ndarray:
        """The global top-k by brute force over the live subscriptions (the oracle)."""
        return self.kind.brute_top_k(self._alive[: self._size], self.kind.event(x), k)

    def local_top_k(self, b: int, x, k: int) -> np.ndarray:
        """Broker ``b``'s k best subscriptions matching ``x`` (global ids, rank order)."""
        ix = self._local_index(b)
        # local ids -> global ids (a BE index's ids are positions of its store, given
        # in join order, so they order as the global ids do)
        return self._ix_gid[b][self.kind.local_top_k(ix, x, k)]

    def _matched_counts(self, x):
        m = self.kind.matches(x)
        m = m[self._alive[m]] if len(m) else m
        return np.bincount(self._home[m], minlength=self.tree.n).astype(np.int64)

    def deliver(self, events, k: int, entry, mode: str = "pruned") -> RankedDelivery:
        """Recipients and costs of ``events`` (boxes: an ``(n, d)`` array of points;
        expressions: a list of event texts or expressions) entering at brokers ``entry``."""
        k, mode = check_k(k), check_mode(mode)
        if isinstance(self.kind, _Boxes):
            pts = np.asarray(events, np.float64)
            pts = pts.reshape(-1, self.kind.d) if pts.size else np.empty((0, self.kind.d))
            evs = [self.kind.event(p) for p in pts]
        else:
            evs = [self.kind.event(e) for e in events]
        n = len(evs)
        entry = np.ascontiguousarray(np.broadcast_to(entry, (n,)), np.int64)
        if n and (entry.min() < 0 or entry.max() >= self.tree.n):
            raise InputError(
                f"ranked content-based delivery: entry brokers must be in 0..{self.tree.n - 1}"
            )
        cost = {name: np.zeros(n, np.int64) for name in COST_FIELDS}
        out, offsets = [], np.zeros(n + 1, np.int64)
        visits: list[int] = []
        visit_ptr = np.zeros(n + 1, np.int64)
        flood: list = []  # baseline: each event's tree hops (from, to), for Paths
        for i, x in enumerate(evs):
            run = self._pruned if mode == "pruned" else self._baseline
            best, row, vis = run(x, k, int(entry[i]), flood)
            out.append(best)
            offsets[i + 1] = offsets[i] + len(best)
            visits += vis
            visit_ptr[i + 1] = len(visits)
            for name, v in zip(COST_FIELDS, row, strict=True):
                cost[name][i] = v
        ids = np.concatenate(out) if out else np.empty(0, np.int64)
        visit_zone = np.asarray(visits, np.int64)
        return RankedDelivery(offsets, ids, cost, visit_ptr, visit_zone, flood or None)

    def _answer(self, b: int, x, k: int, cnt) -> tuple[np.ndarray, np.ndarray]:
        """Broker ``b``'s local top-k and their scores (nothing when it holds no match)."""
        if cnt[b] == 0:
            return np.empty(0, np.int64), np.empty(0)
        ids = self.local_top_k(b, x, k)
        return ids, self.kind.scores(ids, x)

    def _pruned(self, x, k: int, e: int, flood: list):
        t, hops = self.tree, self.broker_hops
        cnt = self._matched_counts(x)
        _, side = _side_counts(t.ptr, t.nbr, e, cnt)
        read = self.kind.bound_reader(x)
        q = self.kind.event_bytes(x) + EXTRA_QUERY_BYTES["pruned"]
        search = TopKSearch(k)
        tick = itertools.count()
        heap: list = []
        if cnt[e]:
            heapq.heappush(heap, (-float(read(self.L[e])), e, next(tick), -1))
        for j in t.links(e):
            v = int(t.nbr[j])
            if side[v]:
                heapq.heappush(heap, (-float(read(self.B[j])), v, next(tick), j))
        vis: list[int] = []
        while heap:
            nb, v, _, j = heapq.heappop(heap)
            if search.done(-nb):
                break
            ids, sc = search.answer(*self._answer(v, x, k, cnt))
            vis.append(v)
            if j >= 0:  # a remote broker: query and answer straight over IP
                links = 0
                for jj in t.links(v):
                    w = int(t.nbr[jj])
                    if jj == t.rev[j] or not side[w]:
                        continue
                    bnd = float(read(self.B[jj]))
                    if search.done(bnd):
                        continue
                    heapq.heappush(heap, (-bnd, w, next(tick), jj))
                    links += 1
                size = (
                    q + ANSWER_HEADER_BYTES + ENTRY_BYTES * len(ids)
                    + LINKS_HEADER_BYTES + LINK_BYTES * links
                )  # fmt: skip
                search.remote(int(hops[e, v]), size)
            search.merge(ids, sc)
        return search.best, search.costs(), vis

    def _baseline(self, x, k: int, e: int, flood: list):
        t, hops = self.tree, self.broker_hops
        cnt = self._matched_counts(x)
        _, side = _side_counts(t.ptr, t.nbr, e, cnt)
        frm, to = _flood(t.ptr, t.nbr, e, side)
        flood.append((frm, to))
        q = self.kind.event_bytes(x) + EXTRA_QUERY_BYTES["baseline"]
        q_ip = int(hops[frm, to].sum(dtype=np.int64))
        messages, ip, ob, ib = len(frm), q_ip, q * len(frm), q * q_ip
        entries = 0
        ids_all, s_all = [], []
        reached = [e, *to.tolist()]
        for b in reached:
            ids, sc = self._answer(b, x, k, cnt)
            entries += len(ids)
            ids_all.append(ids)
            s_all.append(sc)
            if b != e:
                h = int(hops[b, e])
                size = ANSWER_HEADER_BYTES + ENTRY_BYTES * len(ids)
                messages += 1
                ip += h
                ob += size
                ib += size * h
        both = np.concatenate(ids_all).astype(np.int64)
        both_s = np.concatenate(s_all)
        best = both[np.lexsort((both, -both_s))[:k]]
        return best, (len(reached), messages, messages, ip, entries, ob, ib), reached

    def nbytes(self) -> int:
        """Bytes of the columns, bounds and local structures built so far."""
        cols = (self._home, self._alive, self._local, self.L, self.B)
        ix = sum(s.nbytes() for s in self._ix if s is not None)
        return int(
            self.kind.nbytes() + sum(a.nbytes for a in cols) + ix + sum(g.nbytes for g in self._gid)
        )


# ---------------------------------------------------------------- ranked delivery in a run
class RankedTreeOverlay(JoinsAndLeaves):
    """Ranked delivery of a run (approach ``ranked``) over the content-based overlay
    (:class:`~cnsim.brokers.content_based.ContentBasedCN`): the run's ranges as scored
    1-d boxes held at their subscribers' brokers, answered in the ``[ranked]`` pruning
    mode (``threshold``: the best-first search; ``flood``: the baseline) with the
    ``[ranked] regions`` bound.  The interface and the run's costs are those of
    :class:`~cnsim.brokers.ranked.RankedOverlay` (every broker is its own "zone", so
    ``zones_visited`` counts brokers): after the query phase the entry broker notifies
    each broker holding a winner (one message straight over IP, none for its own), and
    the flood's cost is measured beside for the pruning ratios.

    Paths (one per event, hops in causal order; what timed mode replays): threshold, the
    round trips ``e -> v -> e`` in visit order; flood, the event's tree hops, then every
    reached broker's answer, ordered by its arrival estimated from the IP latencies
    along the tree hops; then the notifications, which leave after the answer listed
    last (as :class:`~cnsim.brokers.ranked.RankedOverlay` orders them).
    """

    def __init__(self, net: RankedTree, k: int, pruning: str, churn=None, world=None):
        from cnsim.brokers.ranked import PRUNING

        self.net, self.k, self.mode = net, k, PRUNING[pruning]
        self.churn, self.world = churn, world
        self.applied = 0
        self._last_hop: np.ndarray | None = None

    @classmethod
    def create(cls, ranked, l, r, home, tree, world, seeds, n_events: int = 0):
        """The run's scored ranges (``ranked``: a :class:`cnsim.brokers.base.RankedSetup`;
        scores from stream ``scores``) at brokers ``home`` with per-broker
        ``ranked.index`` structures; with ``ranked.commands`` > 0 the joins and leaves
        (stream ``ranked_churn``)."""
        from cnsim.subscriptions.ranked.scores import generate_scores

        score = generate_scores(seeds.rng("scores"), l, r, ranked.scores)
        net = RankedTree.boxes(
            tree,
            world.broker_hops,
            home,
            np.asarray(l)[:, None],
            np.asarray(r)[:, None],
            score,
            ranked.index,
            ranked.regions,
        )
        churn = RankedChurn.of_setup(ranked, seeds, len(l), n_events, world.topology.n_nodes)
        return cls(net, ranked.k, ranked.pruning, churn, world)

    @property
    def scores(self) -> np.ndarray:
        """Every subscription's score."""
        return self.net.kind.score[: self.net._size]

    def _join(self, j: int) -> tuple[int, int]:
        """The ``j``-th join at its subscriber's nearest broker (bound changes travel
        along the reverse paths, counted by :class:`RankedTree`); its id and broker."""
        from cnsim.brokers.endpoints import _nearest

        ch = self.churn
        home = int(_nearest(self.world, np.array([ch.node[j]]))[0])
        i = self.net.insert((ch.l[j : j + 1], ch.r[j : j + 1], float(ch.score[j])), home)
        return i, home

    def deliver(self, messages, entry: np.ndarray, last_hop: np.ndarray, handled, update_events):
        """``(Delivery, Traffic)`` of the events ``messages`` (one per update) entering at
        brokers ``entry`` (see :meth:`cnsim.brokers.ranked.RankedOverlay.deliver`)."""
        from cnsim.brokers.base import Delivery, Paths, Traffic

        net, k = self.net, self.k
        churned, last_hop = self._churn_before(update_events, last_hop)
        xs = np.asarray(messages.x, np.float64)
        entry = np.asarray(entry, np.int64)
        d = net.deliver(xs[:, None], k, entry, self.mode)
        flood = d if self.mode == "baseline" else net.deliver(xs[:, None], k, entry, "baseline")
        notify = self._notify(d, entry)
        costs = event_costs(d, flood, notify, churned)
        frm, to, ptr = [], [], [0]
        for i in range(len(entry)):
            e = int(entry[i])
            vis = d.visit_zone[d.visit_ptr[i] : d.visit_ptr[i + 1]].tolist()
            if self.mode == "pruned":
                for v in vis:
                    if v != e:
                        frm += [e, v]
                        to += [v, e]
            else:
                q_from, q_to = d.routes[i]
                frm += q_from.tolist()
                to += q_to.tolist()
                answers = self._answers(e, q_from, q_to, vis)
                frm += answers
                to += [e] * len(answers)
            frm += [e] * len(notify["zones"][i])
            to += notify["zones"][i].tolist()
            ptr.append(len(to))
        paths = Paths(
            entry, np.asarray(ptr, np.int64), np.asarray(frm, np.int64), np.asarray(to, np.int64)
        )
        np.add.at(handled, paths.hop_to, 1)
        np.add.at(handled, entry, 1)
        traffic = Traffic(
            overlay_hops=len(paths.hop_to),
            ip_hops=int(net.broker_hops[paths.hop_from, paths.hop_to].sum(dtype=np.int64)),
            last_hop_ip_hops=int(last_hop[d.ids].sum()),
            paths=paths,
            costs=costs,
        )
        assert traffic.overlay_hops == costs["ranked_msgs"]
        return Delivery.of(messages, d.offsets, d.ids), traffic

    def _answers(self, e: int, q_from, q_to, reached) -> list[int]:
        """The brokers answering a flood (remote from ``e``), ordered by the arrival of
        their answers at ``e`` estimated from the IP latencies along the flood's hops
        (as :meth:`cnsim.brokers.ranked.RankedOverlay._answers` orders them)."""
        lat = np.asarray(self.world.broker_latency)
        t = {e: 0.0}
        for a, b in zip(q_from.tolist(), q_to.tolist(), strict=True):
            t[b] = t[a] + float(lat[a, b])
        remote = [int(v) for v in reached if v != e]
        return sorted(remote, key=lambda v: (t[v] + float(lat[v, e]), v))

    def _notify(self, d: RankedDelivery, entry: np.ndarray) -> dict:
        """Notifications to the brokers holding the winners (every broker is its own
        holder)."""
        hops = self.net.broker_hops
        return notifications(d, entry, self.net._home, np.arange(len(hops)), hops)
