"""Where a run's subscribers and publishers sit on the IP network, and where each
event enters the broker network (seed 003 §V "Network setup").

Every subscription sits on a uniformly drawn IP node, and every event is published
from a uniformly drawn IP node (streams ``subscriber_nodes`` and ``publishers`` of the
run's :class:`~cnsim.simulations.seeds.Seeds`). An approach whose events enter at the
server receives them at the server's broker; one whose events enter at the publisher
(CN-Relax) receives them at the broker nearest, in IP hops, to the publisher. The
counting driver and timed mode both read this one component.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cnsim.algorithms.base import ApproachSpec
from cnsim.network.world import World


@dataclass(frozen=True)
class Endpoints:
    """Subscriber and publisher nodes of one run and the broker each event enters at."""

    world: World
    server: int  # the server's broker
    subscriber_node: np.ndarray  # (m,) IP node of every subscription
    publisher_node: np.ndarray  # (E,) IP node publishing every event
    nearest_broker: np.ndarray  # (E,) broker nearest to every event's publisher

    @classmethod
    def place(
        cls, world: World, server: int, n_subscriptions: int, n_events: int, seeds
    ) -> Endpoints:
        """Draw the nodes from the run's seeds."""
        n_nodes = world.topology.n_nodes
        subscribers = seeds.rng("subscriber_nodes").integers(n_nodes, size=n_subscriptions)
        publishers = seeds.rng("publishers").integers(n_nodes, size=n_events)
        return cls(world, server, subscribers, publishers, _nearest(world, publishers))

    def entry_brokers(self, approach: ApproachSpec, events: np.ndarray) -> np.ndarray:
        """The broker at which each of ``events`` enters under ``approach``."""
        if approach.entry == "publisher":
            return self.nearest_broker[events]
        return np.full(len(events), self.server)

    def publish_ip_hops(self, approach: ApproachSpec, first: int, stop: int) -> int:
        """IP hops of events ``first .. stop - 1`` from their publishers to their entry."""
        events = np.arange(first, stop)
        brokers = self.entry_brokers(approach, events)
        return int(self.world.last_hops(brokers, self.publisher_node[events]).sum())

    def entry_delay_s(self, approach: ApproachSpec, event: int) -> float:
        """IP latency (s) from event ``event``'s publisher to its entry broker."""
        broker = self.entry_brokers(approach, np.array([event]))[0]
        return float(self.world.node_latency[broker, self.publisher_node[event]]) / 1000.0


def _nearest(world: World, nodes: np.ndarray, chunk: int = 4096) -> np.ndarray:
    """The broker with the fewest IP hops to each node (in chunks: B × chunk)."""
    parts = [
        world.hops_from_brokers(nodes[s : s + chunk]).argmin(axis=0)
        for s in range(0, len(nodes), chunk)
    ]
    return np.concatenate(parts) if parts else np.empty(0, np.int64)
