"""Timed mode (SimPy): the counting mode's messages and overlay paths, replayed in
simulated time to give latencies, queueing and reordering.

* Events are published by one arrival process — Poisson at ``timing.rate`` events
  per second, or the times of a trace file — and reach the server (CN-Relax: the
  publisher's nearest broker) after the IP latency from the publisher's node.
* The server is a FIFO resource: generating each message takes
  ``timing.server_service_s``. Every broker is a FIFO resource taking
  ``timing.broker_service_s`` per message it handles — the server's own broker
  too, for every message the server generates. A link between brokers adds
  their IP latency plus serialisation at ``timing.bandwidth_mbps``; the last hop
  to a subscriber adds the gateway-to-subscriber latency.
* A hop is a scheduled callback (a SimPy timeout with a callback), not a process:
  a process per hop is about ten times slower.

Messages of one event take different paths and may arrive out of send order; the
subscriber protocol of a server-based approach needs i's new value before its
replacement (seed 003 footnote 5). For an approach that declares ``ordered`` (every
approach with a server) cnsim models a per-subscriber ordered channel: every message
carries the server's send sequence number, and a subscriber applies messages in that
order, holding back one that arrives before an earlier-sent one; ``reordered``
counts those. An approach without a single sender (CN-Relax: events enter at each
publisher's broker, subscribers keep whole ranges and each object's latest update
wins) declares ``ordered = False``: a subscriber applies every message when it
arrives, nothing is held back and ``reordered`` is 0 — there is no send order to
break. Lists stay exact either way (they are the counting mode's); latencies are
measured at application.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numba
import numpy as np
import simpy

from cnsim.brokers.base import Paths, TimedView
from cnsim.errors import InputError
from cnsim.simulations.config import read_trace
from cnsim.simulations.metrics import CATALOG
from cnsim.simulations.seeds import Seeds


def publication_times(timing: dict, n_events: int, seeds: Seeds) -> np.ndarray:
    """When each event is published: Poisson arrivals, or a trace file's times."""
    if timing["arrivals"] == "poisson":
        rng = seeds.rng("arrivals")
        return np.cumsum(rng.exponential(1.0 / timing["rate"], n_events))
    times, problem = read_trace(timing["trace"], n_events)
    if problem is not None:
        raise InputError(f"timing.trace = {timing['trace']!r}: {problem}")
    return times


@dataclass
class _EventInFlight:
    """What one event of one approach still has on the way (Python lists: the hop
    callbacks index them one element at a time, which numpy arrays make slow)."""

    event: int
    published: float
    paths: object
    delivery: object
    pending: int  # messages not yet served at their source, plus hops not yet arrived
    source_broker: list  # per message: the broker of its source zone
    to_broker: list  # per hop: the broker it arrives at
    link_s: list  # per hop: link latency plus serialisation
    firsts: tuple[list, list]  # hops leaving each message's source, CSR
    children: tuple[list, list]  # child hops of each hop, CSR
    departure: list  # per hop: when the message left the hop's broker
    source_departure: list  # per message: when it left its source broker


class TimedNetwork:
    """Queues and clocks of one approach's server and brokers."""

    def __init__(
        self, env: simpy.Environment, view: TimedView, timing: dict, size: int, ordered: bool
    ):
        self.env = env
        self.view = view
        self.ordered = ordered  # hold back messages that overtook earlier-sent ones
        self.owner = view.owner.astype(np.int64)
        self.latency_s = np.asarray(view.world.broker_latency, np.float64) / 1000.0
        self.serialise_s = size * 8 / (timing["bandwidth_mbps"] * 1e6)
        self.server_s = timing["server_service_s"]
        self.broker_s = timing["broker_service_s"]
        n_brokers = view.world.n_brokers
        self.busy_until = [0.0] * n_brokers
        self.busy_time = [0.0] * n_brokers
        self.server_free = 0.0
        self.server_finishes: deque[float] = deque()
        self.last_applied = np.full(len(view.gateway_zone), -np.inf)  # per subscription
        self.metrics: dict[int, tuple] = {}
        self._done: dict[int, _EventInFlight] = {}
        self._next_to_apply = 0

    # -- arrival at the entry point ----------------------------------------------------------
    def publish(self, event: int, entry_delay: float, outcome) -> None:
        """Event ``event`` is published now; it reaches its entry after ``entry_delay``."""
        paths = outcome.traffic.paths or _no_paths()
        n_zones = self.view.n_zones
        firsts, children = _hop_tree(
            paths.source, paths.hop_ptr, paths.hop_from, paths.hop_to, n_zones
        )
        frm, to = self.owner[paths.hop_from], self.owner[paths.hop_to]
        n_msgs, n_hops = len(outcome.messages), len(to)
        state = _EventInFlight(
            event, self.env.now, paths, outcome.delivery, n_msgs + n_hops,
            self.owner[paths.source].tolist(), to.tolist(),
            (self.latency_s[frm, to] + self.serialise_s).tolist(),
            (firsts[0].tolist(), firsts[1].tolist()), (children[0].tolist(), children[1].tolist()),
            [0.0] * n_hops, [0.0] * n_msgs,
        )  # fmt: skip
        arrive = self._at_server if outcome.spec.entry == "server" else self._at_publisher_broker
        self._after(entry_delay, arrive, state)

    def _at_server(self, state: _EventInFlight) -> None:
        now = self.env.now
        while self.server_finishes and self.server_finishes[0] <= now:
            self.server_finishes.popleft()
        queue_len = len(self.server_finishes)
        start = max(now, self.server_free)
        n = len(state.source_departure)
        self.server_free = start + self.server_s * n
        self.server_finishes.append(self.server_free)
        self.metrics[state.event] = (queue_len, start - now)
        # Each message, once generated, is handled by the broker of its source zone
        # (the server's entry into the overlay) like at any other hop.
        for m in range(n):
            self._after(start + self.server_s * (m + 1) - now, self._at_source, state, m)
        if not n:
            self._maybe_done(state)

    def _at_publisher_broker(self, state: _EventInFlight) -> None:
        # No server (CN-Relax): each message leaves the publisher's broker after that
        # broker's service.
        self.metrics[state.event] = (0, 0.0)
        for m in range(len(state.source_departure)):
            self._at_source(state, m)
        if not state.source_departure:
            self._maybe_done(state)

    def _at_source(self, state: _EventInFlight, m: int) -> None:
        """Message m at its source broker: served, then sent on its first hops."""
        self._serve_and_forward(
            state, state.source_broker[m], m, state.firsts, state.source_departure
        )

    # -- hops ----------------------------------------------------------------------------------
    def _arrive(self, state: _EventInFlight, h: int) -> None:
        """Hop h at the broker it leads to: served, then sent on its child hops."""
        self._serve_and_forward(state, state.to_broker[h], h, state.children, state.departure)

    def _serve_and_forward(self, state, broker: int, j: int, hops: tuple, departure: list) -> None:
        now = self.env.now
        dep = self._serve(broker, now)
        departure[j] = dep
        ptr, idx = hops
        for c in idx[ptr[j] : ptr[j + 1]]:
            self._after(dep - now + state.link_s[c], self._arrive, state, c)
        state.pending -= 1
        self._maybe_done(state)

    def _serve(self, broker: int, now: float) -> float:
        start = now if now > self.busy_until[broker] else self.busy_until[broker]
        self.busy_until[broker] = start + self.broker_s
        self.busy_time[broker] += self.broker_s
        return start + self.broker_s

    def _after(self, delay: float, callback, *args) -> None:
        timeout = self.env.timeout(delay if delay > 0.0 else 0.0)
        timeout.callbacks.append(lambda _event: callback(*args))

    # -- deliveries, in send order -------------------------------------------------------------
    def _maybe_done(self, state: _EventInFlight) -> None:
        if state.pending == 0:
            self._done[state.event] = state
            while self._next_to_apply in self._done:
                self._apply(self._done.pop(self._next_to_apply))
                self._next_to_apply += 1

    def _apply(self, state: _EventInFlight) -> None:
        """Arrival times of the event's deliveries, then the subscribers' in-order
        application (events complete out of order; they are applied in order)."""
        d, p, view = state.delivery, state.paths, self.view
        first, last, reordered = _arrivals(
            d.offsets, d.subs, p.source, p.hop_ptr, p.hop_to, np.array(state.departure),
            np.array(state.source_departure), view.gateway_zone, self.owner,
            view.last_hop_latency_s, self.serialise_s, self.last_applied, state.published,
            view.n_zones, self.ordered,
        )  # fmt: skip
        queue_len, wait = self.metrics.pop(state.event, (0, 0.0))
        self.metrics[state.event] = {
            "latency_first_s": first,
            "latency_last_s": last,
            "server_queue_len": queue_len,
            "server_wait_s": wait,
            "reordered": reordered,
        }

    def utilisation(self, makespan: float) -> np.ndarray:
        """Share of the run each broker spent serving messages."""
        busy = np.array(self.busy_time)
        return busy / makespan if makespan > 0 else np.zeros_like(busy)


def _no_paths() -> Paths:
    """The paths of an event that sends no message."""
    empty = np.empty(0, np.int64)
    return Paths(empty, np.zeros(1, np.int64), empty, empty)


@numba.njit(cache=True)
def _hop_tree(source, hop_ptr, hop_from, hop_to, n_zones):
    """Who sends each hop on: the hop that brought the message to the hop's start, or
    the message's source. Returns the first hops of every message and the child hops
    of every hop, both as CSR (ptr, hop indexes)."""
    n_hops, n_msgs = len(hop_to), len(hop_ptr) - 1
    parent = np.full(n_hops, -1, np.int64)
    seen = np.full(n_zones, -1, np.int64)  # message that last reached each zone ...
    into = np.empty(n_zones, np.int64)  # ... and by which hop
    for m in range(n_msgs):
        for h in range(hop_ptr[m], hop_ptr[m + 1]):
            z = hop_from[h]
            if seen[z] == m:
                parent[h] = into[z]
            seen[hop_to[h]] = m
            into[hop_to[h]] = h
    first_ptr = np.zeros(n_msgs + 1, np.int64)
    child_ptr = np.zeros(n_hops + 1, np.int64)
    for m in range(n_msgs):
        first_ptr[m + 1] = first_ptr[m]
        for h in range(hop_ptr[m], hop_ptr[m + 1]):
            if parent[h] < 0:
                first_ptr[m + 1] += 1
            else:
                child_ptr[parent[h] + 1] += 1
    child_ptr = np.cumsum(child_ptr)
    first_idx = np.empty(first_ptr[-1], np.int64)
    child_idx = np.empty(child_ptr[-1], np.int64)
    fill = child_ptr[:-1].copy()
    j = 0
    for h in range(n_hops):  # hop order keeps each message's hops together
        if parent[h] < 0:
            first_idx[j] = h
            j += 1
        else:
            child_idx[fill[parent[h]]] = h
            fill[parent[h]] += 1
    return (first_ptr, first_idx), (child_ptr, child_idx)


@numba.njit(cache=True)
def _arrivals(
    offsets, subs, source, hop_ptr, hop_to, departure, source_departure, gateway_zone, owner,
    last_hop_s, serialise_s, last_applied, published, n_zones, ordered,
):  # fmt: skip
    """Apply one event's deliveries (``ordered``: in send order, holding back one that
    overtook an earlier-sent one; else on arrival): (first latency, last latency,
    deliveries held back)."""
    left = np.full(n_zones, np.nan)  # when message m left each zone it reached
    first, last = np.inf, -np.inf
    reordered = 0
    for m in range(len(offsets) - 1):
        left[source[m]] = source_departure[m]
        for h in range(hop_ptr[m], hop_ptr[m + 1]):
            left[hop_to[h]] = departure[h]
        for t in range(offsets[m], offsets[m + 1]):
            s = subs[t]
            arrival = left[gateway_zone[s]] + last_hop_s[s] + serialise_s
            applied = arrival
            if ordered:
                if arrival < last_applied[s]:
                    reordered += 1  # an earlier-sent message arrived later: hold this back
                applied = max(arrival, last_applied[s])
                last_applied[s] = applied
            first = min(first, applied - published)
            last = max(last, applied - published)
        left[source[m]] = np.nan  # reset only what this message set
        for h in range(hop_ptr[m], hop_ptr[m + 1]):
            left[hop_to[h]] = np.nan
    if first == np.inf:
        return np.nan, np.nan, reordered
    return first, last, reordered


class Timer:
    """Replays a run's outcomes in SimPy time, one network per approach."""

    def __init__(self, sim, scenario):
        timing = scenario["timing"]  # a trace path is absolute once validated
        self.env = simpy.Environment()
        self.sim = sim
        self.times = publication_times(timing, len(sim.workload.events), sim.seeds)
        view = sim.network.timed_view()
        self.networks = {
            a.name: TimedNetwork(self.env, view, timing, sim.message_bytes(a.spec), a.spec.ordered)
            for a in sim.approaches
        }

    def replay(self, steps):
        """Pass ``steps`` through, publishing each event at its time in between."""
        endpoints = self.sim.network.endpoints
        for e, outcomes in steps:
            if self.times[e] > self.env.now:
                self.env.run(until=self.times[e])
            for name, o in outcomes.items():
                self.networks[name].publish(e, endpoints.entry_delay_s(o.spec, e), o)
            yield e, outcomes
        self.env.run()

    def columns(self, name: str) -> np.ndarray:
        """The timed metrics of every event of one approach, in catalog order."""
        metrics = self.networks[name].metrics
        names = CATALOG.names("batch", "timed")
        return np.array(
            [[metrics[e][n] for n in names] for e in range(len(self.times))], np.float64
        ).reshape(-1, len(names))

    def utilisation(self, name: str) -> np.ndarray:
        """Per-broker utilisation of one approach over the whole run."""
        return self.networks[name].utilisation(self.env.now)
