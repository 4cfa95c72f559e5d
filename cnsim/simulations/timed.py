"""Timed mode (SimPy): the counting mode's messages and overlay paths, replayed in
simulated time to give latencies, queueing and reordering.

One driver (:class:`Timer`) runs one SimPy environment beside the run loop: before
each event's outcome is handed to the approaches' clocks the environment runs to the
event's publication time — Poisson arrivals at ``timing.rate`` events per second, or
the times of a trace file — and it runs out after the last event. Each approach has a
clock (:class:`Clock`) of the kind its run declares (``clock`` of the simulation):
every broker is one FIFO queue taking ``timing.broker_service_s`` per message it
handles (its busy time, messages served and waits kept), a link between brokers adds
their IP latency plus serialisation at ``timing.bandwidth_mbps``, and a step is a
scheduled callback (a SimPy timeout with a callback), not a process: a process per
hop is about ten times slower.

Fixed subscriptions (:class:`FixedClock`):

* An event reaches the server (CN-Relax: the publisher's nearest broker) after the IP
  latency from the publisher's node.
* The server is a FIFO resource: generating each message takes
  ``timing.server_service_s``. Each message, once generated, is handled by the broker
  of its source zone like at any other hop. The last hop to a subscriber adds the
  gateway-to-subscriber latency.

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
the events:

* The commands between two events are issued evenly spaced between their
  publications (:func:`command_times`: those before the first event between 0 and
  it, those after the last at the mean event gap).  A command reaches its home
  broker after the IP latency of that last hop; a publisher's event reaches its
  broker likewise.  Both arrivals are scheduled when the clock starts; an event's
  route is the counting replay's, handed over at its publication.
* Every broker queue serves subscription messages and events alike; a broker sends
  what a message causes once it has served it.  A subscription message carries the
  subscription id and its ``2d`` edges, ``4 + 8d`` bytes; an event
  ``messages.event_bytes``.  The subscription messages are the batch replay's (each
  with the message whose processing sent it,
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

from cnsim.algorithms.base import ApproachSpec
from cnsim.brokers.base import Paths
from cnsim.errors import InputError
from cnsim.simulations.config import read_trace
from cnsim.simulations.metrics import CATALOG, Metric
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


class Clock:
    """The timed model of one approach on the driver's SimPy environment ``env``: the
    brokers' FIFO queues and the scheduling of callbacks.

    A subclass is built as ``Clock(env, sim, spec, timing, times)`` — the run (its
    ``network``, ``message_bytes``; a command stream's ``commands``), the approach's
    declarations, the ``[timing]`` table and every event's publication time — and
    provides:

    * ``metrics()`` (a classmethod): the catalog metrics it fills per event, in column
      order;
    * ``publish(event, entry_delay, outcome)``: event ``event`` is published now (the
      environment has run to its publication time) with the counting replay's
      ``outcome``; it reaches its entry ``entry_delay`` seconds later;
    * ``columns()``: once the environment has run out, ``{metric name: value per
      event}`` for every metric of ``metrics()``;
    * ``broker_columns()``: ``{column: value per broker}``, added to the broker rows;
    * ``summary()``: its entries of the run's summary.
    """

    def __init__(self, env: simpy.Environment, n_brokers: int, service_s: float):
        self.env = env
        self.service_s = service_s
        self.busy_until = [0.0] * n_brokers
        self.busy = [0.0] * n_brokers  # time spent serving
        self.served = [0] * n_brokers
        self.wait_sum = [0.0] * n_brokers
        self.wait_max = [0.0] * n_brokers
        self.last_arrival = 0.0  # when the latest message reached a queue

    def _serve(self, b: int, now: float) -> float:
        """A message reaches broker ``b``'s queue at ``now``: when it leaves, served."""
        start = now if now > self.busy_until[b] else self.busy_until[b]
        wait = start - now
        self.wait_sum[b] += wait
        if wait > self.wait_max[b]:
            self.wait_max[b] = wait
        done = start + self.service_s
        self.busy_until[b] = done
        self.busy[b] += self.service_s
        self.served[b] += 1
        if now > self.last_arrival:
            self.last_arrival = now
        return done

    def _after(self, delay: float, callback, *args) -> None:
        """Call ``callback(*args)`` ``delay`` seconds from now (at once if negative)."""
        timeout = self.env.timeout(delay if delay > 0.0 else 0.0)
        timeout.callbacks.append(lambda _event: callback(*args))

    def _queue_columns(self, makespan: float) -> dict[str, np.ndarray]:
        """Per broker: messages served, utilisation over ``makespan`` and waits."""
        served = np.array(self.served)
        busy = np.array(self.busy)
        return {
            "messages_served": served,
            "utilisation": busy / makespan if makespan > 0 else np.zeros_like(busy),
            "wait_mean_s": np.array(self.wait_sum) / np.maximum(served, 1),
            "wait_max_s": np.array(self.wait_max),
        }


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
    # who owned every zone and the subscriptions' last hops when it was published (brokers
    # that fail hand zones over: cnsim/brokers/faults.py)
    owner: np.ndarray
    last_hop_s: np.ndarray


class FixedClock(Clock):
    """The server and broker queues of one approach over fixed subscriptions, each
    event's paths replayed from the network's :class:`~cnsim.brokers.base.TimedView`."""

    def __init__(self, env: simpy.Environment, sim, spec: ApproachSpec, timing: dict, times):
        view = sim.network.timed_view()
        super().__init__(env, view.world.n_brokers, timing["broker_service_s"])
        self.network = sim.network  # its view is read again at every event
        self.view = view
        self.ordered = spec.ordered  # hold back messages that overtook earlier-sent ones
        self.latency_s = np.asarray(view.world.broker_latency, np.float64) / 1000.0
        self.serialise_s = sim.message_bytes(spec) * 8 / (timing["bandwidth_mbps"] * 1e6)
        self.server_s = timing["server_service_s"]
        self.server_free = 0.0
        self.server_finishes: deque[float] = deque()
        self.last_applied = np.full(len(view.gateway_zone), -np.inf)  # per subscription
        self.n_events = len(times)
        self.per_event: dict[int, tuple | dict] = {}
        self._done: dict[int, _EventInFlight] = {}
        self._next_to_apply = 0

    @classmethod
    def metrics(cls) -> list[Metric]:
        return CATALOG.select("batch", "timed")

    # -- arrival at the entry point ----------------------------------------------------------
    def publish(self, event: int, entry_delay: float, outcome) -> None:
        """Event ``event`` is published now; it reaches its entry after ``entry_delay``."""
        paths = outcome.traffic.paths or _no_paths()
        n_zones = self.view.n_zones
        firsts, children = _hop_tree(
            paths.source, paths.hop_ptr, paths.hop_from, paths.hop_to, n_zones
        )
        view = self.network.timed_view()  # who owns the zones now
        owner = view.owner.astype(np.int64)
        frm, to = owner[paths.hop_from], owner[paths.hop_to]
        n_msgs, n_hops = len(outcome.messages), len(to)
        state = _EventInFlight(
            event, self.env.now, paths, outcome.delivery, n_msgs + n_hops,
            owner[paths.source].tolist(), to.tolist(),
            (self.latency_s[frm, to] + self.serialise_s).tolist(),
            (firsts[0].tolist(), firsts[1].tolist()), (children[0].tolist(), children[1].tolist()),
            [0.0] * n_hops, [0.0] * n_msgs, owner, view.last_hop_latency_s,
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
        self.per_event[state.event] = (queue_len, start - now)
        # Each message, once generated, is handled by the broker of its source zone
        # (the server's entry into the overlay) like at any other hop.
        for m in range(n):
            self._after(start + self.server_s * (m + 1) - now, self._at_source, state, m)
        if not n:
            self._maybe_done(state)

    def _at_publisher_broker(self, state: _EventInFlight) -> None:
        # No server (CN-Relax): each message leaves the publisher's broker after that
        # broker's service.
        self.per_event[state.event] = (0, 0.0)
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
            np.array(state.source_departure), view.gateway_zone, state.owner,
            state.last_hop_s, self.serialise_s, self.last_applied, state.published,
            view.n_zones, self.ordered,
        )  # fmt: skip
        queue_len, wait = self.per_event.pop(state.event, (0, 0.0))
        self.per_event[state.event] = {
            "latency_first_s": first,
            "latency_last_s": last,
            "server_queue_len": queue_len,
            "server_wait_s": wait,
            "reordered": reordered,
        }

    def columns(self) -> dict[str, np.ndarray]:
        """Per event: its latencies, its wait at the server and the messages held back."""
        rows = [self.per_event[e] for e in range(self.n_events)]
        return {m.name: np.array([r[m.name] for r in rows], np.float64) for m in self.metrics()}

    def broker_columns(self) -> dict[str, np.ndarray]:
        """Per broker: the share of the run it spent serving messages."""
        return {"utilisation": self._queue_columns(self.env.now)["utilisation"]}

    def summary(self) -> dict:
        """The simulated time the run took."""
        return {"simulated_time_s": self.env.now}


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
    """The timed driver: one SimPy environment and, per approach, a clock of the kind
    the run declares (``sim.clock``: :class:`FixedClock` or :class:`StreamClock`)."""

    def __init__(self, sim, scenario):
        timing = scenario["timing"]  # a trace path is absolute once validated
        self.env = simpy.Environment()
        self.sim = sim
        self.kind: type[Clock] = sim.clock
        self.times = publication_times(timing, sim.n_events, sim.seeds)
        self.clocks: dict[str, Clock] = {
            a.name: self.kind(self.env, sim, a.spec, timing, self.times) for a in sim.approaches
        }

    def replay(self, steps):
        """Pass ``steps`` through, publishing each event at its time in between."""
        endpoints = self.sim.network.endpoints
        for e, outcomes in steps:
            if self.times[e] > self.env.now:
                self.env.run(until=self.times[e])
            for name, o in outcomes.items():
                self.clocks[name].publish(e, endpoints.entry_delay_s(o.spec, e), o)
            yield e, outcomes
        self.env.run()

    def metrics(self) -> list[Metric]:
        """The timed metrics of the run's rows, in column order."""
        return self.kind.metrics()

    def columns(self, name: str) -> np.ndarray:
        """The timed metrics of every event of one approach, in :meth:`metrics` order."""
        names = [m.name for m in self.metrics()]
        columns = self.clocks[name].columns()
        return np.column_stack([columns[n] for n in names]).reshape(-1, len(names))

    def utilisation(self, name: str) -> np.ndarray:
        """Per-broker utilisation of one approach over the whole run."""
        return self.broker_columns(name)["utilisation"]

    def broker_columns(self, name: str) -> dict[str, np.ndarray]:
        """The per-broker columns timed mode adds for one approach."""
        return self.clocks[name].broker_columns()

    def summary(self) -> dict:
        """The summary entries of the run's clock (the first approach's)."""
        return next(iter(self.clocks.values())).summary()


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


class StreamClock(Clock):
    """A command stream's subscription messages and its events' routes on the driver's
    clock: every command's arrival at its home broker and every event's at its
    publisher's broker are scheduled when the clock starts; an event's route is
    handed over at its publication (:meth:`publish`)."""

    def __init__(self, env: simpy.Environment, sim, spec: ApproachSpec, timing: dict, times):
        network, commands = sim.network, sim.commands
        world = network.world
        super().__init__(env, world.n_brokers, timing["broker_service_s"])
        self.commands, self.home = commands, network.home
        self.tree = network.tree
        bw = timing["bandwidth_mbps"] * 1e6
        self.sub_ser = (4 + 8 * commands.stream.d) * 8 / bw
        self.event_ser = sim.message_bytes(spec) * 8 / bw
        self.lat = np.asarray(world.broker_latency, np.float64) / 1000.0
        nl = world.node_latency
        ep = network.endpoints
        self.sub_last = np.asarray(nl[self.home, ep.subscriber_node], np.float64) / 1000.0
        self.pub_entry = np.asarray(nl[ep.nearest_broker, ep.publisher_node], np.float64) / 1000.0
        m = network.subscription_messages()
        self.flood = m is None
        st = commands.stream
        self.home_of_cmd = self.home[st.sid].tolist()
        # per event handed over: (publisher's broker, subscribers, hop_from, hop_to)
        self.paths: list[tuple[int, np.ndarray, np.ndarray, np.ndarray]] = []
        self._early: set[int] = set()  # events at their broker before their route
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
            self.pending = [world.n_brokers] * len(st)
        self.published = times
        self.issued = command_times(times, commands.after, len(st))
        self.last_done = np.zeros(len(st))
        self.latency = np.full((len(commands.after), 2), np.nan)
        now = env.now
        for c in range(len(st)):
            self._after(self.issued[c] + self.sub_last[st.sid[c]] - now, self._at_home, c)
        for e in range(len(times)):
            self._after(times[e] + self.pub_entry[e] - now, self._at_publisher_broker, e)

    @classmethod
    def metrics(cls) -> list[Metric]:
        stream = [m for m in CATALOG.select("batch", "timed") if m.stream]
        return stream + CATALOG.select("batch", "churn-timed")

    # ---- subscription messages -------------------------------------------------------
    def _command_done(self, c: int, done: float) -> None:
        if done > self.last_done[c]:
            self.last_done[c] = done
        self.pending[c] -= 1

    def _at_home(self, c: int) -> None:
        h = self.home_of_cmd[c]
        done = self._serve(h, self.env.now)
        self._command_done(c, done)
        if self.flood:
            self._flood_from(c, h, -1, done)
            return
        self._send(c, h, done, self.roots[self.root_ptr[c] : self.root_ptr[c + 1]])

    def _at_message(self, c: int, k: int) -> None:
        v = self.dst[k]
        done = self._serve(v, self.env.now)
        self._command_done(c, done)
        self._send(c, v, done, self.kids[self.kid_ptr[k] : self.kid_ptr[k + 1]])

    def _send(self, c: int, b: int, done: float, messages: list) -> None:
        """Command ``c``'s ``messages`` leave broker ``b``, which served their cause
        by ``done``."""
        now, lat = self.env.now, self.lat[b]
        for k in messages:
            self._after(done + lat[self.dst[k]] + self.sub_ser - now, self._at_message, c, k)

    def _flood_from(self, c: int, b: int, frm: int, done: float) -> None:
        t, now = self.tree, self.env.now
        for j in range(t.ptr[b], t.ptr[b + 1]):
            v = int(t.nbr[j])
            if v != frm:
                self._after(done + self.lat[b, v] + self.sub_ser - now, self._at_flood, c, v, b)

    def _at_flood(self, c: int, v: int, frm: int) -> None:
        done = self._serve(v, self.env.now)
        self._command_done(c, done)
        self._flood_from(c, v, frm, done)

    # ---- events ------------------------------------------------------------------------
    def publish(self, event: int, entry_delay: float, outcome) -> None:
        """Keep event ``event``'s route; it reaches its broker at the time scheduled
        when the clock started (``entry_delay`` is :attr:`pub_entry`)."""
        p = outcome.traffic.paths
        self.paths.append((int(p.source[0]), outcome.delivery.subs, p.hop_from, p.hop_to))
        # the driver stops at a publication time rounded to the nearest float; an event
        # whose broker is on its publisher's node can get there first: it is served at
        # its own arrival time now that its route is known
        if event in self._early:
            self._early.remove(event)
            self._route(event, self.published[event] + self.pub_entry[event])

    def _at_publisher_broker(self, e: int) -> None:
        if e < len(self.paths):
            self._route(e, self.env.now)
        else:
            self._early.add(e)

    def _route(self, e: int, now: float) -> None:
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
        self._event_served(e, state, -1, broker, now)

    def _event_at(self, e: int, state: dict, h: int, b: int) -> None:
        self._event_served(e, state, h, b, self.env.now)

    def _event_served(self, e: int, state: dict, h: int, b: int, now: float) -> None:
        done = self._serve(b, now)
        state["done"][b] = done
        for j in state["kids"].get(h, ()):
            v = state["to"][j]
            at = done + self.lat[b, v] + self.event_ser
            self._after(at - self.env.now, self._event_at, e, state, j, v)
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

    # ---- what the run records ----------------------------------------------------------------
    def delays(self) -> np.ndarray:
        """Per command: its subscription propagation delay (s)."""
        return self.last_done - self.issued

    def columns(self) -> dict[str, np.ndarray]:
        """Per event: its latencies, and the propagation delays (mean, max) of the
        commands since the previous event."""
        assert not any(self.pending), "a subscription message was never served"
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
        """Per broker: messages served, utilisation and waits in its queue, over the
        time until the last message reached a queue."""
        return self._queue_columns(self.last_arrival)

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
            "makespan_s": self.last_arrival,
        }
