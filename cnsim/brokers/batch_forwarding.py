"""The content-based overlay's protocol replayed link by link: the same messages,
routing tables and covering work as :class:`~cnsim.brokers.forwarding.Forwarding`
(the reference, one message at a time in Python), at the paper's scale.

Why it can be batched
---------------------
* Every message about command ``c`` travels away from the home broker ``h`` of the
  subscription it names (a subscribe, the orphans an unsubscribe re-forwards, the
  unsubscription itself), so a broker ``u`` hears about ``c`` over one link only (or
  from its own subscriber when ``u = h``), in that link's FIFO order.
* The relation graph of link ``u -> v`` therefore sees, over the whole stream, the
  merge by command of ``u``'s local commands and the messages on every ``w -> u``,
  ``w != v`` — and what it sends to ``v`` depends on nothing else.  In a tree these
  dependencies are acyclic: with the tree rooted at broker 0, every upward link
  (deepest first), then every downward link (shallowest first).
* So each link's whole input stream runs through its ``G_k`` graph in one numba call
  (:meth:`~cnsim.subscriptions.covering.graph.GkGraph.run_commands`, the command loop
  the reference calls one command at a time), its output stream (a subscribe for
  every subscription forwarded, the re-forwarded orphans then the unsubscription of
  a forwarded one for every unsubscribe) is kept for the links downstream, and the
  graph is dropped: memory is one graph plus the message streams.
* ``G_k`` never withdraws, so a subscription crosses a link at most once
  (covering ``"g1"``, ``"gk"``); without covering (``"none"``) every command floods
  the tree, and the counts are closed-form (``B - 1`` messages; broker ``v`` holds
  every live subscription but its own subscribers').
* ``G`` and the poset (covering ``"full"``, ``"poset"``) also withdraw: a forwarded
  subscription is unsubscribed at the neighbour when a newer one covering it is
  forwarded, and sent again when it is left uncovered.  Those messages too travel away
  from the home of the command that caused them (a withdrawal crosses a link the new
  subscription has just crossed; a re-forwarded one, a link its coverer had crossed),
  so the argument above holds unchanged.  Both keep the forwarded set equal to the
  maximal elements of the link's ``S`` (Property 1 is exact for them), so they make
  the same decisions (tested): each link's stream runs through one
  :class:`~cnsim.subscriptions.covering.graph.GStream` (numba, no edges stored), which
  performs the same index operations and counted queries as the reference's
  ``FullGraph`` / ``PosetGraph``, so the covering costs are the same too.

Events
------
Covering is exact: ``F(v -> b)`` holds a box matching ``x`` iff some live subscription
homed on ``v``'s side of the link matches ``x`` (the reference is tested to route this
way, ``tests/simulations/test_churn.py``).  So an event is matched once, against one
index of the live boxes (a covering index queried with the event's point), and routed
over the links towards the brokers holding matches, in the reference's depth-first
order (:func:`route_event`).  The ``match_*`` counters then count that one index's
work (one query per event), not the brokers' tables: only the reference has those.
"""

from __future__ import annotations

import numba
import numpy as np

from cnsim.brokers.forwarding import SUB, UNSUB, Covering, event_point, index_params
from cnsim.brokers.spanning import Tree
from cnsim.subscriptions.covering import ALL, INDEXES
from cnsim.subscriptions.covering.base import MAX_ATTRIBUTES
from cnsim.subscriptions.covering.engine import W_SUB, W_WITHDRAW
from cnsim.subscriptions.covering.graph import GkGraph, GStream


def rooted(tree: Tree) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(parent, depth, order)`` of the tree rooted at broker 0 (``order`` breadth
    first; ``parent[0] = -1``)."""
    n = tree.n
    parent = np.full(n, -1, np.int64)
    depth = np.zeros(n, np.int64)
    order = np.zeros(n, np.int64)
    seen = np.zeros(n, bool)
    if n:
        seen[0] = True
    head, tail = 0, 1
    while head < tail:
        u = int(order[head])
        head += 1
        for j in tree.links(u):
            v = int(tree.nbr[j])
            if not seen[v]:
                seen[v] = True
                parent[v], depth[v] = u, depth[u] + 1
                order[tail] = v
                tail += 1
    return parent, depth, order


def link_order(tree: Tree) -> np.ndarray:
    """Every link after the links it hears from: upward links deepest first, then
    downward links shallowest first (ties by link number)."""
    parent, depth, _ = rooted(tree)
    up = parent[tree.src] == tree.nbr
    links = np.arange(tree.n_links)
    ups = links[up][np.lexsort((links[up], -depth[tree.src[up]]))]
    downs = links[~up][np.lexsort((links[~up], depth[tree.src[~up]]))]
    return np.concatenate([ups, downs]).astype(np.int64)


@numba.njit(cache=True)
def _emit(op, sid, fwd, rf_ptr, rf_sid, mark):
    """A link's output stream from its graph's answers: per input row ``i``, the
    subscribe of a forwarded subscription, or the re-forwarded orphans then the
    unsubscription of a forwarded one.  Returns ``(row, op, sid)`` of each message;
    ``mark`` (all False on entry and on return) flags what is forwarded."""
    n = op.shape[0]
    cap = n + rf_sid.shape[0]
    o_row = np.empty(cap, np.int64)
    o_op = np.empty(cap, np.int8)
    o_sid = np.empty(cap, np.int64)
    m = 0
    for i in range(n):
        s = sid[i]
        if op[i] == SUB:
            if fwd[i]:
                mark[s] = True
                o_row[m], o_op[m], o_sid[m] = i, SUB, s
                m += 1
            continue
        for t in range(rf_ptr[i], rf_ptr[i + 1]):
            r = rf_sid[t]
            mark[r] = True
            o_row[m], o_op[m], o_sid[m] = i, SUB, r
            m += 1
        if mark[s]:
            mark[s] = False
            o_row[m], o_op[m], o_sid[m] = i, UNSUB, s
            m += 1
    for t in range(m):
        mark[o_sid[t]] = False
    return o_row[:m], o_op[:m], o_sid[:m]


@numba.njit(cache=True)
def _add_rows(cover, cmd, cost, is_sub):
    """``cover[cmd[i], 0:3]`` (a subscribe) or ``[3:6]`` (an unsubscribe) ``+= cost[i]``."""
    for i in range(cmd.shape[0]):
        o = 0 if is_sub[i] else 3
        for t in range(3):
            cover[cmd[i], o + t] += cost[i, t]


@numba.njit(cache=True)
def _entries_sweep(cmd, dst, sign, n_brokers, after):
    """Routing entries per broker after command ``after[e]`` for every ``e`` (``after``
    non-decreasing; deltas sorted by ``cmd``): ``(mean, max)`` per ``e``, and the
    entries at the end."""
    held = np.zeros(n_brokers, np.int64)
    mean = np.zeros(after.shape[0])
    mx = np.zeros(after.shape[0], np.int64)
    t = 0
    total = 0
    for e in range(after.shape[0]):
        while t < cmd.shape[0] and cmd[t] <= after[e]:
            held[dst[t]] += sign[t]
            total += sign[t]
            t += 1
        best = 0
        for v in range(n_brokers):
            if held[v] > best:
                best = held[v]
        mx[e] = best
        mean[e] = total / n_brokers
    while t < cmd.shape[0]:
        held[dst[t]] += sign[t]
        t += 1
    return mean, mx, held


@numba.njit(cache=True)
def _flood_sweep(cmd_home, cmd_sign, n_brokers, after):
    """``_entries_sweep`` without covering: broker ``v`` holds every live subscription
    but its own subscribers' (``cmd_home``/``cmd_sign``: per command, the home and
    +1 subscribe / -1 unsubscribe)."""
    local = np.zeros(n_brokers, np.int64)
    mean = np.zeros(after.shape[0])
    mx = np.zeros(after.shape[0], np.int64)
    live = 0
    c = 0
    for e in range(after.shape[0]):
        while c < cmd_home.shape[0] and c <= after[e]:
            local[cmd_home[c]] += cmd_sign[c]
            live += cmd_sign[c]
            c += 1
        low = local.min() if n_brokers else 0
        mx[e] = live - low if n_brokers > 1 else 0
        mean[e] = live * (n_brokers - 1) / n_brokers if n_brokers else 0.0
    while c < cmd_home.shape[0]:
        local[cmd_home[c]] += cmd_sign[c]
        live += cmd_sign[c]
        c += 1
    return mean, mx, live - local if n_brokers > 1 else np.zeros(n_brokers, np.int64)


class BatchForwarding:
    """A whole command stream through the overlay's per-link relation graphs (``G_k``,
    ``G`` / the poset, or flooding), link by link; per-command message and covering
    counts and the routing entries over time, equal to the reference's."""

    def __init__(self, tree: Tree, d: int, covering: Covering, domain=(0.0, 1023.0)):
        assert covering.batched and 1 <= d <= MAX_ATTRIBUTES
        self.tree, self.d = tree, int(d)
        self.covering = covering
        self._params = index_params(covering.index, domain)
        self.match_cost = np.zeros(3, np.int64)  # the event router's, when one shares it
        self.n_commands = 0
        self.sub_msgs = self.unsub_msgs = self.withdraw_msgs = np.zeros(0, np.int64)
        self.cover = np.zeros((0, 6), np.int64)
        self._cmd_home = self._cmd_sign = self.local_end = np.zeros(tree.n, np.int64)[:0]
        self._deltas = None
        self._held: np.ndarray | None = None  # the entries at the end (entries_after)
        #: with ``keep_messages`` set before :meth:`replay`, every subscription message
        #: as columns ``cmd``, ``src``, ``dst``, ``parent`` (the message whose processing
        #: at ``src`` sent it; -1: the command itself at its home), by message id
        #: (covering g1/gk; flooding sends each command over the whole tree instead)
        self.keep_messages = False
        self.messages: dict[str, np.ndarray] | None = None

    def replay(self, op, sid, home, lo, hi) -> None:
        """Run commands ``op[c]`` (SUB/UNSUB) of subscriptions ``sid[c]``; ``home``,
        ``lo``, ``hi`` are indexed by subscription id.  Fills the per-command counters
        ``sub_msgs``, ``unsub_msgs`` (withdrawals included, as the reference counts
        them), ``withdraw_msgs``, ``cover`` (``(C, 6)``: queries, nodes visited, point
        comparisons on subscribe, then on unsubscribe)."""
        op = np.ascontiguousarray(op, np.int8)
        sid = np.ascontiguousarray(sid, np.int64)
        home = np.ascontiguousarray(home, np.int64)
        n_cmd, n_b = len(op), self.tree.n
        self.n_commands = n_cmd
        self.sub_msgs = np.zeros(n_cmd, np.int64)
        self.unsub_msgs = np.zeros(n_cmd, np.int64)
        self.withdraw_msgs = np.zeros(n_cmd, np.int64)
        self.cover = np.zeros((n_cmd, 6), np.int64)
        cmd_home = home[sid]
        cmd_sign = np.where(op == SUB, 1, -1).astype(np.int64)
        self._cmd_home, self._cmd_sign = cmd_home, cmd_sign
        self.local_end = np.bincount(cmd_home, weights=cmd_sign, minlength=n_b).astype(np.int64)
        if self.covering.floods:  # flooding: every command crosses every link once
            per = max(n_b - 1, 0)
            self.sub_msgs[op == SUB] = per
            self.unsub_msgs[op == UNSUB] = per
            self._deltas = None
            return
        lo = np.asarray(lo, np.float64).reshape(-1, self.d)
        hi = np.asarray(hi, np.float64).reshape(-1, self.d)
        tree = self.tree
        # local commands by broker, in command order
        by_home = np.argsort(cmd_home, kind="stable")
        lptr = np.concatenate([[0], np.cumsum(np.bincount(cmd_home, minlength=n_b))])
        mark = np.zeros(max(int(sid.max(initial=-1)) + 1, len(home)), np.bool_)
        out: list = [None] * tree.n_links  # per link: (command, op, sid, id) of its messages
        # links still to read each link's messages (u -> v is read by every v -> x, x != u):
        # a stream is dropped once read by all, so memory is the streams in flight
        readers = np.diff(tree.ptr)[tree.nbr] - 1
        d_cmd, d_dst, d_sign = [], [], []
        log: list = []  # (parent, src, dst) of each link's messages, when kept
        next_id = 0
        for j in link_order(tree):
            u, v = int(tree.src[j]), int(tree.nbr[j])
            rows = by_home[lptr[u] : lptr[u + 1]]
            parts = [(rows, op[rows], sid[rows], np.full(len(rows), -1, np.int64))]
            for i in tree.links(u):
                if int(tree.nbr[i]) != v and out[tree.rev[i]] is not None:
                    parts.append(out[tree.rev[i]])  # the messages of w -> u
                    readers[tree.rev[i]] -= 1
                    if readers[tree.rev[i]] == 0:
                        out[tree.rev[i]] = None
            c = np.concatenate([p[0] for p in parts])
            if not len(c):
                out[j] = (c, op[:0], sid[:0], c) if readers[j] > 0 else None
                continue
            order = np.argsort(c, kind="stable")  # one source per command: stable
            c = c[order]
            o = np.concatenate([p[1] for p in parts])[order]
            s = np.concatenate([p[2] for p in parts])[order]
            in_id = np.concatenate([p[3] for p in parts])[order]
            cost = np.zeros((len(c), 3), np.int64)
            if self.covering.withdraws:  # G or the poset: the same decisions (GStream's doc)
                g = GStream(self.d, self.covering.index, **self._params)
                row, kind, m_sid = g.run(o, s, lo[s], hi[s], cost)
                m_op = np.where(kind == W_SUB, SUB, UNSUB).astype(np.int8)
                self.withdraw_msgs += np.bincount(c[row[kind == W_WITHDRAW]], minlength=n_cmd)
            else:
                g = GkGraph(self.d, self.covering.k, self.covering.index, **self._params)
                fwd, rf_ptr, rf_sid = g.run_commands(o, s, lo[s], hi[s], cost)
                row, m_op, m_sid = _emit(o, s, fwd, rf_ptr, rf_sid, mark)
            del g
            _add_rows(self.cover, c, cost, o == SUB)
            m_cmd = c[row]
            m_id = np.arange(next_id, next_id + len(row), dtype=np.int64)
            next_id += len(row)
            out[j] = (m_cmd, m_op, m_sid, m_id) if readers[j] > 0 else None
            if self.keep_messages:
                log.append((m_cmd, in_id[row], np.full(len(row), u, np.int32), v))
            is_sub = m_op == SUB
            self.sub_msgs += np.bincount(m_cmd[is_sub], minlength=n_cmd)
            self.unsub_msgs += np.bincount(m_cmd[~is_sub], minlength=n_cmd)
            d_cmd.append(m_cmd.astype(np.int32))  # commands < 2**31 (the schema's sizes)
            d_dst.append(np.full(len(m_cmd), v, np.int32))
            d_sign.append(np.where(is_sub, 1, -1).astype(np.int8))
        if self.keep_messages:  # ids were given in this order
            self.messages = {
                "cmd": np.concatenate([x[0] for x in log] + [np.zeros(0, np.int64)]),
                "parent": np.concatenate([x[1] for x in log] + [np.zeros(0, np.int64)]),
                "src": np.concatenate([x[2] for x in log] + [np.zeros(0, np.int32)]),
                "dst": np.concatenate(
                    [np.full(len(x[0]), x[3], np.int32) for x in log] + [np.zeros(0, np.int32)]
                ),
            }
        cmd = np.concatenate(d_cmd) if d_cmd else np.zeros(0, np.int32)
        order = np.argsort(cmd, kind="stable")
        self._deltas = (
            cmd[order],
            (np.concatenate(d_dst) if d_dst else np.zeros(0, np.int32))[order],
            (np.concatenate(d_sign) if d_sign else np.zeros(0, np.int8))[order],
        )

    def entries_after(self, after: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Mean and max routing entries per broker after each command ``after[e]``;
        also sets the final entries (:meth:`routing_entries`)."""
        after = np.ascontiguousarray(after, np.int64)
        n_b = self.tree.n
        if self._deltas is None:
            mean, mx, held = _flood_sweep(self._cmd_home, self._cmd_sign, n_b, after)
        else:
            mean, mx, held = _entries_sweep(*self._deltas, n_b, after)
        self._held = held
        return mean, mx

    def routing_entries(self) -> np.ndarray:
        """Per broker: routing entries at the end of the stream."""
        if self._held is None:
            self.entries_after(np.zeros(0, np.int64))
        return self._held.copy()

    def local_subscriptions(self) -> np.ndarray:
        """Per broker: its own subscribers' live subscriptions at the end."""
        return self.local_end.copy()

    def stats(self) -> dict[str, int]:
        """The stream's totals under the reference's counter names (``match_*``: what
        the :class:`EventRouter` sharing :attr:`match_cost` counted)."""
        held = self.routing_entries()
        out = {
            "sub_msgs": int(self.sub_msgs.sum()),
            "unsub_msgs": int(self.unsub_msgs.sum()),
            "withdrawals": int(self.withdraw_msgs.sum()),
            "routing_entries": int(held.sum()),
            "routing_entries_max": int(held.max(initial=0)),
            "match_queries": int(self.match_cost[0]),
            "match_nodes_visited": int(self.match_cost[1]),
            "match_point_comparisons": int(self.match_cost[2]),
        }
        c = self.cover.sum(axis=0)
        keys = ("queries", "nodes_visited", "point_comparisons")
        for base, short in ((0, "sub"), (3, "unsub")):
            for i, key in enumerate(keys):
                out[f"covering_{short}_{key}"] = int(c[base + i])
        return out


@numba.njit(cache=True)
def route_event(ptr, nbr, parent, order, home, matched, broker):
    """The reference's depth-first route of an event from ``broker`` given the live
    subscriptions it matches (``matched``, sorted) and their home brokers: a link
    ``b -> v`` is crossed iff a match lives on ``v``'s side.  Returns ``(subscriptions
    reached in the order brokers are visited, hop_from, hop_to)``."""
    n = ptr.shape[0] - 1
    cnt = np.zeros(n, np.int64)
    bucket = np.zeros(n + 1, np.int64)
    for s in matched:
        cnt[home[s]] += 1
        bucket[home[s] + 1] += 1
    for b in range(n):
        bucket[b + 1] += bucket[b]
    fill = bucket[:n].copy()
    by_b = np.empty(matched.shape[0], np.int64)
    for s in matched:  # matched is sorted: each broker's list stays sorted
        by_b[fill[home[s]]] = s
        fill[home[s]] += 1
    total = matched.shape[0]
    for t in range(n - 1, 0, -1):  # subtree counts, leaves first
        x = order[t]
        cnt[parent[x]] += cnt[x]
    subs = np.empty(total, np.int64)
    hop_from = np.empty(max(n - 1, 0), np.int64)
    hop_to = np.empty(max(n - 1, 0), np.int64)
    stack_b = np.empty(n, np.int64)
    stack_f = np.empty(n, np.int64)
    top, m, h = 1, 0, 0
    stack_b[0], stack_f[0] = broker, -1
    while top > 0:
        top -= 1
        b, frm = stack_b[top], stack_f[top]
        for t in range(bucket[b], bucket[b + 1]):
            subs[m] = by_b[t]
            m += 1
        for j in range(ptr[b], ptr[b + 1]):
            v = nbr[j]
            if v == frm:
                continue
            side = cnt[v] if parent[v] == b else total - cnt[b]
            if side > 0:
                hop_from[h], hop_to[h] = b, v
                h += 1
                stack_b[top], stack_f[top] = v, b
                top += 1
    return subs[:m], hop_from[:h], hop_to[:h]


class EventRouter:
    """The live boxes in one covering index, and events routed from them (see the
    module doc): ``subscribe``, ``unsubscribe``, ``publish``; ``match_cost`` counts the
    index's queries, nodes visited and point comparisons."""

    def __init__(
        self,
        tree: Tree,
        d: int,
        home: np.ndarray,
        index: str = "kdtree",
        domain: tuple[float, float] = (0.0, 1023.0),
        match_cost: np.ndarray | None = None,
    ):
        self.tree, self.d = tree, int(d)
        self.home = np.ascontiguousarray(home, np.int64)
        self.parent, _, self.order = rooted(tree)
        params = index_params(index, domain)
        self.index = INDEXES[index](self.d, capacity=max(8, len(home)), **params)
        self.match_cost = np.zeros(3, np.int64) if match_cost is None else match_cost

    def subscribe(self, sid: int, lo, hi) -> None:
        """Subscription ``sid`` (its slot in the index) with box ``[lo, hi]`` is live."""
        p = np.empty(2 * self.d)
        p[0::2] = -np.asarray(lo, np.float64)
        p[1::2] = np.asarray(hi, np.float64)
        self.index.insert(int(sid), p, 1)

    def unsubscribe(self, sid: int) -> None:
        """Subscription ``sid`` is no longer live."""
        self.index.delete(int(sid))

    def publish(self, broker: int, x) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Route the event ``x`` from ``broker`` as :meth:`Forwarding.publish` does."""
        q = event_point(np.asarray(x, np.float64).reshape(self.d))
        matched = np.sort(self.index.query_counted(q, ALL, ALL, True))
        c = self.match_cost
        c[0] += 1
        c[1] += self.index.last[0]
        c[2] += self.index.last[1]
        t = self.tree
        return route_event(t.ptr, t.nbr, self.parent, self.order, self.home, matched, int(broker))
