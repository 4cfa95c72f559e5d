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
* The world, tree, endpoints and homes are a :class:`TreeOverlay`, which seed 001's
  command stream (:mod:`cnsim.simulations.churn`) builds the same way: box
  subscriptions over this overlay (``[subscriptions] kind = "box"``, declared in
  :attr:`ContentBasedCN.streams`) are that stream, not top-k lists.

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

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from cnsim.algorithms.base import ApproachSpec
from cnsim.brokers.base import Delivery, Network, NetworkSetup, Paths, TimedView, Traffic
from cnsim.brokers.batch_forwarding import BatchForwarding, EventRouter
from cnsim.brokers.endpoints import Endpoints, _nearest
from cnsim.brokers.forwarding import SUB, Covering, Forwarding
from cnsim.brokers.spanning import Tree, overlay_tree
from cnsim.network.cache import build_world
from cnsim.network.params import NetworkParams
from cnsim.network.world import World
from cnsim.subscriptions.index import SubscriptionIndex

DOMAIN = (0.0, 1.0)  # seed 003's S: l, r and x in [0, 1]


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
        cls, network: NetworkParams, degree: int, n_subscribers: int, n_events: int, seeds
    ) -> TreeOverlay:
        """The world (cached), its degree-bounded latency spanning tree, and endpoints
        for ``n_subscribers`` and ``n_events`` (no server: events enter at publishers)."""
        world = build_world(network)
        tree = overlay_tree(world, degree)
        endpoints = Endpoints.place(world, -1, n_subscribers, n_events, seeds)
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


class ContentBasedCN(Network):
    """Point events routed over a spanning tree of brokers whose routing tables were
    filled by covering-pruned subscription forwarding."""

    kind = "content-based"
    #: (entry, message) pairs it can carry: events published as points; ranked delivery
    #: on per-neighbour score bounds (cnsim.brokers.ranked_content)
    carries: ClassVar[frozenset[tuple[str, str]]] = frozenset(
        {("publisher", "region"), ("publisher", "ranked")}
    )
    #: the subscription kinds it runs as seed 001's command stream
    #: (:mod:`cnsim.simulations.churn`): boxes that come and go, events as points
    streams: ClassVar[frozenset[str]] = frozenset({"box"})

    def __init__(self, subscriptions: SubscriptionIndex, overlay: TreeOverlay, covering: Covering):
        self.overlay = overlay
        self.tree, self.world, self.endpoints = overlay.tree, overlay.world, overlay.endpoints
        self.home, self.last_hop = overlay.home, overlay.last_hop
        lo, hi = subscriptions.l, subscriptions.r
        # the batch replay of the same protocol where it runs, and events routed from
        # one index of the boxes (cnsim.brokers.batch_forwarding)
        self.batch = covering.batched
        self.forwarding = overlay.forwarding(1, covering, DOMAIN, self.batch)
        if self.batch:
            m = len(lo)
            self.forwarding.replay(np.full(m, SUB, np.int8), np.arange(m), self.home, lo, hi)
            self.router = EventRouter(
                self.tree, 1, self.home, match_cost=self.forwarding.match_cost
            )
            for sid in range(m):
                self.router.subscribe(sid, lo[sid : sid + 1], hi[sid : sid + 1])
        else:
            for sid in range(len(lo)):
                self.forwarding.subscribe(sid, self.home[sid], lo[sid], hi[sid])
            self.router = self.forwarding
        self.setup = self.forwarding.stats()  # what subscribing the run cost
        nodes = self.endpoints.subscriber_node
        latency_ms = np.asarray(self.world.node_latency)[self.home, nodes]
        self.last_hop_latency_s = latency_ms.astype(np.float64) / 1000.0
        self.held = self.forwarding.routing_entries() + self.forwarding.local_subscriptions()
        self.handled: dict[str, np.ndarray] = {}

    @classmethod
    def create(cls, setup: NetworkSetup, subscriptions) -> ContentBasedCN:
        """The run's tree overlay, every subscription forwarded from its subscriber's
        broker, and the brokers' ranked delivery when a ranked approach runs."""
        overlay = TreeOverlay.build(
            setup.network, setup.degree, len(subscriptions), setup.n_events, setup.seeds
        )
        cn = cls(subscriptions, overlay, setup.covering)
        if setup.ranked is not None:
            from cnsim.brokers.ranked_content import RankedTreeOverlay

            l, r = subscriptions.l, subscriptions.r
            cn.ranked = RankedTreeOverlay.create(
                setup.ranked, l, r, cn.home, overlay.tree, overlay.world, setup.seeds,
                setup.n_events,
            )  # fmt: skip
        return cn

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
        r = messages.rects
        # a point event: Msg(x, x, -inf, inf) reaches exactly the ranges holding x
        assert (np.isneginf(r[:, 0]) & (r[:, 1] == r[:, 2]) & np.isposinf(r[:, 3])).all()
        source = self.endpoints.entry_brokers(approach, update_events).astype(np.int64)
        offsets = np.zeros(len(messages) + 1, np.int64)
        hop_ptr = np.zeros(len(messages) + 1, np.int64)
        subs, hop_from, hop_to = [], [], []
        for m in range(len(messages)):
            s, f, t = self.router.publish(source[m], r[m, 1])
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
        traffic = Traffic(
            overlay_hops=int(len(frm)),
            ip_hops=int(self.world.broker_hops[frm, to].sum(dtype=np.int64)),
            last_hop_ip_hops=int(self.last_hop[subs_a].sum()),
            paths=Paths(source, hop_ptr, frm, to),
        )
        return Delivery.of(messages, offsets, subs_a), traffic

    def publish_ip_hops(self, approach: ApproachSpec, first: int, stop: int) -> int:
        """IP hops of events ``first .. stop - 1`` from their publishers to their broker."""
        return self.endpoints.publish_ip_hops(approach, first, stop)

    def broker_load(self) -> dict[str, np.ndarray]:
        """Per broker: subscriptions held (routing entries plus its own subscribers'),
        and messages handled per approach."""
        return {"subscriptions_held": self.held, **self.handled}
