"""Where a run's subscribers and publishers sit on the IP network, and where each
event enters the broker network (seed 003 §V "Network setup").

Every subscription sits on a uniformly drawn IP node, and every event is published
from a uniformly drawn IP node (streams ``subscriber_nodes`` and ``publishers`` of the
run's :class:`~cnsim.simulations.seeds.Seeds`). An approach whose events enter at the
server receives them at the server's broker; one whose events enter at the publisher
(CN-Relax) receives them at the broker nearest, in IP hops, to the publisher. The
counting driver and timed mode both read this one component.

With ``[server] count = s > 1`` (the distributed object database of seed 003
appendix C, :mod:`cnsim.server.distributed`), server ``j`` sits at broker
``server_brokers[j]``, on the diagonal of S as the one server sits at its centre
(:func:`diagonal_servers`). An update enters at the broker of the server owning
its object's x; an event is published to each distinct server its updates belong to
(a move across zones: two), and a message enters the overlay at the broker of the
server that generated it (:meth:`Endpoints.server_entry`). With one server,
``server_brokers`` is ``[server]`` and nothing changes.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

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
    # [server] count > 1: the broker of every server, and the server of every update
    # (in event order: event e's updates are update_start[e] .. update_start[e + 1] - 1)
    server_brokers: np.ndarray | None = None
    update_server: np.ndarray | None = None
    update_start: np.ndarray | None = None

    @classmethod
    def place(
        cls, world: World, server: int, n_subscriptions: int, n_events: int, seeds
    ) -> Endpoints:
        """Draw the nodes from the run's seeds."""
        n_nodes = world.topology.n_nodes
        subscribers = seeds.rng("subscriber_nodes").integers(n_nodes, size=n_subscriptions)
        publishers = seeds.rng("publishers").integers(n_nodes, size=n_events)
        return cls(world, server, subscribers, publishers, _nearest(world, publishers))

    def with_servers(
        self, server_brokers: np.ndarray, update_server: np.ndarray, update_start: np.ndarray
    ) -> Endpoints:
        """These endpoints with server ``j`` at broker ``server_brokers[j]`` (distinct),
        every update at the server ``update_server`` names."""
        server_brokers = np.asarray(server_brokers, np.int64)
        assert len(np.unique(server_brokers)) == len(server_brokers) > 1
        return replace(
            self,
            server_brokers=server_brokers,
            update_server=np.asarray(update_server, np.int64),
            update_start=np.asarray(update_start, np.int64),
        )

    def server_link_ip_hops(self) -> np.ndarray:
        """IP hops between the brokers of neighbouring servers ``j`` and ``j + 1``."""
        b = self.server_brokers
        return np.asarray(self.world.broker_hops[b[:-1], b[1:]], np.int64)

    def server_entry(self, servers: np.ndarray) -> np.ndarray:
        """The brokers of ``servers`` (where the messages they generate enter)."""
        return self.server_brokers[servers]

    def entry_brokers(self, approach: ApproachSpec, events: np.ndarray) -> np.ndarray:
        """The broker at which each of ``events`` enters under ``approach`` (with
        several servers, at the server of the event's first update)."""
        if approach.entry == "publisher":
            return self.nearest_broker[events]
        if self.server_brokers is not None:
            return self.server_brokers[self.update_server[self.update_start[events]]]
        return np.full(len(events), self.server)

    def publish_ip_hops(self, approach: ApproachSpec, first: int, stop: int) -> int:
        """IP hops of events ``first .. stop - 1`` from their publishers to their entry
        (with several servers, to every distinct server of each event's updates)."""
        if approach.entry == "server" and self.server_brokers is not None:
            start = self.update_start
            lo, hi = start[first], start[stop]
            event = np.repeat(np.arange(first, stop), np.diff(start[first : stop + 1]))
            s = len(self.server_brokers)
            pairs = np.unique(event * s + self.update_server[lo:hi])
            event, server = pairs // s, pairs % s
            brokers = self.server_brokers[server]
            return int(self.world.last_hops(brokers, self.publisher_node[event]).sum())
        events = np.arange(first, stop)
        brokers = self.entry_brokers(approach, events)
        return int(self.world.last_hops(brokers, self.publisher_node[events]).sum())

    def entry_delay_s(self, approach: ApproachSpec, event: int) -> float:
        """IP latency (s) from event ``event``'s publisher to its entry broker."""
        broker = self.entry_brokers(approach, np.array([event]))[0]
        return float(self.world.node_latency[broker, self.publisher_node[event]]) / 1000.0


def diagonal_servers(zones, bounds: np.ndarray) -> np.ndarray:
    """The zone of each of ``s = len(bounds) + 1`` servers owning the x-zones
    ``[bounds[j-1], bounds[j])`` (:class:`cnsim.server.distributed.Zones`): server ``j``
    takes the CAN zone (of ``zones``, a :class:`cnsim.brokers.zones.Zones`) holding the
    diagonal point ``(m_j, m_j)``, ``m_j`` the middle of its x-zone within S; a zone
    already taken by a server to its west gives way to the free zone nearest to that
    point (Euclidean distance to the zone's box; ties: the lower zone). Objects lie on
    the diagonal (appendix C), so each server's messages start next to where they go,
    as the single server's start at the centre of S. Distinct while ``s`` <= zones."""
    s = len(bounds) + 1
    assert s <= zones.n_zones
    top = np.nextafter(zones.hi, zones.lo)  # S is [lo, hi): keep the points inside
    west = np.clip(np.concatenate([[zones.lo], bounds]), zones.lo, top)
    east = np.clip(np.concatenate([bounds, [zones.hi]]), zones.lo, top)
    m = (west + east) / 2
    first = zones.zone_of((m, m)).astype(np.int64)
    taken = np.zeros(zones.n_zones, bool)
    out = np.empty(s, np.int64)
    for j in range(s):
        z = int(first[j])
        if taken[z]:
            gap = np.maximum(np.maximum(zones.zlo - m[j], m[j] - zones.zhi), 0.0)
            z = int(np.argmin(np.where(taken, np.inf, np.hypot(gap[:, 0], gap[:, 1]))))
        taken[z] = True
        out[j] = z
    return out


def _nearest(world: World, nodes: np.ndarray, chunk: int = 4096) -> np.ndarray:
    """The broker with the fewest IP hops to each node (in chunks: B × chunk)."""
    parts = [
        world.hops_from_brokers(nodes[s : s + chunk]).argmin(axis=0)
        for s in range(0, len(nodes), chunk)
    ]
    return np.concatenate(parts) if parts else np.empty(0, np.int64)
