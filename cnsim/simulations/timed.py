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

Seed 001's command stream (:class:`StreamClock`) times subscription messages beside
the events, on a clock of its own:

* The commands between two events are issued evenly spaced between their
  publications (:func:`command_times`: those before the first event between 0 and
  it, those after the last at the mean event gap).  A command reaches its home
  broker after the IP latency of that last hop; a publisher's event reaches its
  broker likewise.
* Every broker is one FIFO queue taking ``timing.broker_service_s`` per message it
  handles, subscription messages and events alike; a broker sends what a message
  causes once it has served it.  A link adds the brokers' IP latency plus
  serialisation: a subscription message carries the subscription id and its ``2d``
  edges, ``4 + 8d`` bytes; an event ``messages.event_bytes``.  The subscription
  messages are the batch replay's (each with the message whose processing sent it,
  :meth:`cnsim.brokers.content_based.ContentBasedCN.subscription_messages`) or, with
  covering ``none``, a flood of the tree; so timed and counting runs agree on every
  count, and an event is routed by the tables of its place in the stream even if a
  subscription before it is still on its way.
* Subscription propagation delay of a command: from its issue to the last broker
  serving a message it caused (its home alone when it sends none).  Event latency:
  publication to the first and to the last subscriber notified (the home broker's
  service, then the last hop to the subscriber's node).  Per broker: ``utilisation``,
  ``wait_mean_s``, ``wait_max_s``, ``messages_served``.
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
from cnsim.simulations.metrics import CATALOG, Metric
from cnsim.simulations.seeds import Seeds
from cnsim.subscriptions.covering.workload import CommandWorkload


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
    """Replays a run's outcomes in SimPy time, one network per approach: the queues of
    a run over fixed subscriptions (:class:`TimedNetwork`), or, for a command stream
    (``sim.commands``), its subscription messages and events (:class:`StreamClock`)."""

    def __init__(self, sim, scenario):
        timing = scenario["timing"]  # a trace path is absolute once validated
        self.env = simpy.Environment()
        self.sim = sim
        self.times = publication_times(timing, sim.n_events, sim.seeds)
        self.clocks: dict[str, StreamClock] = {}
        self.networks: dict[str, TimedNetwork] = {}
        if sim.commands is not None:
            event_bytes = scenario["messages"]["event_bytes"]
            self.clocks = {
                a.name: StreamClock(sim.network, sim.commands, timing, event_bytes)
                for a in sim.approaches
            }
            return
        view = sim.network.timed_view()
        self.networks = {
            a.name: TimedNetwork(self.env, view, timing, sim.message_bytes(a.spec), a.spec.ordered)
            for a in sim.approaches
        }

    def replay(self, steps):
        """Pass ``steps`` through, publishing each event at its time in between."""
        endpoints = self.sim.network.endpoints
        for e, outcomes in steps:
            if self.networks and self.times[e] > self.env.now:
                self.env.run(until=self.times[e])
            for name, o in outcomes.items():
                net = self.networks.get(name) or self.clocks[name]
                net.publish(e, endpoints.entry_delay_s(o.spec, e), o)
            yield e, outcomes
        self.env.run()
        for clock in self.clocks.values():
            clock.finish(self.times)

    def metrics(self) -> list[Metric]:
        """The timed metrics of the run's rows, in column order."""
        if self.clocks:
            stream = [m for m in CATALOG.select("batch", "timed") if m.stream]
            return stream + CATALOG.select("batch", "churn-timed")
        return CATALOG.select("batch", "timed")

    def columns(self, name: str) -> np.ndarray:
        """The timed metrics of every event of one approach, in :meth:`metrics` order."""
        names = [m.name for m in self.metrics()]
        if self.clocks:
            columns = self.clocks[name].columns()
            return np.column_stack([columns[n] for n in names]).reshape(-1, len(names))
        metrics = self.networks[name].metrics
        return np.array(
            [[metrics[e][n] for n in names] for e in range(len(self.times))], np.float64
        ).reshape(-1, len(names))

    def utilisation(self, name: str) -> np.ndarray:
        """Per-broker utilisation of one approach over the whole run."""
        return self.broker_columns(name)["utilisation"]

    def broker_columns(self, name: str) -> dict[str, np.ndarray]:
        """The per-broker columns timed mode adds for one approach."""
        if self.clocks:
            return self.clocks[name].broker_columns()
        return {"utilisation": self.networks[name].utilisation(self.env.now)}

    def summary(self) -> dict:
        """The summary entries of the run's clock."""
        if self.clocks:
            return next(iter(self.clocks.values())).summary()
        return {"simulated_time_s": self.env.now}


def command_times(event_times: np.ndarray, after: np.ndarray, n_commands: int) -> np.ndarray:
    """When each command is issued: those before event ``e`` (after event ``e - 1``)
    evenly between the two publications."""
    times = np.empty(n_commands)
    gap = float(np.mean(np.diff(event_times, prepend=0.0))) if len(event_times) else 1e-3
    bounds = np.concatenate(
        [[-1], np.maximum.accumulate(after) if len(after) else [], [n_commands - 1]]
    )
    starts = np.concatenate([[0.0], event_times])
    ends = np.concatenate([event_times, [(event_times[-1] if len(event_times) else 0.0) + gap]])
    for e in range(len(bounds) - 1):
        lo, hi = int(bounds[e]) + 1, int(bounds[e + 1]) + 1
        k = hi - lo
        if k > 0:
            times[lo:hi] = starts[e] + (ends[e] - starts[e]) * np.arange(1, k + 1) / (k + 1)
    return times


class StreamClock:
    """A command stream's subscription messages and its events' routes on one SimPy
    clock of their own (see :class:`Timer`): every command and event is scheduled
    from time 0 once the counting replay has given every event's route."""

    def __init__(self, network, commands: CommandWorkload, timing: dict, event_bytes: int):
        self.env = simpy.Environment()
        self.commands, self.home = commands, network.home
        world = network.world
        self.tree = network.tree
        b = world.n_brokers
        bw = timing["bandwidth_mbps"] * 1e6
        self.sub_ser = (4 + 8 * commands.stream.d) * 8 / bw
        self.event_ser = event_bytes * 8 / bw
        self.service = timing["broker_service_s"]
        self.lat = np.asarray(world.broker_latency, np.float64) / 1000.0
        nl = world.node_latency
        ep = network.endpoints
        self.sub_last = np.asarray(nl[self.home, ep.subscriber_node], np.float64) / 1000.0
        self.pub_entry = np.asarray(nl[ep.nearest_broker, ep.publisher_node], np.float64) / 1000.0
        self.busy_until = [0.0] * b
        self.busy = [0.0] * b
        self.served = [0] * b
        self.wait_sum = [0.0] * b
        self.wait_max = [0.0] * b
        m = network.subscription_messages()
        self.flood = m is None
        st = commands.stream
        self.home_of_cmd = self.home[st.sid].tolist()
        self.paths: list[tuple[int, np.ndarray, np.ndarray, np.ndarray]] = []
        if not self.flood:
            self.dst = m["dst"].tolist()
            parent, cmd = m["parent"], m["cmd"]
            kids = np.flatnonzero(parent >= 0)
            kids = kids[np.argsort(parent[kids], kind="stable")]
            self.kid_ptr = np.searchsorted(parent[kids], np.arange(len(parent) + 1)).tolist()
            self.kids = kids.tolist()
            roots = np.flatnonzero(parent < 0)
            roots = roots[np.argsort(cmd[roots], kind="stable")]
            self.root_ptr = np.searchsorted(cmd[roots], np.arange(len(st) + 1)).tolist()
            self.roots = roots.tolist()
            self.pending = (np.bincount(cmd, minlength=len(st)) + 1).tolist()
        else:
            self.pending = [b] * len(st)
        self.issued = np.zeros(len(st))
        self.last_done = np.zeros(len(st))
        self.latency = np.full((len(commands.after), 2), np.nan)

    # ---- the queues ------------------------------------------------------------------
    def _serve(self, b: int) -> float:
        now = self.env.now
        start = now if now > self.busy_until[b] else self.busy_until[b]
        wait = start - now
        self.wait_sum[b] += wait
        if wait > self.wait_max[b]:
            self.wait_max[b] = wait
        done = start + self.service
        self.busy_until[b] = done
        self.busy[b] += self.service
        self.served[b] += 1
        return done

    def _at(self, t: float, callback, *args) -> None:
        ev = self.env.timeout(max(t - self.env.now, 0.0))
        ev.callbacks.append(lambda _e: callback(*args))

    # ---- subscription messages -------------------------------------------------------
    def _command_done(self, c: int, done: float) -> None:
        if done > self.last_done[c]:
            self.last_done[c] = done
        self.pending[c] -= 1

    def _at_home(self, c: int) -> None:
        h = self.home_of_cmd[c]
        done = self._serve(h)
        self._command_done(c, done)
        if self.flood:
            self._flood_from(c, h, -1, done)
            return
        for i in range(self.root_ptr[c], self.root_ptr[c + 1]):
            k = self.roots[i]
            self._at(done + self.lat[h, self.dst[k]] + self.sub_ser, self._at_message, c, k)

    def _at_message(self, c: int, k: int) -> None:
        v = self.dst[k]
        done = self._serve(v)
        self._command_done(c, done)
        for i in range(self.kid_ptr[k], self.kid_ptr[k + 1]):
            j = self.kids[i]
            self._at(done + self.lat[v, self.dst[j]] + self.sub_ser, self._at_message, c, j)

    def _flood_from(self, c: int, b: int, frm: int, done: float) -> None:
        t = self.tree
        for j in range(t.ptr[b], t.ptr[b + 1]):
            v = int(t.nbr[j])
            if v != frm:
                self._at(done + self.lat[b, v] + self.sub_ser, self._at_flood, c, v, b)

    def _at_flood(self, c: int, v: int, frm: int) -> None:
        done = self._serve(v)
        self._command_done(c, done)
        self._flood_from(c, v, frm, done)

    # ---- events ------------------------------------------------------------------------
    def publish(self, event: int, entry_delay: float, outcome) -> None:
        """Keep event ``event``'s route (its clock runs in :meth:`finish`)."""
        p = outcome.traffic.paths
        self.paths.append((int(p.source[0]), outcome.delivery.subs, p.hop_from, p.hop_to))

    def _at_publisher_broker(self, e: int) -> None:
        broker, subs, frm, to = self.paths[e]
        # per hop, the hop into its sender (-1: the publisher's broker itself)
        into = {broker: -1}
        parent = []
        for h in range(len(to)):
            parent.append(into[int(frm[h])])
            into[int(to[h])] = h
        kids: dict[int, list[int]] = {}
        for h, p in enumerate(parent):
            kids.setdefault(p, []).append(h)
        state = {"done": {}, "pending": len(to) + 1, "kids": kids, "to": to.tolist()}
        self._event_served(e, state, -1, broker)

    def _event_served(self, e: int, state: dict, h: int, b: int) -> None:
        done = self._serve(b)
        state["done"][b] = done
        for j in state["kids"].get(h, ()):
            v = state["to"][j]
            self._at(done + self.lat[b, v] + self.event_ser, self._event_served, e, state, j, v)
        state["pending"] -= 1
        if state["pending"] == 0:
            self._event_finished(e, state["done"])

    def _event_finished(self, e: int, done: dict) -> None:
        _, subs, _, _ = self.paths[e]
        if not len(subs):
            return
        home = self.home[subs]
        at = np.array([done[int(b)] for b in home]) + self.sub_last[subs] + self.event_ser
        published = self.published[e]
        self.latency[e] = (at.min() - published, at.max() - published)

    # ---- the run ---------------------------------------------------------------------------
    def finish(self, event_times: np.ndarray) -> None:
        """Issue every command and publish every event at its time; run to the end."""
        st = self.commands.stream
        self.published = event_times
        self.issued = command_times(event_times, self.commands.after, len(st))
        sid = st.sid
        for c in range(len(st)):
            self._at(self.issued[c] + self.sub_last[sid[c]], self._at_home, c)
        for e in range(len(event_times)):
            self._at(event_times[e] + self.pub_entry[e], self._at_publisher_broker, e)
        self.env.run()
        assert not any(self.pending), "a subscription message was never served"

    def delays(self) -> np.ndarray:
        """Per command: its subscription propagation delay (s)."""
        return self.last_done - self.issued

    def columns(self) -> dict[str, np.ndarray]:
        """Per event: its latencies, and the propagation delays (mean, max) of the
        commands since the previous event."""
        delay, after = self.delays(), self.commands.after
        ptr = np.concatenate([[0], np.maximum.accumulate(after) + 1 if len(after) else []])
        ptr = ptr.astype(int)
        pairs = list(zip(ptr[:-1], ptr[1:], strict=True))
        return {
            "latency_first_s": self.latency[:, 0],
            "latency_last_s": self.latency[:, 1],
            "sub_delay_mean_s": np.array(
                [delay[a:b].mean() if b > a else np.nan for a, b in pairs]
            ),
            "sub_delay_max_s": np.array([delay[a:b].max() if b > a else np.nan for a, b in pairs]),
        }

    def broker_columns(self) -> dict[str, np.ndarray]:
        """Per broker: messages served, utilisation and waits in its queue."""
        makespan, served = self.env.now, np.array(self.served)
        n_b = len(served)
        return {
            "messages_served": served,
            "utilisation": np.array(self.busy) / makespan if makespan > 0 else np.zeros(n_b),
            "wait_mean_s": np.array(self.wait_sum) / np.maximum(served, 1),
            "wait_max_s": np.array(self.wait_max),
        }

    def summary(self) -> dict:
        """The delays of every command and the clock's end."""
        delay = self.delays()
        return {
            "mode": "timed",
            "subscription_delay_s": {
                "mean": float(delay.mean()) if len(delay) else 0.0,
                "p95": float(np.percentile(delay, 95)) if len(delay) else 0.0,
                "max": float(delay.max(initial=0.0)),
            },
            "makespan_s": self.env.now,
        }
