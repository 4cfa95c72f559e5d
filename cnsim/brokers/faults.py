"""Brokers that fail and come back during a run (``[faults]``): the schedules, the
subscriptions lost (:class:`Losses`, shared by both overlays), and the Meghdoot
overlay's takeover (:class:`FaultState`); the content-based tree, built anew, is
:class:`cnsim.brokers.content_based.TreeFaults`.

Meghdoot's model, in units of events (event ``e`` happens at time ``e``), as CAN handles a
departed node (Ratnasamy et al., "A Scalable Content-Addressable Network"):

* **failures**: a Poisson number of brokers fails before each event (mean
  ``faults.rate``), drawn uniformly among the brokers up and not the server's; or the
  brokers ``faults.brokers`` fail before the events ``faults.at``. A failed broker
  comes back ``faults.repair_time`` events later on average (exponential; 0: not in
  the run).
* **takeover**: every zone the failed broker owns is taken over by the broker of a
  neighbouring zone — the one of smallest zone volume among the neighbours holding a
  replica of the zone, or, with none up, among all neighbours up (CAN's rule) — so
  routing over the zones is unchanged; only who owns a zone is. A hop between two
  zones of one broker is no overlay hop.
* **replication** (``faults.replication`` = r): each zone's subscriptions are also held
  by the brokers of its r smallest neighbouring zones (by volume, at the start). A
  takeover by a replica holder serves the zone's subscriptions at once; with r = 0, or
  no replica holder up, the zone's subscriptions are *lost*: messages still reach the
  zone, but their deliveries are dropped (``lost_msgs``) until the subscriber notices,
  ``faults.detection`` events after the failure, and re-subscribes: its subscription
  goes to the zone's broker (one message over the last hop) and its list comes anew
  from the server, as a joining subscriber's does.
* **repair**: the broker comes back and takes its original zones back, with the
  subscriptions the zones' brokers now hold (one message per zone over the IP hops
  between them); those still lost stay lost until they re-subscribe.
* **publishers**: an event whose publisher's nearest broker is down enters at the
  broker up nearest the publisher (its IP hops and, timed, its latency to that one).

The schedule is drawn once, before any event, from the stream ``faults``. The server's
broker never fails (the server would go with it).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

#: the per-batch counts a network with faults reports (catalog mode "faults")
COUNTS = ("failures", "repairs", "link_failures", "lost_subs", "resubscriptions",
          "moved_msgs", "moved_bytes", "moved_ip_bytes")  # fmt: skip


def faulty(section: Mapping[str, Any]) -> bool:
    """Whether a ``[faults]`` section makes brokers (or links) fail."""
    return section["rate"] > 0 or bool(section["brokers"]) or section["link_rate"] > 0


@dataclass(frozen=True)
class LinkSchedule:
    """When a link of the content-based tree fails and comes back: which link is left
    to the tree of the moment (``pick``: a uniform draw, the link at that quantile of
    the tree's links in order)."""

    fail_at: np.ndarray  # (L,) event before which failure l happens, non-decreasing
    pick: np.ndarray  # (L,) uniform in [0, 1)
    repair_after: np.ndarray  # (L,) events until the link is back (inf: not in the run)

    @classmethod
    def draw(cls, section: Mapping[str, Any], n_events: int, rng) -> LinkSchedule:
        """Poisson link failures at ``faults.link_rate`` per event, repairs as brokers'."""
        rate = section["link_rate"]
        counts = rng.poisson(rate, n_events) if rate > 0 else np.zeros(n_events, np.int64)
        at = np.repeat(np.arange(n_events, dtype=np.int64), counts)
        mean = section["repair_time"]
        back = rng.exponential(mean, len(at)) if mean > 0 else np.full(len(at), np.inf)
        return cls(at, rng.random(len(at)), np.maximum(1, np.ceil(back)))


@dataclass(frozen=True)
class FaultSchedule:
    """Which broker fails before which event, and when it comes back."""

    fail_at: np.ndarray  # (F,) event before which failure f happens, non-decreasing
    broker: np.ndarray  # (F,) the broker failing
    repair_at: np.ndarray  # (F,) event before which it comes back (n_events: not in the run)

    @classmethod
    def draw(
        cls, section: Mapping[str, Any], n_brokers: int, server: int, n_events: int, rng
    ) -> FaultSchedule:
        """The run's failures: the listed ones, or drawn at ``rate`` among the brokers
        up (never ``server``); a broker failing while down is left out."""
        if section["brokers"]:
            at = np.asarray(section["at"], np.int64)
            broker = np.asarray(section["brokers"], np.int64)
            order = np.argsort(at, kind="stable")
            at, broker = at[order], broker[order]
            wanted = None
        else:
            counts = rng.poisson(section["rate"], n_events)
            at = np.repeat(np.arange(n_events, dtype=np.int64), counts)
            broker = np.full(len(at), -1, np.int64)
            wanted = rng.random(len(at))  # which of the brokers up, when it fails
        mean = section["repair_time"]
        repair = rng.exponential(mean, len(at)) if mean > 0 else np.full(len(at), np.inf)
        up_again = np.full(n_brokers, -1, np.int64)  # event from which a down broker is up
        keep = np.zeros(len(at), bool)
        repair_at = np.zeros(len(at), np.int64)
        for f in range(len(at)):
            t = int(at[f])
            if wanted is not None:
                up = np.flatnonzero((up_again <= t) & (np.arange(n_brokers) != server))
                if not len(up):
                    continue
                broker[f] = up[min(int(wanted[f] * len(up)), len(up) - 1)]
            b = int(broker[f])
            if up_again[b] > t:  # down already
                continue
            keep[f] = True
            back = t + max(1, int(np.ceil(repair[f]))) if np.isfinite(repair[f]) else n_events
            repair_at[f] = min(back, n_events)
            up_again[b] = repair_at[f] if repair_at[f] < n_events else np.iinfo(np.int64).max
        return cls(at[keep], broker[keep], repair_at[keep])

    def due(self, first: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
        """``(failing, repaired)``: the brokers failing and coming back at the start of
        the batch of events ``first .. stop - 1``."""
        failing = self.broker[(self.fail_at >= first) & (self.fail_at < stop)]
        repaired = self.broker[(self.repair_at >= first) & (self.repair_at < stop)]
        return failing, repaired


def route_publishers(nearest: np.ndarray, original: np.ndarray, up: np.ndarray, world,
                     nodes: np.ndarray, now: int) -> None:  # fmt: skip
    """Every event from ``now`` on enters at its publisher's nearest broker
    (``original``) if it is up, else at the broker up nearest the publisher's node
    (``nodes``); written into ``nearest`` (the endpoints' array the run reads)."""
    nearest[now:] = original[now:]
    down = np.flatnonzero(~up[nearest[now:]]) + now
    if len(down):
        alive = np.flatnonzero(up)
        nearest[down] = alive[world.hops_from_brokers(nodes[down])[alive].argmin(axis=0)]


class Failing:
    """What a network that declares ``fails`` provides (:class:`cnsim.brokers.base.
    Network`), from its ``faults`` (a :class:`Losses` with ``step``), ``endpoints``,
    ``world`` and ``_publisher_broker`` (every event's publisher's nearest broker, when
    all are up). A network lists it before ``Network`` among its bases."""

    def apply_faults(self, first: int, stop: int) -> FaultStep:
        """The brokers due fail and come back before the batch ``first .. stop - 1``."""
        return self.faults.step(first, stop)

    def route_publishers(self, up: np.ndarray, now: int) -> None:
        """Events from ``now`` on enter at a broker up (:func:`route_publishers`)."""
        e = self.endpoints
        route_publishers(e.nearest_broker, self._publisher_broker, up, self.world,
                         e.publisher_node, now)  # fmt: skip

    def lost_mask(self) -> np.ndarray:
        """Which subscriptions are lost now (subscribed, held by no broker up)."""
        return self.faults.lost

    def stale_subs(self, name: str) -> int:
        """Lost subscriptions that missed a notification under approach ``name``."""
        return self.faults.stale(name)

    def fault_totals(self, name: str) -> dict[str, int]:
        """The counts of the losses under approach ``name`` (:meth:`Losses.totals`)."""
        return self.faults.totals(name)


@dataclass(frozen=True)
class FaultStep:
    """What the failures and repairs before a batch did: the counts every approach's
    row records (:data:`COUNTS`), and the subscriptions re-subscribing now (their lists
    come anew from the server)."""

    counts: dict[str, int]
    resubscribing: np.ndarray


def loss_summary(totals: Mapping[str, int]) -> dict[str, float | None]:
    """The summary entries of an approach's losses from their counts
    (:meth:`Losses.totals`): the mean events a lost subscription stayed lost
    (``repair_events``; None if none was lost and held again), the late notifications
    and their mean delay in events (None: none)."""
    held, late = totals["held_again"], totals["late_msgs"]
    return {"repair_events": totals["lost_events"] / held if held else None,
            "late_msgs": late,
            "late_delay_events": totals["late_events"] / late if late else None}  # fmt: skip


class Losses:
    """The subscriptions lost — subscribed, but held by no broker up — of one network:
    when their subscribers notice (``detection`` events after the loss) and
    re-subscribe, and, per approach, which of them missed a notification. A
    notification dropped for a subscription that later re-subscribes is *late*: what it
    said reaches the subscriber with the first list of its re-subscription, that many
    events after its batch (:meth:`late`)."""

    def __init__(self, m: int, detection: int):
        self.detection = detection
        self.lost = np.zeros(m, bool)
        self.n_lost = 0
        # (event, subscriptions) of every loss, in time order: they re-subscribe then
        self._noticed: deque[tuple[int, np.ndarray]] = deque()
        self.missed: dict[str, np.ndarray] = {}  # per approach: lost ones that missed one
        self._missed_count: dict[str, int] = {}
        self.repaired = [0, 0]  # subscriptions held again, and the events they were lost
        self.now = 0  # the first event of the batch being processed
        # per approach and subscription: notifications dropped, and the sum of their
        # batches' first events; per approach: late ones, and their delays summed
        self._dropped: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._late: dict[str, list[int]] = {}

    def lose(self, subs: np.ndarray, now: int) -> None:
        """Subscriptions ``subs`` (none lost already) are lost before event ``now``."""
        self.lost[subs] = True
        self.n_lost += len(subs)
        self._noticed.append((now + self.detection, subs))

    def noticed(self, first: int) -> np.ndarray:
        """The lost subscriptions whose subscribers notice before event ``first`` (and
        re-subscribe): lost no more."""
        self.now = first
        due = []
        while self._noticed and self._noticed[0][0] <= first:
            at, subs = self._noticed.popleft()
            subs = subs[self.lost[subs]]  # not left since
            due.append(subs)
            self.repaired[0] += len(subs)
            self.repaired[1] += len(subs) * (first - (at - self.detection))  # since lost
        resubscribing = np.concatenate(due) if due else np.zeros(0, np.int64)
        self.found(resubscribing, resubscribed=True)
        return resubscribing

    def found(self, subs: np.ndarray, resubscribed: bool = False) -> None:
        """Lost subscriptions ``subs`` are lost no more — ``resubscribed`` (what they
        missed arrives now, late), or left (it never does): nothing missed."""
        self.lost[subs] = False
        self.n_lost -= len(subs)
        for name, missed in self.missed.items():
            self._missed_count[name] -= int(missed[subs].sum())
            missed[subs] = False
            n, first_sum = self._dropped[name]
            if resubscribed:
                late = self._late[name]
                late[0] += int(n[subs].sum())
                late[1] += int((n[subs] * self.now - first_sum[subs]).sum())
            n[subs] = first_sum[subs] = 0

    def drop(self, name: str, subs: np.ndarray) -> np.ndarray:
        """Which deliveries to ``subs`` are kept (their subscription is not lost); the
        dropped ones' subscriptions have missed a notification under ``name``."""
        if name not in self.missed:
            m = len(self.lost)
            self.missed[name] = np.zeros(m, bool)
            self._missed_count[name] = 0
            self._dropped[name] = (np.zeros(m, np.int64), np.zeros(m, np.int64))
            self._late[name] = [0, 0]
        dropped = self.lost[subs]
        if dropped.any():
            missed = self.missed[name]
            hit = np.unique(subs[dropped])
            self._missed_count[name] += int((~missed[hit]).sum())
            missed[hit] = True
            n, first_sum = self._dropped[name]
            np.add.at(n, subs[dropped], 1)
            np.add.at(first_sum, subs[dropped], self.now)
        return ~dropped

    def totals(self, name: str) -> dict[str, int]:
        """Under approach ``name``, the counts :func:`loss_summary` makes the run's
        summary entries of (a run spread over Spark tasks adds its partitions' up): the
        lost subscriptions held again and the events they were lost (those that left
        while lost aside), the late notifications (dropped, then brought by a
        re-subscription's first list) and their delays in events."""
        late, delay = self._late.get(name, [0, 0])
        held, events = self.repaired
        return {"held_again": held, "lost_events": events, "late_msgs": late,
                "late_events": delay}  # fmt: skip

    def stale(self, name: str) -> int:
        """Lost subscriptions that have missed a notification under ``name`` (their
        list may differ from the truth until they re-subscribe)."""
        return self._missed_count.get(name, 0)



class FaultState(Losses):
    """The brokers up and down, who owns every zone, and the subscriptions lost, of one
    Meghdoot network (``net``: a :class:`cnsim.brokers.meghdoot.MeghdootCN`, whose
    ``zones.owner``, ``gateway``, ``last_hop`` and ``held`` it keeps current)."""

    def __init__(self, net, section: Mapping[str, Any], schedule: FaultSchedule,
                 subscription_bytes: int):  # fmt: skip
        self.net, self.schedule = net, schedule
        zones = net.zones
        self.original = zones.owner.copy()  # who owns every zone when all are up
        self.up = np.ones(net.world.n_brokers, bool)
        self.volume = zones.volumes()
        self.replicas = _replica_zones(zones, self.volume, section["replication"])  # (Z, r)
        self.subscription_bytes = subscription_bytes
        Losses.__init__(self, len(net.gateway), section["detection"])

    def step(self, first: int, stop: int) -> FaultStep:
        """Re-subscriptions due, then repairs, then failures, before the batch."""
        counts = dict.fromkeys(COUNTS, 0)
        resubscribing = self.noticed(first)
        counts["resubscriptions"] = len(resubscribing)
        failing, repaired = self.schedule.due(first, stop)
        for b in repaired.tolist():
            self._repair(b, counts)
        for b in failing.tolist():
            self._fail(b, first)
        counts["failures"], counts["repairs"] = len(failing), len(repaired)
        if len(failing) or len(repaired):  # events enter at a broker up
            self.net.route_publishers(self.up, first)
        if len(resubscribing) or len(failing) or len(repaired):
            self.net.count_held()
        counts["lost_subs"] = self.n_lost
        return FaultStep(counts, resubscribing)

    def replica_updates(self, ids: np.ndarray) -> int:
        """Messages that keep the replicas of subscriptions ``ids`` (joining or leaving)
        current: one to each replica holder up of its zone."""
        if not len(ids) or not self.replicas.shape[1]:
            return 0
        holders = self.net.zones.owner[self.replicas[self.net.gateway_zone[ids]]]
        return int(self.up[holders].sum())

    def _fail(self, b: int, now: int) -> None:
        """Broker ``b`` fails: each zone it owns to a neighbour (a replica holder if one
        is up); a zone with none loses its subscriptions until they re-subscribe."""
        self.up[b] = False
        owner = self.net.zones.owner
        for z in np.flatnonzero(owner == b).tolist():
            holders = [w for w in self.replicas[z].tolist() if self.up[owner[w]]]
            served = bool(holders)
            if not served:
                holders = [w for w in self.net.zones.neighbours(z).tolist() if self.up[owner[w]]]
            if holders:
                w = min(holders, key=lambda w: (self.volume[w], w))
                new = int(owner[w])
            else:  # no neighbour up: the first broker up takes it
                new = int(np.flatnonzero(self.up)[0])
            self.net.hand_over(z, new)
            if not served:
                subs = self.net.zone_subscriptions(z)
                self.lose(subs[self.net.present[subs] & ~self.lost[subs]], now)

    def _repair(self, b: int, counts: dict[str, int]) -> None:
        """Broker ``b`` is back: it takes its own zones back, with the subscriptions
        their brokers hold (one message per zone)."""
        self.up[b] = True
        owner, hops = self.net.zones.owner, self.net.world.broker_hops
        for z in np.flatnonzero(self.original == b).tolist():
            holder = int(owner[z])
            if holder == b:
                continue
            subs = self.net.zone_subscriptions(z)
            held = int((self.net.present[subs] & ~self.lost[subs]).sum())
            if held:
                size = held * self.subscription_bytes
                counts["moved_msgs"] += 1
                counts["moved_bytes"] += size
                counts["moved_ip_bytes"] += size * int(hops[holder, b])
            self.net.hand_over(z, b)

def _replica_zones(zones, volume: np.ndarray, r: int) -> np.ndarray:
    """Each zone's ``r`` smallest neighbouring zones (by volume, then id), whose
    brokers hold a copy of its subscriptions, as a (Z, r) array; ``r`` above a zone's
    neighbours is refused."""
    out = np.zeros((zones.n_zones, r), np.int64)
    for z in range(zones.n_zones):
        nbr = zones.neighbours(z)
        if r > len(nbr):
            from cnsim.schema import config_error

            fewest = int(np.diff(zones.nbr_ptr).min())
            raise config_error(
                "", "faults.replication", r,
                f"is more than the {len(nbr)} neighbours of zone {z}",
                f"at most {fewest}, the fewest neighbours a zone of this overlay has",
            )  # fmt: skip
        out[z] = nbr[np.lexsort((nbr, volume[nbr]))[:r]]
    return out
