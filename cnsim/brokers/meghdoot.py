"""The Meghdoot-style CN (seed 003 §V "Network setup"): CAN zones over the
subscription space, each owned by a broker on an IP node; a message is routed from
its source zone to every zone its rectangle meets, and each of those zones' brokers
(the *gateway brokers*) delivers it to its subscriptions inside the rectangle, over
a last IP hop to each subscriber's node.

Traffic is counted in message-hops; the runner weighs them by message sizes:

* overlay hops: broker-to-broker overlay links travelled;
* IP hops: the IP links under those overlay links (``broker_hops``);
* last-hop IP hops: gateway broker to subscriber node, per delivery.

Targeted (unicast) messages go from the server straight to the gateway broker over
IP: one overlay link (none when the server is the gateway) of ``broker_hops`` IP hops.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from cnsim.algorithms.messages import Messages
from cnsim.brokers.ideal import Delivery, IdealCN
from cnsim.brokers.routing import route
from cnsim.brokers.zones import Zones
from cnsim.network.world import World
from cnsim.subscriptions.index import SubscriptionIndex


@dataclass(frozen=True)
class Paths:
    """The overlay hops of each message, in causal order (CSR over messages), with the
    zone each message starts from; what the timed mode replays."""

    source: np.ndarray  # (M,) zone each message leaves from
    hop_ptr: np.ndarray  # (M + 1,)
    hop_from: np.ndarray  # zones
    hop_to: np.ndarray  # zones


@dataclass(frozen=True)
class Traffic:
    """Message-hops of one batch of messages in the broker network."""

    overlay_hops: int = 0
    ip_hops: int = 0
    last_hop_ip_hops: int = 0
    paths: Paths | None = None


class MeghdootCN(IdealCN):
    """Delivery over CAN zones and an IP network; per-broker load is accumulated."""

    def __init__(
        self,
        subscriptions: SubscriptionIndex,
        zones: Zones,
        world: World,
        subscriber_nodes: np.ndarray,
    ):
        super().__init__(subscriptions)
        self.zones = zones
        self.world = world
        self.gateway_zone = zones.zone_of(subscriptions.l, subscriptions.r).astype(np.int64)
        self.gateway = zones.owner[self.gateway_zone].astype(np.int64)
        self.last_hop = world.last_hops(self.gateway, subscriber_nodes).astype(np.int64)
        latency_ms = np.asarray(world.node_latency)[self.gateway, subscriber_nodes]
        self.last_hop_latency_s = latency_ms.astype(np.float64) / 1000.0
        self.held = np.bincount(self.gateway, minlength=world.n_brokers)
        self.server = zones.server

    def handled_counter(self) -> np.ndarray:
        """A fresh per-broker count of messages handled, for one approach."""
        return np.zeros(self.world.n_brokers, np.int64)

    def deliver_routed(
        self, messages: Messages, source_zone: int | np.ndarray, handled: np.ndarray
    ) -> tuple[Delivery, Traffic]:
        """Route ``messages`` from ``source_zone`` (one, or one per message) and deliver
        them at the zones reached."""
        ideal = self.deliver(messages)
        if not len(messages):
            return ideal, Traffic()
        if messages.target is not None:
            return self._unicast(messages, ideal, handled)
        r = messages.rects
        routes = route(self.zones, r[:, 0], r[:, 1], r[:, 2], r[:, 3], source_zone)
        keep = _reached_filter(
            ideal.offsets,
            ideal.subs,
            routes.reach_ptr,
            routes.reach_zone,
            self.gateway_zone,
            self.zones.n_zones,
        )
        delivery = ideal.restrict(keep)
        owner = self.zones.owner
        hop_from, hop_to = owner[routes.hop_from], owner[routes.hop_to]
        source = np.broadcast_to(np.asarray(source_zone, np.int64), len(messages))
        np.add.at(handled, hop_to, 1)
        np.add.at(handled, owner[source], 1)
        traffic = Traffic(
            overlay_hops=int(len(hop_from)),
            ip_hops=int(self.world.broker_hops[hop_from, hop_to].sum(dtype=np.int64)),
            last_hop_ip_hops=int(self.last_hop[delivery.subs].sum()),
            paths=Paths(source, routes.hop_ptr, routes.hop_from, routes.hop_to),
        )
        return delivery, traffic

    def _unicast(self, messages: Messages, delivery: Delivery, handled: np.ndarray):
        gateways = self.gateway[messages.target]
        remote = gateways != self.server
        np.add.at(handled, gateways[remote], 1)
        handled[self.server] += len(messages)
        server_zone = self.zones.server_zone
        gateway_zones = self.gateway_zone[messages.target][remote]
        traffic = Traffic(
            overlay_hops=int(remote.sum()),
            ip_hops=int(self.world.broker_hops[self.server, gateways].sum(dtype=np.int64)),
            last_hop_ip_hops=int(self.last_hop[messages.target].sum()),
            paths=Paths(
                np.full(len(messages), server_zone),
                np.concatenate([[0], np.cumsum(remote)]),
                np.full(len(gateway_zones), server_zone),
                gateway_zones,
            ),
        )
        return delivery, traffic


@numba.njit(cache=True)
def _reached_filter(offsets, subs, reach_ptr, reach_zone, gateway_zone, n_zones):
    """For each delivery, whether its subscription's gateway zone was reached by the
    message (a routing fault would show up as a lost delivery, which verify catches)."""
    stamp = np.full(n_zones, -1, np.int64)
    keep = np.zeros(len(subs), np.bool_)
    for m in range(len(offsets) - 1):
        for t in range(reach_ptr[m], reach_ptr[m + 1]):
            stamp[reach_zone[t]] = m
        for t in range(offsets[m], offsets[m + 1]):
            keep[t] = stamp[gateway_zone[subs[t]]] == m
    return keep
