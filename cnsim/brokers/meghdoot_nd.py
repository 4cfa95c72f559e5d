"""The Meghdoot-style CN over a D-dimensional subscription space (1.5-d range
subscriptions: S of points ``(l1, r1, r2)``, seed 003 appendix D; d-dimensional boxes
later): :class:`~cnsim.brokers.meghdoot.MeghdootCN` with the zones, routing and
gateway stores of :mod:`cnsim.brokers.zones_nd` and :mod:`cnsim.brokers.gateways_nd`.

Everything else — the world, endpoints, targeted (Unicast) messages, CN-Relax's entry
at the publisher's broker, per-broker load, the traffic counted in message-hops — is
the 2-d network's, unchanged. The subscription index of the run declares its space:
``points`` (the coordinates), ``lower_open`` (which dimensions are subscriptions'
lower bounds, reached as ``lO < p <= lI``) and ``ordered`` (the (lower, upper) pairs
with lower <= upper, where joining brokers draw their points). ``[overlay] kind =
"meghdoot"`` builds this class when the index is not 2-d.
"""

from __future__ import annotations

import numpy as np

from cnsim.brokers.endpoints import Endpoints
from cnsim.brokers.gateways_nd import GatewaysND
from cnsim.brokers.meghdoot import MeghdootCN
from cnsim.brokers.routing import Routes
from cnsim.brokers.zones_nd import BoxZones, build_box_zones, route_boxes
from cnsim.network.cache import build_world
from cnsim.network.world import World


class MeghdootBoxCN(MeghdootCN):
    """Delivery of box messages over CAN zones of a D-dimensional S."""

    def __init__(self, subscriptions, zones: BoxZones, world: World, endpoints: Endpoints):
        self.zones = zones
        self.world = world
        self.endpoints = endpoints
        points = np.stack(subscriptions.points, axis=1)
        self.gateway_zone = zones.zone_of(points).astype(np.int32)
        self.gateway = zones.owner[self.gateway_zone].astype(np.int32)
        self.gateways = GatewaysND(points, self.gateway_zone, zones.n_zones, zones.lower_open)
        nodes = endpoints.subscriber_node
        self.last_hop = world.last_hops(self.gateway, nodes).astype(np.int64)
        self._last_hop_at = self.last_hop[self.gateways.ids].astype(np.int32)
        latency_ms = np.asarray(world.node_latency)[self.gateway, nodes]
        self.last_hop_latency_s = latency_ms.astype(np.float64) / 1000.0
        self.held = np.zeros(world.n_brokers, np.int64)
        self.held[zones.owner] = self.gateways.held()
        self.server = zones.server
        self.zone_of_broker = np.empty(zones.n_zones, np.int64)
        self.zone_of_broker[zones.owner] = np.arange(zones.n_zones)
        self.handled: dict[str, np.ndarray] = {}

    @classmethod
    def create(cls, scenario, subscriptions, n_events, seeds) -> MeghdootBoxCN:
        """The run's world (cached), D-dimensional zones joined by its brokers (split
        mode 'random', the scenario's rules see to it), and endpoints."""
        world = build_world(scenario.network)
        zones = build_box_zones(
            world.n_brokers, subscriptions.lower_open, subscriptions.ordered, seeds.rng("zones")
        )
        endpoints = Endpoints.place(world, zones.server, len(subscriptions), n_events, seeds)
        return cls(subscriptions, zones, world, endpoints)

    def _route(self, boxes: np.ndarray, source: np.ndarray) -> Routes:
        """Routes of box messages (M, 2D) from their source zones."""
        return route_boxes(self.zones, boxes, source)
