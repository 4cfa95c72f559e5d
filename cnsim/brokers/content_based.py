"""The content-based (SIENA-style) CN of seed 001: brokers in an acyclic overlay
forward subscriptions towards every possible publisher, pruned by covering, and route
events back along the reverse paths (``[overlay] kind = "content-based"``).

* Overlay: the degree-bounded latency spanning tree of the run's brokers
  (:mod:`cnsim.brokers.spanning`, ``[overlay] degree``).
* Subscribers sit on IP nodes drawn as for Meghdoot
  (:class:`~cnsim.brokers.endpoints.Endpoints`) and attach to their nearest broker
  (fewest IP hops, as publishers do).
* Brokers own their state (:class:`~cnsim.brokers.forwarding.Forwarding`): per link a
  relation graph (``[overlay] covering = "none" | "g1" | "gk" | "poset" | "full"``,
  ``covering_k`` for ``gk``) over a covering index (``covering_index = "naive" |
  "kdtree" | "zorder"``), read once into a
  :class:`~cnsim.brokers.forwarding.Covering`, and the routing tables the neighbours
  forwarded.  A run's subscriptions are subscribed once, in id order, when the network
  is built — by the link-by-link replay of the same protocol wherever it runs
  (:mod:`cnsim.brokers.batch_forwarding`: all but ``G_k`` beyond k = 64; events then
  matched against one index of the boxes and routed over the links the brokers' tables
  would open), else message by message.
* Seed 001's command stream (Shen, Aluru, Tirthapura, "Indexing for Subscription
  Covering in Publish-Subscribe Systems", §V-A): box subscriptions over this overlay
  (``[subscriptions] kind = "box"``, declared in :attr:`ContentBasedCN.streams`) are
  not top-k lists but subscribes and unsubscribes
  (:class:`~cnsim.subscriptions.covering.workload.CommandWorkload`) interleaved with
  point events on the integers ``0 .. 1023``: the network starts empty and the run
  loop applies the commands due before each event (:meth:`ContentBasedCN.apply_commands`,
  the ``joins`` capability).  The batch replay sends the whole stream link by link
  when the network is built and then keeps one index of the live boxes in step; the
  reference brokers send each command's messages when it is applied.

It carries what it can route as a point event: approaches whose events enter at the
publisher and whose message is the event itself — CN-Relax's ``Msg(x, x, -inf, inf)``,
which reaches the ranges ``[l, r]`` holding ``x`` (seed 003 §V; here ``d = 1``).  Paint's
region messages (rectangles of S from the server) and Unicast have no meaning as
content-based events: :attr:`ContentBasedCN.carries` declares it and the scenario
schema rejects them before any work.

Traffic as for Meghdoot: overlay hops (tree links an event crosses), the IP hops under
them (``broker_hops``), and the last IP hop from a subscriber's broker to its node.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np

from cnsim.algorithms.base import ApproachSpec
from cnsim.brokers.base import (
    Delivery,
    Network,
    NetworkSetup,
    Part,
    Paths,
    TimedView,
    Traffic,
)
from cnsim.brokers.batch_forwarding import BatchForwarding, EventRouter
from cnsim.brokers.endpoints import Endpoints, _nearest
from cnsim.brokers.faults import (
    COUNTS,
    Failing,
    FaultSchedule,
    FaultStep,
    LinkSchedule,
    Losses,
)
from cnsim.brokers.forwarding import SUB, Covering, Forwarding
from cnsim.brokers.spanning import Tree, degree_bounded_tree, overlay_tree, tree_of
from cnsim.errors import InputError
from cnsim.network.cache import build_world
from cnsim.network.params import NetworkParams
from cnsim.network.world import World
from cnsim.subscriptions.covering.workload import DOMAIN as STREAM_DOMAIN
from cnsim.subscriptions.covering.workload import SUBSCRIBE, CommandWorkload

DOMAIN = (0.0, 1.0)  # seed 003's S: l, r and x in [0, 1]
ENGINES = ("auto", "batch", "reference")  # how subscriptions are replayed (NetworkSetup)
#: what a command stream's commands cost, in the order of the batch replay's counters
COMMAND_COUNTERS = (
    "sub_msgs", "unsub_msgs", "withdrawals",
    "covering_sub_queries", "covering_sub_nodes_visited", "covering_sub_point_comparisons",
    "covering_unsub_queries", "covering_unsub_nodes_visited",
    "covering_unsub_point_comparisons",
)  # fmt: skip
#: what matching an event costs the brokers (or the batch replay's one index)
MATCH_COUNTERS = ("match_queries", "match_nodes_visited", "match_point_comparisons")


@dataclass(frozen=True)
class TreeOverlay:
    """The fixed part of a content-based overlay: the run's world, the spanning tree of
    its brokers, the endpoints, every subscriber's home broker and the last IP hops
    from it (the same for seed 003's ranges and seed 001's command stream)."""

    world: World
    tree: Tree
    endpoints: Endpoints
    home: np.ndarray  # (m,) nearest broker of each subscriber's node
    last_hop: np.ndarray  # (m,) IP hops from it to the node

    @classmethod
    def build(
        cls, network: NetworkParams, degree: int, n_subscribers: int, n_events: int, seeds,
        part: Part | None = None,
    ) -> TreeOverlay:  # fmt: skip
        """The world (cached), its degree-bounded latency spanning tree, and endpoints
        for ``n_subscribers`` and ``n_events`` (no server: events enter at publishers;
        ``part``: the nodes drawn for all its ``total`` subscribers, its own kept)."""
        world = build_world(network)
        tree = overlay_tree(world, degree)
        if part is None:
            endpoints = Endpoints.place(world, -1, n_subscribers, n_events, seeds)
        else:
            endpoints = Endpoints.place(world, -1, part.total, n_events, seeds)
            endpoints = replace(endpoints, subscriber_node=endpoints.subscriber_node[part.ids])
        home = _nearest(world, endpoints.subscriber_node).astype(np.int64)
        last_hop = world.last_hops(home, endpoints.subscriber_node).astype(np.int64)
        return cls(world, tree, endpoints, home, last_hop)

    def forwarding(
        self, d: int, covering: Covering, domain: tuple[float, float], batch: bool
    ) -> Forwarding | BatchForwarding:
        """Empty brokers over boxes of ``d`` attributes in ``domain``: the link-by-link
        replay (``batch``) or the reference, message by message."""
        cls = BatchForwarding if batch else Forwarding
        return cls(self.tree, d, covering, domain)


class ContentBasedCN(Failing, Network):
    """Point events routed over a spanning tree of brokers whose routing tables were
    filled by covering-pruned subscription forwarding."""

    kind = "content-based"
    #: (entry, message) pairs it can carry: events published as points; ranked delivery
    #: on per-neighbour score bounds (cnsim.brokers.ranked_content)
    carries: ClassVar[frozenset[tuple[str, str]]] = frozenset(
        {("publisher", "region"), ("publisher", "ranked")}
    )
    #: the subscription kinds it runs as seed 001's command stream: boxes that come
    #: and go (:attr:`NetworkSetup.commands`), events as points
    streams: ClassVar[frozenset[str]] = frozenset({"box"})
    joins = True  # a command stream's subscribes and unsubscribes, between events
    fails = True  # brokers leave the tree and come back (TreeFaults)
    churns = True  # the run's subscriptions join and leave (the reference brokers)
    # a run spread over Spark tasks: built over a part of the subscriptions, its brokers'
    # tables hold that part's alone, so an event goes to the part's matching
    # subscriptions; the run's hops are the union of the parts' (an event crosses a link
    # exactly when some subscription beyond it matches: covering keeps that); what
    # keeping the tables costs it leaves to the run (counts_tables)
    partitions = True
    routes_own = True

    def __init__(
        self, overlay: TreeOverlay, covering: Covering, d: int, domain, batch: bool,
        keep_messages: bool = False,
    ):  # fmt: skip
        self.overlay, self.covering, self.domain = overlay, covering, domain
        self.tree, self.world, self.endpoints = overlay.tree, overlay.world, overlay.endpoints
        self.home, self.last_hop = overlay.home, overlay.last_hop
        # the batch replay of the same protocol where it runs, and events routed from
        # one index of the boxes (cnsim.brokers.batch_forwarding)
        self.batch = batch
        self.forwarding = overlay.forwarding(d, covering, domain, batch)
        self.forwarding.keep_messages = keep_messages
        self.router: Forwarding | EventRouter = self.forwarding
        if batch:
            self.router = EventRouter(
                self.tree, d, self.home, covering.index, domain, self.forwarding.match_cost
            )
        self.commands: CommandWorkload | None = None
        self.faults: TreeFaults | None = None  # brokers that fail ([faults])
        self.ranges: tuple[np.ndarray, np.ndarray] | None = None  # the subscriptions
        self._tree_id: np.ndarray | None = None  # with faults: each broker's in the tree
        self._sent = 0  # subscription messages sent so far (churn_messages)
        # with faults: every event's publisher's nearest broker when all are up (Failing)
        self._publisher_broker: np.ndarray | None = None
        nodes = self.endpoints.subscriber_node
        latency_ms = np.asarray(self.world.node_latency)[self.home, nodes]
        self.last_hop_latency_s = latency_ms.astype(np.float64) / 1000.0
        self.handled: dict[str, np.ndarray] = {}
        # what keeping the tables costs (the forwarding of joins and leaves, what a
        # rebuild after failures sends) is counted: not by brokers built over a part of
        # the subscriptions, whose tables covering prunes by that part alone (a spread
        # run counts it over every subscription, in one task)
        self.counts_tables = True

    @classmethod
    def create(cls, setup: NetworkSetup, subscriptions) -> ContentBasedCN:
        """The run's tree overlay and its brokers: every subscription forwarded from its
        subscriber's broker (``subscriptions``), or, for a command stream
        (:attr:`NetworkSetup.commands`), the brokers its commands will fill; and the
        brokers' ranked delivery when a ranked approach runs."""
        covering, engine, stream = setup.covering, setup.engine, setup.commands
        if engine not in ENGINES:  # before any work
            raise InputError(f"engine {engine!r} is not one of {', '.join(ENGINES)}")
        if engine == "batch" and not covering.batched:
            raise InputError(
                f"engine 'batch' replays covering none, g1, gk (k <= 64), full and poset, "
                f"not {covering.describe()}"
            )
        batch = engine == "batch" or (engine == "auto" and covering.batched)
        # brokers that fail, subscriptions that come and go: the reference brokers, whose
        # routing tables a repair compares and which subscribe and unsubscribe one by one
        batch = batch and setup.faults is None and setup.present is None
        m = len(subscriptions) if stream is None else len(stream.stream)
        overlay = TreeOverlay.build(setup.network, setup.degree, m, setup.n_events, setup.seeds,
                                    setup.part)  # fmt: skip
        if stream is not None:
            cn = cls(overlay, covering, stream.stream.d, STREAM_DOMAIN, batch, setup.timed)
            cn._stream(stream)
            return cn
        cn = cls(overlay, covering, 1, DOMAIN, batch)
        cn.counts_tables = setup.part is None
        cn._subscribe_all(subscriptions.l, subscriptions.r, setup.present)
        if setup.faults is not None:
            n = overlay.world.n_brokers
            rng = setup.seeds.rng("faults")
            schedule = FaultSchedule.draw(setup.faults, n, -1, setup.n_events, rng)
            links = LinkSchedule.draw(setup.faults, setup.n_events, rng)
            cn.faults = TreeFaults(cn, setup.faults, schedule, links, setup.subscription_bytes,
                                   setup.degree)  # fmt: skip
            cn._publisher_broker = overlay.endpoints.nearest_broker.copy()  # all up
            cn._tree_id = np.arange(n)
        if setup.ranked is not None:
            from cnsim.brokers.ranked_content import RankedTreeOverlay

            l, r = subscriptions.l, subscriptions.r
            cn.ranked = RankedTreeOverlay.create(
                setup.ranked, l, r, cn.home, overlay.tree, overlay.world, setup.seeds,
                setup.n_events,
            )  # fmt: skip
        return cn

    def _subscribe_all(self, lo: np.ndarray, hi: np.ndarray, present: int | None) -> None:
        """Subscribe every range ``[lo, hi]`` (the first ``present``: the others join
        later), in id order, at its subscriber's broker."""
        self.ranges = (lo, hi)
        f, m = self.forwarding, len(lo) if present is None else present
        if self.batch:
            f.replay(np.full(m, SUB, np.int8), np.arange(m), self.home, lo, hi)
            for sid in range(m):
                self.router.subscribe(sid, lo[sid : sid + 1], hi[sid : sid + 1])
        else:
            for sid in range(m):
                f.subscribe(sid, self.home[sid], lo[sid], hi[sid])
            self._sent = f.sub_msgs + f.unsub_msgs  # the joins' and leaves' come after

    def _stream(self, commands: CommandWorkload) -> None:
        """Take a command stream: the batch replay sends every command's messages link
        by link now (counters per command, routing entries after each event's last
        command); the reference brokers send them when :meth:`apply_commands` says."""
        self.commands = commands
        f, st = self.forwarding, commands.stream
        if self.batch:
            f.replay(st.op, st.sid, self.home, st.lo, st.hi)
            self._entries = f.entries_after(commands.after)
            per_cmd = np.column_stack([f.sub_msgs, f.unsub_msgs, f.withdraw_msgs, f.cover])
            self._cum = np.vstack(
                [np.zeros((1, per_cmd.shape[1]), np.int64), np.cumsum(per_cmd, axis=0)]
            )

    def apply_commands(self, first: int, stop: int) -> dict[str, float]:
        """Issue commands ``first .. stop - 1`` at their subscribers' brokers; what
        their messages and covering queries cost (see Network.apply_commands)."""
        st = self.commands.stream
        if not self.batch:
            f = self.forwarding
            before = f.stats()
            for i in range(first, stop):
                s = int(st.sid[i])
                if st.op[i] == SUBSCRIBE:
                    f.subscribe(s, self.home[s], st.lo[s], st.hi[s])
                else:
                    f.unsubscribe(s)
            now = f.stats()
            return {c: now[c] - before[c] for c in COMMAND_COUNTERS}
        for i in range(first, stop):
            s = int(st.sid[i])
            if st.op[i] == SUBSCRIBE:
                self.router.subscribe(s, st.lo[s], st.hi[s])
            else:
                self.router.unsubscribe(s)
        diff = self._cum[stop] - self._cum[first]
        return {c: int(v) for c, v in zip(COMMAND_COUNTERS, diff.tolist(), strict=True)}

    def joins_summary(self) -> dict:
        """The command stream's totals: the tree, every counter over the whole stream
        and the routing entries at its end."""
        f = self.forwarding
        held = f.routing_entries()
        return {
            "tree_degree_max": int(self.tree.degree().max(initial=0)),
            "totals": f.stats(),
            "routing_entries_per_broker_mean": float(held.mean()),
            "routing_entries_per_broker_max": int(held.max(initial=0)),
        }

    def subscription_messages(self) -> dict[str, np.ndarray] | None:
        """Every subscription message of the batch replay (``dst`` broker, the
        ``parent`` message whose processing sent it or -1 from the home broker, its
        ``cmd``), or None when subscriptions flood the tree."""
        return None if self.covering.floods else self.forwarding.messages

    def timed_view(self) -> TimedView:
        """Every broker its own zone; a subscription delivered by its home broker."""
        owner = np.arange(self.world.n_brokers)
        return TimedView(owner, self.home, self.last_hop_latency_s, self.world)

    def deliver(self, approach, messages, update_events, servers=None):  # see Network.deliver
        """Publish every message's point ``x`` at its publisher's broker and route it."""
        assert (approach.entry, approach.message) in self.carries, approach
        handled = self.handled.setdefault(approach.name, np.zeros(self.world.n_brokers, np.int64))
        if approach.message == "ranked":  # cnsim.brokers.ranked_content
            source = self.endpoints.entry_brokers(approach, update_events).astype(np.int64)
            return self.ranked.deliver(messages, source, self.last_hop, handled, update_events)
        # CN-Relax's point event: Msg(x, x, -inf, inf) on every attribute reaches exactly
        # the boxes holding x (not asserted here: the check took 12 us of an event's ~50)
        points = messages.rects[:, 1::4]
        source = self.endpoints.entry_brokers(approach, update_events).astype(np.int64)
        # where each event enters the routing (with faults: a broker up, by tree id)
        start = source if self.faults is None else self._tree_id[source]
        offsets = np.zeros(len(messages) + 1, np.int64)
        hop_ptr = np.zeros(len(messages) + 1, np.int64)
        subs, hop_from, hop_to = [], [], []
        match_before = self.forwarding.match_cost.copy()
        for m in range(len(messages)):
            s, f, t = self.router.publish(start[m], points[m])
            if self.faults is not None:  # tree ids to brokers
                f, t = self.faults.brokers[f], self.faults.brokers[t]
            subs.append(s)
            hop_from.append(f)
            hop_to.append(t)
            offsets[m + 1] = offsets[m] + len(s)
            hop_ptr[m + 1] = hop_ptr[m] + len(f)
        empty = np.empty(0, np.int64)
        subs_a = np.concatenate(subs) if subs else empty
        frm = np.concatenate(hop_from) if hop_from else empty
        to = np.concatenate(hop_to) if hop_to else empty
        np.add.at(handled, to, 1)
        np.add.at(handled, source, 1)
        costs = self._event_costs(match_before, update_events)
        if self.faults is not None:
            costs["lost_msgs"] = self._lost(approach.name, points)
        traffic = Traffic(
            overlay_hops=int(len(frm)),
            ip_hops=int(self.world.broker_hops[frm, to].sum(dtype=np.int64)),
            last_hop_ip_hops=int(self.last_hop[subs_a].sum()),
            paths=Paths(source, hop_ptr, frm, to),
            costs=costs,
        )
        return Delivery.of(messages, offsets, subs_a), traffic

    def _lost(self, name: str, points: np.ndarray) -> int:
        """The deliveries the events at ``points`` would have made to the lost
        subscriptions (marked missed under approach ``name``)."""
        if not self.faults.n_lost:
            return 0
        lost = np.flatnonzero(self.faults.lost)
        lo, hi = self.ranges[0][lost], self.ranges[1][lost]
        hits = [lost[(lo <= x) & (x <= hi)] for x in points[:, 0].tolist()]
        hit = np.concatenate(hits)
        self.faults.drop(name, hit)
        return len(hit)

    def set_alive(self, ids: np.ndarray, alive: bool) -> None:
        """Subscriptions ``ids`` subscribe at (or unsubscribe from) their subscribers'
        brokers, forwarded over the tree as covering prunes it. One not yet subscribed
        that leaves (the run's first call, for those joining later) sends nothing."""
        f = self.forwarding
        lo, hi = self.ranges
        for sid in np.asarray(ids, np.int64).tolist():
            live = sid < len(f.home) and f.home[sid] >= 0
            if alive and not live:
                f.subscribe(sid, self.home[sid], lo[sid], hi[sid])
            elif not alive and live:
                f.unsubscribe(sid)

    def churn_messages(self) -> int:
        """Subscription and unsubscription messages the joins and leaves since the last
        call forwarded between brokers."""
        sent = self.forwarding.sub_msgs + self.forwarding.unsub_msgs
        new, self._sent = sent - self._sent, sent
        return int(new) if self.counts_tables else 0

    def use(self, forwarding: Forwarding, tree: Tree) -> None:
        """Route over ``tree`` (of the brokers up) and ``forwarding``'s tables from now."""
        self.forwarding = self.router = forwarding
        self.tree = tree
        self._tree_id = np.full(self.world.n_brokers, -1, np.int64)
        self._tree_id[self.faults.brokers] = np.arange(len(self.faults.brokers))

    def rehome(self, subs: np.ndarray, brokers: np.ndarray) -> None:
        """Subscriptions ``subs`` are held by ``brokers`` from now (re-subscribed)."""
        nodes = self.endpoints.subscriber_node[subs]
        self.home[subs] = brokers
        self.last_hop[subs] = self.world.last_hops(brokers, nodes)
        latency_ms = np.asarray(self.world.node_latency)[brokers, nodes]
        self.last_hop_latency_s[subs] = latency_ms.astype(np.float64) / 1000.0

    def join_ip_hops(self, ids: np.ndarray, entry: str) -> np.ndarray:
        """The last hop from each subscriber's broker (no server here)."""
        return self.last_hop[ids].astype(np.int64)

    def publish_ip_hops(self, approach: ApproachSpec, first: int, stop: int) -> int:
        """IP hops of events ``first .. stop - 1`` from their publishers to their broker."""
        return self.endpoints.publish_ip_hops(approach, first, stop)

    def _event_costs(self, match_before: np.ndarray, update_events) -> dict[str, int]:
        """A command stream's event (one per batch): what matching it cost and the
        routing entries per broker it met; nothing for a run without commands."""
        if self.commands is None:
            return {}
        match = (self.forwarding.match_cost - match_before).tolist()
        costs = dict(zip(MATCH_COUNTERS, match, strict=True))
        if self.batch:
            mean, mx = self._entries
            e = int(update_events[0])
            return {**costs, "routing_entries_mean": float(mean[e]),
                    "routing_entries_max": int(mx[e])}  # fmt: skip
        held = self.forwarding.entries
        return {**costs, "routing_entries_mean": float(held.mean()),
                "routing_entries_max": int(held.max(initial=0))}  # fmt: skip

    def broker_load(self) -> dict[str, np.ndarray]:
        """Per broker: subscriptions held (routing entries plus its own subscribers'),
        and messages handled per approach."""
        f = self.forwarding
        held = f.routing_entries() + f.local_subscriptions()
        if self.faults is not None:  # the tree's brokers; a failed one holds nothing
            full = np.zeros(self.world.n_brokers, np.int64)
            full[self.faults.brokers] = held
            held = full
        return {"subscriptions_held": held, **self.handled}


class TreeFaults(Losses):
    """Brokers of the content-based overlay that fail and come back (``[faults]``).

    A failed broker leaves the overlay: the degree-bounded latency tree is built anew
    over the brokers up (as :func:`~cnsim.brokers.spanning.overlay_tree` builds it over
    all), and the brokers forward the subscriptions they hold over it again, pruned by
    the same covering (the reference brokers, message by message). What the repair
    sends is what the new routing tables hold that the old ones on the same link did
    not: per directed link of the new tree, the subscriptions forwarded anew (a link
    the old tree lacked: all it holds) — so a covering setting's repair cost stands
    beside flooding's (``overlay.covering = "none"``). The failed broker's own
    subscribers are lost until they notice (``detection`` events later) and re-subscribe
    at the broker up nearest their node; a repaired broker rejoins the tree empty.
    Events published at a failed broker enter at the broker up nearest the publisher.
    A failed link of the tree (``faults.link_rate``) is left out of the trees built
    until it is back; its brokers stay up, so nobody is lost — only the repair is sent.
    """

    def __init__(self, net: ContentBasedCN, section, schedule: FaultSchedule,
                 links: LinkSchedule, subscription_bytes: int, degree: int):  # fmt: skip
        Losses.__init__(self, len(net.home), section["detection"])
        self.net, self.schedule, self.links, self.degree = net, schedule, links, degree
        self.subscription_bytes = subscription_bytes
        self.up = np.ones(net.world.n_brokers, bool)
        self.brokers = np.arange(net.world.n_brokers)  # the tree's brokers, by tree id
        self.sets = _link_sets(net.forwarding, self.brokers)
        self.edges = net.tree.edges()  # the tree's links (u < v, brokers), in order
        self.cut: dict[tuple[int, int], int] = {}  # failed links: the event they are back

    def step(self, first: int, stop: int) -> FaultStep:
        """Re-subscriptions due, repairs, failures; the tree and its routing tables
        built anew if any."""
        counts = dict.fromkeys(COUNTS, 0)
        resubscribing = self.noticed(first)
        counts["resubscriptions"] = len(resubscribing)
        failing, repaired = self.schedule.due(first, stop)
        self.up[repaired] = True
        self.up[failing] = False
        if len(failing):
            homed = np.isin(self.net.home, failing) & ~self.lost
            self.lose(np.flatnonzero(homed), first)
        if len(resubscribing):  # at the broker up nearest each subscriber
            self.net.rehome(resubscribing, self.nearest_up(
                self.net.endpoints.subscriber_node[resubscribing]))  # fmt: skip
        counts["failures"], counts["repairs"] = len(failing), len(repaired)
        if len(failing) or len(repaired):  # events enter at a broker up
            self.net.route_publishers(self.up, first)
        links_changed = self._links(first, stop, counts)
        if len(failing) or len(repaired) or len(resubscribing) or links_changed:
            counts.update(self._rebuild())
        counts["lost_subs"] = self.n_lost
        return FaultStep(counts, resubscribing)

    def _links(self, first: int, stop: int, counts: dict[str, int]) -> bool:
        """Links due back leave the cut ones; links due to fail join them (each the
        link of today's tree its draw picks); whether any did."""
        back = [link for link, at in self.cut.items() if at < stop]
        for link in back:
            del self.cut[link]
        s = self.links
        due = np.flatnonzero((s.fail_at >= first) & (s.fail_at < stop))
        for f in due.tolist():
            open_ = [tuple(e) for e in self.edges.tolist() if tuple(e) not in self.cut]
            if not open_:
                continue
            link = open_[min(int(s.pick[f] * len(open_)), len(open_) - 1)]
            self.cut[link] = first + int(min(s.repair_after[f], 2**62))
            counts["link_failures"] += 1
        return bool(back) or counts["link_failures"] > 0

    def nearest_up(self, nodes: np.ndarray) -> np.ndarray:
        """The broker up with the fewest IP hops to each of ``nodes``."""
        up = np.flatnonzero(self.up)
        return up[self.net.world.hops_from_brokers(nodes)[up].argmin(axis=0)]

    def _rebuild(self) -> dict[str, int]:
        """The tree over the brokers up, every subscription not lost forwarded over it
        from its broker; what the new routing tables hold anew, per directed link."""
        net, up = self.net, np.flatnonzero(self.up)
        tree_id = np.full(len(self.up), -1, np.int64)
        tree_id[up] = np.arange(len(up))
        latency = np.asarray(net.world.broker_latency, np.float64)[np.ix_(up, up)]
        for u, v in self.cut:  # a failed link is no tree edge while others remain
            if self.up[u] and self.up[v]:
                latency[tree_id[u], tree_id[v]] = latency[tree_id[v], tree_id[u]] = np.inf
        tree = tree_of(degree_bounded_tree(latency, self.degree), len(up))
        f = Forwarding(tree, 1, net.covering, net.domain)
        lo, hi = net.ranges
        for sid in np.flatnonzero(~self.lost).tolist():
            f.subscribe(sid, int(tree_id[net.home[sid]]), lo[sid], hi[sid])
        sets = _link_sets(f, up)
        fresh = {link: len(s - self.sets.get(link, set())) for link, s in sets.items()}
        hops = net.world.broker_hops
        moved = sum(fresh.values())
        ip = sum(n * int(hops[u, v]) for (u, v), n in fresh.items())
        self.sets, self.brokers = sets, up
        self.edges = np.sort(up[tree.edges()], axis=1)
        self.edges = self.edges[np.lexsort((self.edges[:, 1], self.edges[:, 0]))]
        net.use(f, tree)
        if not net.counts_tables:  # a spread run's part: the run counts them
            moved = ip = 0
        b = self.subscription_bytes
        return {"moved_msgs": moved, "moved_bytes": moved * b, "moved_ip_bytes": ip * b}


def _link_sets(f: Forwarding, brokers: np.ndarray) -> dict[tuple[int, int], set[int]]:
    """The routing table of every directed link of ``f``'s tree, by the (global) brokers
    it joins (``brokers``: the global id of every tree broker)."""
    tree = f.tree
    return {
        (int(brokers[tree.src[j]]), int(brokers[tree.nbr[j]])): set(t.sids().tolist())
        for j, t in enumerate(f.tables)
        if t is not None and len(t)
    }
