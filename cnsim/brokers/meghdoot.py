"""The Meghdoot-style CN (seed 003 §V "Network setup"): CAN zones over the
subscription space, each owned by a broker on an IP node; a message is routed from
its source zone to every zone its rectangle meets, and each of those zones' brokers
(the *gateway brokers*) delivers it to the subscriptions it holds inside the
rectangle (:class:`~cnsim.brokers.gateways.Gateways`), over a last IP hop to each
subscriber's node.

Traffic is counted in message-hops; the metrics weigh them by message sizes:

* overlay hops: broker-to-broker overlay links travelled;
* IP hops: the IP links under those overlay links (``broker_hops``);
* last-hop IP hops: gateway broker to subscriber node, per delivery.

Targeted (unicast) messages go from the server straight to the gateway broker over
IP: one overlay link (none when the server is the gateway) of ``broker_hops`` IP hops.

With ``[server] count > 1`` (seed 003 appendix C) the servers sit at distinct brokers
(:meth:`MeghdootCN.place_servers`) and every message leaves from the zone of the
broker of the server that generated it, region and targeted messages alike.

S is the subscription kind's (:mod:`cnsim.subscriptions.kinds`): it declares
``lower_open`` (which dimensions are subscriptions' lower bounds, reached as
``lO < p <= lI``) and ``ordered`` (the (lower, upper) pairs with lower <= upper, where
joining brokers draw their points); the run's subscription index gives the
``points``. Zones, routing and gateway stores are those of any D
(:mod:`cnsim.brokers.zones`, :mod:`cnsim.brokers.routing`,
:mod:`cnsim.brokers.gateways`).

Ranked events (approach ``ranked``) reach the k best-scoring matching
subscriptions of the whole network; the zones keep score bounds and answer them as
:class:`~cnsim.brokers.ranked.RankedOverlay` describes (built only when a ranked
approach runs).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from cnsim.algorithms.base import ApproachSpec
from cnsim.algorithms.messages import Messages
from cnsim.brokers.base import (
    ALL_CARRIED,
    Delivery,
    Network,
    NetworkSetup,
    Paths,
    TimedView,
    Traffic,
)
from cnsim.brokers.endpoints import Endpoints, diagonal_servers
from cnsim.brokers.faults import Failing, FaultSchedule, FaultState
from cnsim.brokers.gateways import Gateways
from cnsim.brokers.routing import route
from cnsim.brokers.zones import Zones, build_zones
from cnsim.network.cache import build_world
from cnsim.network.world import World
from cnsim.schema import config_error


def _zones(setup: NetworkSetup, n_brokers: int, points) -> Zones:
    """The CAN zones ``n_brokers`` brokers make joining S one by one (``setup.split``;
    ``points``: the subscriptions a load split balances)."""
    return build_zones(
        n_brokers,
        setup.split,
        setup.seeds.rng("zones"),
        points=points,
        lower_open=setup.kind.lower_open,
        ordered=setup.kind.ordered,
    )


class MeghdootCN(Failing, Network):
    """Delivery over CAN zones and an IP network; per-broker load is accumulated."""

    kind = "meghdoot"
    churns = True  # a gateway takes and drops subscriptions of its zone in place
    fails = True  # a neighbour takes a failed broker's zones over (cnsim/brokers/faults.py)
    partitions = True  # a part of the subscriptions, by gateway zone: its zones deliver
    carries = ALL_CARRIED | {("publisher", "ranked")}  # ranked delivery: zone score bounds

    def __init__(self, subscriptions, zones: Zones, world: World, endpoints: Endpoints):
        self.zones = zones
        self.world = world
        self.endpoints = endpoints
        points = np.stack(subscriptions.points, axis=1)
        self.gateway_zone = zones.zone_of(points).astype(np.int32)  # 4 bytes a subscription
        self.gateway = zones.owner[self.gateway_zone].astype(np.int32)
        self.gateways = Gateways(points, self.gateway_zone, zones.n_zones, zones.lower_open)
        nodes = endpoints.subscriber_node
        self.last_hop = world.last_hops(self.gateway, nodes).astype(np.int64)
        # the same in the gateways' order (the layout), read once per delivery
        self._last_hop_at = self.last_hop[self.gateways.ids].astype(np.int32)
        latency_ms = np.asarray(world.node_latency)[self.gateway, nodes]
        self.last_hop_latency_s = latency_ms.astype(np.float64) / 1000.0
        self.held = np.zeros(world.n_brokers, np.int64)  # what each broker's store holds
        self.held[zones.owner] = self.gateways.held()
        self.present = np.ones(len(points), bool)  # subscribed now ([churn])
        self._replica_msgs = 0  # replica updates of joins and leaves (churn_messages)
        # with faults: every event's publisher's nearest broker when all are up (Failing)
        self._publisher_broker: np.ndarray | None = None
        self.faults: FaultState | None = None  # brokers that fail ([faults])
        self.server = zones.server
        self.zone_of_broker = np.empty(zones.n_zones, np.int64)
        self.zone_of_broker[zones.owner] = np.arange(zones.n_zones)
        self.handled: dict[str, np.ndarray] = {}

    @classmethod
    def create(cls, setup: NetworkSetup, subscriptions) -> MeghdootCN:
        """The run's world (cached), zones of the subscriptions' S joined by its brokers,
        endpoints, and the zones' ranked delivery when a ranked approach runs."""
        world = build_world(setup.network)
        seeds, n_events, part = setup.seeds, setup.n_events, setup.part
        if part is None:
            zones = _zones(setup, world.n_brokers, subscriptions.points)
            endpoints = Endpoints.place(world, zones.server, len(subscriptions), n_events, seeds)
        else:  # zones planned over every subscription, the nodes of this part's
            zones = part.zones
            endpoints = Endpoints.place(world, zones.server, part.total, n_events, seeds)
            endpoints = replace(endpoints, subscriber_node=endpoints.subscriber_node[part.ids])
        if setup.faults is not None:  # who owns a zone, where events enter: arrays of its own
            zones = replace(zones, owner=zones.owner.copy())
            endpoints = replace(endpoints, nearest_broker=endpoints.nearest_broker.copy())
        cn = cls(subscriptions, zones, world, endpoints)
        if setup.faults is not None:
            server = zones.server
            if server in setup.faults["brokers"]:
                raise config_error(
                    "", "faults.brokers", list(setup.faults["brokers"]),
                    f"names broker {server}, the server's, which does not fail",
                    f"brokers other than {server} (the broker at the centre of S, this "
                    "network's server)",
                )  # fmt: skip
            schedule = FaultSchedule.draw(
                setup.faults, world.n_brokers, server, n_events, seeds.rng("faults")
            )
            cn.faults = FaultState(cn, setup.faults, schedule, setup.subscription_bytes)
            cn._publisher_broker = endpoints.nearest_broker.copy()  # when all are up
        if setup.ranked is not None:
            from cnsim.brokers.ranked import RankedOverlay

            l, r = subscriptions.l, subscriptions.r
            cn.ranked = RankedOverlay.create(setup.ranked, l, r, zones, world, seeds, n_events)
        return cn

    @classmethod
    def plan_zones(cls, setup: NetworkSetup, points: np.ndarray) -> Zones:
        """The zones of S over the subscriptions' ``points`` (what a partitioned run
        splits them by)."""
        return _zones(setup, build_world(setup.network).n_brokers, points)

    def timed_view(self) -> TimedView:
        """Zones owned by brokers; each subscription delivered by its gateway zone."""
        return TimedView(self.zones.owner, self.gateway_zone, self.last_hop_latency_s, self.world)

    def place_servers(self, zones, events) -> np.ndarray:
        """Put the ``zones.count`` servers on distinct brokers along the diagonal of S
        (:func:`~cnsim.brokers.endpoints.diagonal_servers`), every update at the server
        owning its x; the IP hops between neighbouring servers' brokers."""
        brokers = self.zones.owner[diagonal_servers(self.zones, zones.bounds)]
        update_server = zones.owner(events.x)
        self.endpoints = self.endpoints.with_servers(brokers, update_server, events.start)
        return self.endpoints.server_link_ip_hops()

    @classmethod
    def server_links(cls, setup: NetworkSetup, zones: Zones, servers) -> np.ndarray:
        """What :meth:`place_servers` returns over the CAN ``zones`` (:meth:`plan_zones`'s)
        without building the network: a spread run's server task."""
        world = build_world(setup.network)
        brokers = zones.owner[diagonal_servers(zones, servers.bounds)]
        return np.asarray(world.broker_hops[brokers[:-1], brokers[1:]], np.int64)

    def deliver(self, approach, messages, update_events, servers=None):  # see Network.deliver
        """Route ``messages`` from where ``approach``'s events enter and deliver them at
        the zones reached, from the subscriptions their brokers hold (``servers``: the
        server each message leaves from, when there are several)."""
        handled = self.handled.setdefault(approach.name, np.zeros(self.world.n_brokers, np.int64))
        if not len(messages):
            return Delivery.of(messages, np.zeros(1, np.int64), np.empty(0, np.int64)), Traffic()
        entry = None  # several servers: the broker each message leaves from
        if servers is not None and approach.entry == "server":
            entry = self.endpoints.server_entry(servers)
        if approach.message == "targeted":
            return self._targeted(messages, handled, entry, approach.name)
        source = self.zone_of_broker[self.endpoints.entry_brokers(approach, update_events)]
        if approach.message == "ranked":
            return self.ranked.deliver(messages, source, self.last_hop, handled, update_events)
        if entry is not None:
            source = self.zone_of_broker[entry]  # each message from its server's zone
        elif approach.entry == "server":
            source = source[:1]  # every message leaves the server's zone
        r = messages.rects
        routes = route(self.zones, r, source)
        offsets, pos = self.gateways.deliver_positions(r, routes.reach_ptr, routes.reach_zone)
        costs = {}
        if self.faults is not None:  # deliveries to lost subscriptions are dropped
            offsets, pos, costs = self._drop(approach.name, offsets, pos)
        delivery = Delivery.of(messages, offsets, self.gateways.ids[pos], rows=pos)
        owner = self.zones.owner
        hop_from, hop_to = owner[routes.hop_from], owner[routes.hop_to]
        sources = np.broadcast_to(source, len(messages))
        np.add.at(handled, hop_to, 1)
        np.add.at(handled, owner[sources], 1)
        # a hop between two zones of one broker (after a takeover) is none
        hops = len(hop_from) if self.faults is None else int((hop_from != hop_to).sum())
        traffic = Traffic(
            overlay_hops=int(hops),
            ip_hops=int(self.world.broker_hops[hop_from, hop_to].sum(dtype=np.int64)),
            last_hop_ip_hops=int(self._last_hop_at[pos].sum(dtype=np.int64)),
            paths=Paths(sources, routes.hop_ptr, routes.hop_from, routes.hop_to),
            costs=costs,
        )
        return delivery, traffic

    def _drop(self, name: str, offsets: np.ndarray, pos: np.ndarray):
        """The deliveries (CSR ``offsets`` over forest positions ``pos``) to subscriptions
        not lost, and the deliveries dropped (``lost_msgs``)."""
        if not self.faults.n_lost:  # nothing to drop (most batches)
            return offsets, pos, {"lost_msgs": 0}
        keep = self.faults.drop(name, self.gateways.ids[pos])
        kept = np.concatenate([[0], np.cumsum(keep)])[offsets]
        costs = {"lost_msgs": int(len(pos) - kept[-1])}
        return kept, pos[keep], costs

    def set_alive(self, ids: np.ndarray, alive: bool) -> None:
        """Subscriptions ``ids`` join or leave the stores of their gateway brokers."""
        self.gateways.set_alive(ids, alive)
        self.present[ids] = alive
        held = ids
        if self.faults is not None:  # a lost one leaving is lost no more
            lost = self.faults.lost[ids]
            self.faults.found(ids[lost])
            held = ids[~lost]
            self._replica_msgs += self.faults.replica_updates(held)
        np.add.at(self.held, self.gateway[held], 1 if alive else -1)

    def churn_messages(self) -> int:
        """The replica updates of the joins and leaves since the last call (with
        ``faults.replication`` r: r each; a subscription itself goes to its zone's
        broker's store directly)."""
        sent, self._replica_msgs = self._replica_msgs, 0
        return sent

    def zone_subscriptions(self, z: int) -> np.ndarray:
        """Every subscription of the pool whose point is in zone ``z``."""
        g = self.gateways
        return g.ids[g.zone_ptr[z] : g.zone_ptr[z + 1]]

    def hand_over(self, z: int, broker: int) -> None:
        """Broker ``broker`` owns zone ``z`` from now: its subscriptions' gateway and
        last hops change (the counts held: :meth:`count_held`)."""
        self.zones.owner[z] = broker
        g = self.gateways
        pos = np.arange(g.zone_ptr[z], g.zone_ptr[z + 1])
        subs = g.ids[pos]
        self.gateway[subs] = broker
        nodes = self.endpoints.subscriber_node[subs]
        hops = self.world.last_hops(np.full(len(subs), broker), nodes)
        self.last_hop[subs] = hops
        self._last_hop_at[pos] = hops
        # copied, not changed in place: timed mode holds the one of every event in flight
        latency_ms = np.asarray(self.world.node_latency)[broker, nodes]
        self.last_hop_latency_s = self.last_hop_latency_s.copy()
        self.last_hop_latency_s[subs] = latency_ms.astype(np.float64) / 1000.0

    def count_held(self) -> None:
        """What each broker's store holds: the present subscriptions of its zones that
        are not lost."""
        kept = self.present if self.faults is None else self.present & ~self.faults.lost
        self.held[:] = np.bincount(self.gateway[kept], minlength=len(self.held))

    def join_ip_hops(self, ids: np.ndarray, entry: str) -> np.ndarray:
        """Server to gateway broker (``broker_hops``) and on to the node (the last hop),
        or the last hop alone."""
        hops = self.last_hop[ids]
        if entry == "server":
            hops = hops + self.world.broker_hops[self.server, self.gateway[ids]]
        return hops.astype(np.int64)

    def layout(self) -> np.ndarray:
        """By gateway zone, then by leaf of the zone's k-d tree: a message's deliveries at
        one gateway are runs of its leaves."""
        return self.gateways.ids

    def _targeted(
        self, messages: Messages, handled: np.ndarray, entry: np.ndarray | None, name: str
    ) -> tuple[Delivery, Traffic]:
        """Each message straight from the server (``entry``: the broker of its server,
        when there are several) to the gateway holding its target."""
        gateways = self.gateway[messages.target]
        if entry is None:
            server, server_zone = self.server, self.zones.server_zone
            handled[self.server] += len(messages)
            sources = np.full(len(messages), server_zone)
        else:
            server = entry
            np.add.at(handled, entry, 1)
            sources = self.zone_of_broker[entry]
        remote = gateways != server
        np.add.at(handled, gateways[remote], 1)
        gateway_zones = self.gateway_zone[messages.target][remote]
        delivery, costs = Delivery.targeted(messages), {}
        if self.faults is not None and self.faults.n_lost:  # to a lost one: reaches no one
            keep = self.faults.drop(name, messages.target)
            d = delivery
            delivery = Delivery(np.concatenate([[0], np.cumsum(keep)]), d.subs[keep],
                                d.obj[keep], d.y[keep], d.evict[keep])  # fmt: skip
            costs = {"lost_msgs": int((~keep).sum())}
        traffic = Traffic(
            overlay_hops=int(remote.sum()),
            ip_hops=int(self.world.broker_hops[server, gateways].sum(dtype=np.int64)),
            last_hop_ip_hops=int(self.last_hop[delivery.subs].sum()),
            paths=Paths(
                sources,
                np.concatenate([[0], np.cumsum(remote)]),
                sources[remote],
                gateway_zones,
            ),
            costs=costs,
        )
        return delivery, traffic

    def publish_ip_hops(self, approach: ApproachSpec, first: int, stop: int) -> int:
        """IP hops of events ``first .. stop - 1`` from their publishers to their entry."""
        return self.endpoints.publish_ip_hops(approach, first, stop)

    def broker_load(self) -> dict[str, np.ndarray]:
        """Per broker: subscriptions held, and messages handled per approach."""
        return {"subscriptions_held": self.held, **self.handled}
