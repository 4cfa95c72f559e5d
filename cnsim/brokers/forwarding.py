"""Subscription forwarding pruned by covering, and event routing along the reverse
paths: the brokers of the content-based overlay (seed 001 §I-§III; SIENA).

Notation (seed 001 §III, fixed for the overlay)
------------------------------------------------
* A subscription ``s`` is a box ``([l1, r1], ..., [ld, rd])`` on ``d`` attributes,
  ``1 <= d <= 8``; an event is a point ``x`` in ``R^d``; ``s`` *matches* ``x`` iff
  ``l_i <= x_i <= r_i`` for all ``i``.  ``s`` covers ``s'`` iff ``p(s) = (-l1, r1, ...)``
  dominates ``p(s')`` (:mod:`cnsim.subscriptions.covering`); ``s`` matches ``x`` iff ``s``
  covers the box ``[x, x]``, so matching is a covering query ``cov_1`` on the point
  ``(-x1, x1, ..., -xd, xd)`` (ties included) and one index kind serves both.
* The brokers form a tree (:mod:`cnsim.brokers.spanning`); a *link* ``u -> v`` is a
  directed tree edge.  A subscriber attaches to one broker, its *home*.
* ``F(u -> v)``: the subscriptions ``u`` has forwarded to ``v`` and not withdrawn —
  ``v``'s routing table for the interface ``u``.
* ``S(u, v)``: what ``u`` knows from everywhere but ``v``: its local subscriptions and
  ``F(w -> u)`` for every neighbour ``w != v``.  ``u`` keeps a relation graph over
  ``S(u, v)`` per link (seed 001 §III: "one graph per neighbour"); ``F(u -> v)`` is its
  forwarded set.  Without covering, ``F(u -> v) = S(u, v)`` (flooding: no
  advertisements, since any broker may publish).

Protocol
--------
* subscribe ``s`` at ``u`` (from its subscriber or from neighbour ``w``): for every
  link ``u -> v``, ``v != w``, add ``s`` to the graph of the link; if the graph says
  "forward", send ``s`` to ``v``.  With ``G`` and the poset the forwarded subscriptions
  the new one covers are then *withdrawn* (unsubscribed at ``v``;
  :meth:`~cnsim.subscriptions.covering.graph.RelationGraph.withdraw_covered`), so
  routing tables never hold a subscription a forwarded one covers.  ``G_k`` (§III-C)
  cannot see what a new node covers and keeps them (§III-A allows it).
* unsubscribe ``s`` at ``u`` (from its subscriber or neighbour ``w``): for every link
  ``u -> v``, ``v != w``, remove ``s`` from the graph; first forward the orphans the
  graph returns (now uncovered, §III-C step 2c), then the unsubscription if ``s`` had
  been forwarded (step 3) — in this order so no event slips through the gap.
* Messages on one link are processed in send order (one FIFO queue for all).
* publish ``x`` at broker ``b``: deliver to ``b``'s local subscriptions matching ``x``
  and send ``x`` over every link ``b -> v`` (except back) for which ``F(v -> b)``
  holds a match (one ``cov_1`` query per link); the tree makes every broker, and so
  every subscription, reached at most once.

Every ``F(u -> v)`` and every broker's local subscriptions are a covering index
(``naive``, ``kdtree`` or ``zorder``) plus a slot map; the graphs are those of
:mod:`cnsim.subscriptions.covering`.  Counted: subscription and unsubscription
messages, covering queries with their nodes visited and point comparisons (split by
subscribe and unsubscribe), matching queries and their cost, and routing entries.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from cnsim.brokers.spanning import Tree
from cnsim.subscriptions.covering import ALL, INDEXES, make_graph
from cnsim.subscriptions.covering.base import MAX_ATTRIBUTES, CoveringIndex
from cnsim.subscriptions.covering.graph import MAX_FAST_K

COVERINGS = ("none", "g1", "gk", "poset", "full")
WITHDRAWING = ("poset", "full")  # graphs that know what a new subscription covers
SUB, UNSUB = 0, 1
_TIES = ALL  # a query seq above every arrival: identical boxes match too


def index_params(kind: str, domain: tuple[float, float]) -> dict:
    """Parameters of a covering index over the attribute ``domain`` (Z-order needs it)."""
    return {"low": float(domain[0]), "high": float(domain[1])} if kind == "zorder" else {}


def event_point(x: np.ndarray) -> np.ndarray:
    """The point ``(-x1, x1, ..., -xd, xd)`` of the box ``[x, x]``."""
    x = np.asarray(x, np.float64)
    p = np.empty(2 * len(x))
    p[0::2] = -x
    p[1::2] = x
    return p


@dataclass(frozen=True)
class Covering:
    """How the brokers prune subscription forwarding, read once from ``[overlay]``:
    the relation graph kept per link (``relation``: ``"none"`` floods, ``"g1"`` and
    ``"gk"`` are ``G_k`` with ``k`` = 1 or ``covering_k``, ``"full"`` is ``G``,
    ``"poset"`` the poset; seed 001 §III) and the covering index under every graph,
    routing table and local table (``index``: :data:`cnsim.subscriptions.covering.INDEXES`)."""

    relation: str = "g1"
    k: int = 1  # G_k's k (1 for "g1"; unused by the others)
    index: str = "kdtree"

    def __post_init__(self):
        if self.relation not in COVERINGS or self.index not in INDEXES or self.k < 1:
            raise ValueError(f"not a covering setting: {self}")
        if self.relation != "gk":  # only G_k has a k of its own
            object.__setattr__(self, "k", 1)

    @classmethod
    def of(cls, overlay: Mapping[str, Any]) -> Covering:
        """The setting of an ``[overlay]`` section (``covering``, ``covering_k``,
        ``covering_index``)."""
        relation = overlay["covering"]
        k = int(overlay["covering_k"]) if relation == "gk" else 1
        return cls(relation, k, overlay["covering_index"])

    @property
    def floods(self) -> bool:
        """No covering: every subscription crosses every link."""
        return self.relation == "none"

    @property
    def withdraws(self) -> bool:
        """``G`` and the poset know what a new subscription covers and withdraw it."""
        return self.relation in WITHDRAWING

    @property
    def batched(self) -> bool:
        """Whether the link-by-link replay (:mod:`cnsim.brokers.batch_forwarding`) runs
        this setting: all but ``G_k`` beyond k = 64 (timed mode replays the replay's
        messages, so it runs exactly these)."""
        return self.relation != "gk" or self.k <= MAX_FAST_K

    def describe(self) -> str:
        """The setting in the scenario's words."""
        k = f" with covering_k {self.k}" if self.relation == "gk" else ""
        return f"covering {self.relation!r}{k} over covering_index {self.index!r}"

    def make_index(self, d: int, domain: tuple[float, float]) -> CoveringIndex:
        """An empty covering index over boxes of ``d`` attributes in ``domain``."""
        return INDEXES[self.index](d, **index_params(self.index, domain))

    def make_graph(self, d: int, domain: tuple[float, float], counts: dict):
        """An empty relation graph of one link (``counts``: shared query counters)."""
        kind = "gk" if self.relation == "g1" else self.relation
        params = index_params(self.index, domain)
        return make_graph(kind, d, index=self.index, k=self.k, counts=counts, **params)


class Table:
    """A set of subscriptions with their boxes in a covering index (a routing table
    ``F(u -> v)`` or a broker's local subscriptions): insert, delete, match a point."""

    __slots__ = ("index", "slot", "free", "sid_of")

    def __init__(self, index: CoveringIndex):
        self.index = index
        self.slot: dict[int, int] = {}
        self.free: list[int] = []
        self.sid_of = np.full(8, -1, np.int64)

    def __len__(self) -> int:
        return len(self.slot)

    def __contains__(self, sid: int) -> bool:
        return sid in self.slot

    def add(self, sid: int, point: np.ndarray, seq: int) -> None:
        """Insert subscription ``sid`` with box point ``point``."""
        slot = self.free.pop() if self.free else len(self.slot)
        if slot >= len(self.sid_of):
            grown = np.full(2 * len(self.sid_of), -1, np.int64)
            grown[: len(self.sid_of)] = self.sid_of
            self.sid_of = grown
        self.index.insert(slot, point, seq)
        self.slot[sid] = slot
        self.sid_of[slot] = sid

    def remove(self, sid: int) -> None:
        """Delete subscription ``sid``."""
        slot = self.slot.pop(sid)
        self.index.delete(slot)
        self.sid_of[slot] = -1
        self.free.append(slot)

    def match(self, q: np.ndarray, k: int) -> np.ndarray:
        """Up to ``k`` subscriptions whose boxes hold the event of point ``q``."""
        return self.sid_of[self.index.query_counted(q, _TIES, k, True)]

    def sids(self) -> np.ndarray:
        """Every subscription held, sorted."""
        return np.sort(np.fromiter(self.slot, np.int64, len(self.slot)))


class Forwarding:
    """The brokers of one content-based overlay: per-link relation graphs and routing
    tables, local subscriptions, the message protocol above, and its counters."""

    def __init__(self, tree: Tree, d: int, covering: Covering, domain=(0.0, 1023.0)):
        assert 1 <= d <= MAX_ATTRIBUTES
        self.tree, self.d, self.D = tree, int(d), 2 * int(d)
        self.covering, self.domain = covering, domain
        self.withdraws = covering.withdraws
        self.graphs: list = [None] * tree.n_links  # relation graph of S(u, v), by link
        self.tables = [None] * tree.n_links  # F(u -> v), by link
        self.local = [None] * tree.n  # every broker's own subscribers
        # per subscription, columnar: box point, home broker (-1: not live)
        self.P = np.zeros((64, self.D))
        self.home = np.full(64, -1, np.int64)
        self.seq = 0
        self.queue: deque = deque()
        self.sub_msgs = 0
        self.unsub_msgs = 0
        self.withdrawals = 0  # unsubscription messages that withdraw a covered one
        self.match_cost = np.zeros(3, np.int64)  # queries, nodes visited, comparisons
        self.entries = np.zeros(tree.n, np.int64)  # routing entries held, per broker
        # covering queries, nodes visited, comparisons: shared by every link's graph
        self.covering_counts = {"subscribe": [0, 0, 0], "unsubscribe": [0, 0, 0]}

    # ---- state -------------------------------------------------------------------------------
    def _index(self) -> CoveringIndex:
        return self.covering.make_index(self.d, self.domain)

    def _table(self, link: int) -> Table:
        t = self.tables[link]
        if t is None:
            t = self.tables[link] = Table(self._index())
        return t

    def _graph(self, link: int):
        g = self.graphs[link]
        if g is None:
            g = self.graphs[link] = self.covering.make_graph(
                self.d, self.domain, self.covering_counts
            )
        return g

    def _local(self, broker: int) -> Table:
        t = self.local[broker]
        if t is None:
            t = self.local[broker] = Table(self._index())
        return t

    def _box(self, sid: int) -> tuple[np.ndarray, np.ndarray]:
        p = self.P[sid]
        return -p[0::2], p[1::2]

    # ---- the protocol --------------------------------------------------------------------------
    def subscribe(self, sid: int, broker: int, lo, hi) -> None:
        """Subscriber of ``sid`` at ``broker`` subscribes box ``[lo, hi]``; propagates it."""
        sid = int(sid)
        if sid >= len(self.home):
            cap = max(2 * len(self.home), sid + 1)
            P = np.zeros((cap, self.D))
            P[: len(self.P)] = self.P
            home = np.full(cap, -1, np.int64)
            home[: len(self.home)] = self.home
            self.P, self.home = P, home
        assert self.home[sid] < 0, f"subscription {sid} is live"
        lo = np.asarray(lo, np.float64).reshape(self.d)
        hi = np.asarray(hi, np.float64).reshape(self.d)
        self.P[sid, 0::2] = -lo
        self.P[sid, 1::2] = hi
        self.home[sid] = broker
        self.seq += 1
        self._local(broker).add(sid, self.P[sid], self.seq)
        self.queue.append((SUB, sid, int(broker), -1))
        self._drain()

    def unsubscribe(self, sid: int) -> None:
        """Subscriber of ``sid`` unsubscribes; propagates it."""
        sid = int(sid)
        broker = int(self.home[sid])
        assert broker >= 0, f"subscription {sid} is not live"
        self.local[broker].remove(sid)
        self.home[sid] = -1
        self.queue.append((UNSUB, sid, broker, -1))
        self._drain()

    def _drain(self) -> None:
        queue = self.queue
        while queue:
            op, sid, b, frm = queue.popleft()
            if op == SUB:
                self._on_subscribe(sid, b, frm)
            else:
                self._on_unsubscribe(sid, b, frm)

    def _onward(self, b: int, frm: int) -> list[int]:
        """The links of broker ``b`` a message that came from ``frm`` travels on."""
        nbr = self.tree.nbr
        return [j for j in self.tree.links(b) if nbr[j] != frm]

    def _on_subscribe(self, sid: int, b: int, frm: int) -> None:
        if self.covering.floods:
            for j in self._onward(b, frm):
                self._send_sub(j, sid)
            return
        lo, hi = self._box(sid)
        for j in self._onward(b, frm):
            if self._graph(j).subscribe(sid, lo, hi):
                self._forward(j, sid)

    def _on_unsubscribe(self, sid: int, b: int, frm: int) -> None:
        for j in self._onward(b, frm):
            if self.covering.floods:
                self._send_unsub(j, sid)
                continue
            g = self.graphs[j]
            was = g.forwarded(sid)
            for t in g.unsubscribe(sid):  # orphans left uncovered: forward them first
                self._forward(j, t)
            if was:
                self._send_unsub(j, sid)

    def _forward(self, j: int, sid: int) -> None:
        """Send ``sid`` on link ``j`` and, where the covering withdraws, withdraw from
        ``j`` the forwarded subscriptions it now covers."""
        self._send_sub(j, sid)
        if self.withdraws:
            for t in self.graphs[j].withdraw_covered(sid):
                self._send_unsub(j, t)
                self.withdrawals += 1

    def _send_sub(self, link: int, sid: int) -> None:
        self.sub_msgs += 1
        self.entries[self.tree.nbr[link]] += 1
        self.seq += 1
        self._table(link).add(sid, self.P[sid], self.seq)
        self.queue.append((SUB, sid, int(self.tree.nbr[link]), int(self.tree.src[link])))

    def _send_unsub(self, link: int, sid: int) -> None:
        self.unsub_msgs += 1
        self.entries[self.tree.nbr[link]] -= 1
        self.tables[link].remove(sid)
        self.queue.append((UNSUB, sid, int(self.tree.nbr[link]), int(self.tree.src[link])))

    # ---- events --------------------------------------------------------------------------------
    def publish(self, broker: int, x) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Route the event ``x`` from ``broker``: ``(subscriptions reached, hop_from,
        hop_to)``, hops in causal order (a hop follows the hop into its broker)."""
        q = event_point(np.asarray(x, np.float64).reshape(self.d))
        tree, tables, local = self.tree, self.tables, self.local
        nbr, rev = tree.nbr, tree.rev
        reached: list[np.ndarray] = []
        hop_from: list[int] = []
        hop_to: list[int] = []
        stack = [(int(broker), -1)]
        while stack:
            b, frm = stack.pop()
            t = local[b]
            if t is not None and len(t):
                reached.append(t.match(q, ALL))
                self._cost(t)
            for j in tree.links(b):
                v = int(nbr[j])
                if v == frm:
                    continue
                t = tables[rev[j]]  # F(v -> b): what v asked b for
                if t is None or not len(t):
                    continue
                hit = len(t.match(q, 1))
                self._cost(t)
                if hit:
                    hop_from.append(b)
                    hop_to.append(v)
                    stack.append((v, b))
        subs = np.concatenate(reached) if reached else np.empty(0, np.int64)
        return subs, np.array(hop_from, np.int64), np.array(hop_to, np.int64)

    def _cost(self, t: Table) -> None:
        c = self.match_cost
        c[0] += 1
        c[1] += t.index.last[0]
        c[2] += t.index.last[1]

    # ---- what the brokers hold -----------------------------------------------------------------
    def local_subscriptions(self) -> np.ndarray:
        """Per broker: the subscriptions of its own subscribers."""
        return np.array([len(t) if t is not None else 0 for t in self.local], np.int64)

    def routing_entries(self) -> np.ndarray:
        """Per broker: routing-table entries, the subscriptions its neighbours forwarded
        to it (what covering prunes; its local subscriptions are not counted)."""
        return self.entries.copy()

    def covered_entries(self) -> int:
        """Routing entries that another entry of the same table covers (identical boxes
        count once each): never any with ``G`` or the poset."""
        covered = 0
        for t in self.tables:
            if t is None or len(t) < 2:
                continue
            P = self.P[t.sids()]
            for a0 in range(0, len(P), 256):
                ge = (P[None, :, :] >= P[a0 : a0 + 256, None, :]).all(axis=2)
                ge[np.arange(len(ge)), a0 + np.arange(len(ge))] = False  # not itself
                covered += int(ge.any(axis=1).sum())
        return covered

    def covering_stats(self) -> dict[str, dict[str, int]]:
        """Covering queries and their cost over all graphs, split by operation."""
        keys = ("queries", "nodes_visited", "point_comparisons")
        return {op: dict(zip(keys, c, strict=True)) for op, c in self.covering_counts.items()}

    def stats(self) -> dict[str, int]:
        """Every counter, flat (the metrics read these names)."""
        cov = self.covering_stats()
        held = self.routing_entries()
        out = {
            "sub_msgs": self.sub_msgs,
            "unsub_msgs": self.unsub_msgs,
            "withdrawals": self.withdrawals,
            "routing_entries": int(held.sum()),
            "routing_entries_max": int(held.max(initial=0)),
            "match_queries": int(self.match_cost[0]),
            "match_nodes_visited": int(self.match_cost[1]),
            "match_point_comparisons": int(self.match_cost[2]),
        }
        for op, short in (("subscribe", "sub"), ("unsubscribe", "unsub")):
            for key, value in cov[op].items():
                out[f"covering_{short}_{key}"] = value
        return out
