"""How messages travel in a run: the ideal CN, or the Meghdoot overlay over an IP
world (seed 003 §V "Network setup"), and where events are published.

Subscriptions sit on uniformly drawn IP nodes and every event is published from a
uniformly drawn IP node (seeded from the run's seed). Server-based approaches
receive events at the server (the broker whose zone covers the centre of S);
CN-Relax injects them at the publisher's nearest broker.
"""

from __future__ import annotations

import numpy as np

from cnsim.algorithms.messages import Messages
from cnsim.brokers.ideal import IdealCN
from cnsim.brokers.overlay import MeghdootCN, Traffic
from cnsim.brokers.zones import build_zones
from cnsim.network.cache import build_world
from cnsim.simulations.config import Scenario
from cnsim.simulations.world import Workload
from cnsim.subscriptions.index import SubscriptionIndex


class Dissemination:
    """The CN of one run, with per-approach broker load and publisher positions."""

    def __init__(self, scenario: Scenario, workload: Workload, subscriptions: SubscriptionIndex):
        self.kind = scenario["overlay"]["kind"]
        self.handled: dict[str, np.ndarray] = {}
        if self.kind == "ideal":
            self.cn = IdealCN(subscriptions)
            return
        self.world = build_world(scenario.network)
        # Children 3.. of the run's seed (0..2 drew objects, subscriptions, events).
        nodes_seed, pubs_seed, zones_seed = np.random.SeedSequence(scenario.seed).spawn(6)[3:]
        n_nodes = self.world.topology.n_nodes
        sub_nodes = np.random.default_rng(nodes_seed).integers(n_nodes, size=len(subscriptions))
        self.publisher = np.random.default_rng(pubs_seed).integers(
            n_nodes, size=len(workload.events)
        )
        zones = build_zones(
            self.world.n_brokers,
            scenario["overlay"]["split"],
            np.random.default_rng(zones_seed),
            points=(subscriptions.l, subscriptions.r),
        )
        self.cn = MeghdootCN(subscriptions, zones, self.world, sub_nodes)
        self.entry_broker = self._nearest_brokers(self.publisher)  # CN-Relax's entry points
        self.zone_of_broker = np.empty(zones.n_zones, np.int64)
        self.zone_of_broker[zones.owner] = np.arange(zones.n_zones)

    @property
    def zones(self):
        """The CAN zones (Meghdoot only)."""
        return self.cn.zones

    def deliver(self, approach, messages: Messages, update_events: np.ndarray):
        """Deliver ``messages`` of ``approach``; ``update_events`` gives the event of each
        update of the batch (serverless approaches send one message per update)."""
        if self.kind == "ideal":
            return self.cn.deliver(messages), Traffic()
        handled = self.handled.setdefault(approach.name, self.cn.handled_counter())
        source = self.cn.zones.server_zone
        if getattr(approach, "serverless", False):
            source = self.zone_of_broker[self._entry_brokers(update_events)]
        return self.cn.deliver_routed(messages, source, handled)

    def publish_ip_hops(self, approach, first: int, stop: int) -> int:
        """IP hops of events ``first .. stop - 1`` from their publishers to where they enter."""
        if self.kind == "ideal":
            return 0
        events = np.arange(first, stop)
        nodes = self.publisher[events]
        if getattr(approach, "serverless", False):
            brokers = self._entry_brokers(events)
        else:
            brokers = np.full(len(events), self.cn.server)
        return int(self.world.last_hops(brokers, nodes).sum())

    def entry_delay_s(self, serverless: bool, event: int) -> float:
        """IP latency (s) from event ``event``'s publisher to where it enters."""
        node = self.publisher[event]
        broker = self._entry_brokers(np.array([event]))[0] if serverless else self.cn.server
        return float(self.world.node_latency[broker, node]) / 1000.0

    def _entry_brokers(self, events: np.ndarray) -> np.ndarray:
        """The broker nearest (in IP hops) to each event's publisher."""
        return self.entry_broker[events]

    def _nearest_brokers(self, nodes: np.ndarray, chunk: int = 4096) -> np.ndarray:
        """The broker with the fewest IP hops to each node (in chunks: B × chunk)."""
        parts = [
            self.world.hops_from_brokers(nodes[s : s + chunk]).argmin(axis=0)
            for s in range(0, len(nodes), chunk)
        ]
        return np.concatenate(parts) if parts else np.empty(0, np.int64)

    def broker_load(self) -> dict[str, np.ndarray]:
        """Per broker: subscriptions held, and messages handled per approach."""
        if self.kind == "ideal":
            return {}
        return {"subscriptions_held": self.cn.held, **self.handled}
