"""The run loop of every scenario: wires one scenario's world and drives every
approach over the identical event stream, recording one metrics row per (approach,
batch); timed mode replays the same outcomes (:mod:`cnsim.simulations.timed`).

A scenario's subscriptions are fixed (:class:`Simulation`) or, for seed 001's command
stream, subscribe and unsubscribe between the events (:class:`StreamSimulation`: the
network applies the commands due before each event, its ``joins`` capability); both
give the loop the same steps, metrics, frame and summary, and declare the clock the
one timed driver runs for each approach (``clock``).

A run's subscribers may also join and leave (``[churn]``,
:mod:`cnsim.subscriptions.churn`) and its Meghdoot brokers fail and come back
(``[faults]``, :mod:`cnsim.brokers.faults`): both happen between batches, in the same
loop.

Events are taken in batches of ``events.batch_size`` (1: every event alone). For
each batch, every approach applies its updates to its own object index and turns
them into messages, the network delivers them from the brokers' own state, and the
approach's own copy of the subscriber lists applies the deliveries. What is
recorded is declared in the metrics catalog (:mod:`cnsim.simulations.metrics`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

import numpy as np
import pandas as pd

from cnsim.algorithms.base import Approach, ApproachSpec, ServerView
from cnsim.algorithms.messages import Messages, reach
from cnsim.algorithms.registry import make_approach, parse
from cnsim.brokers import NETWORKS
from cnsim.brokers.base import Delivery, Network, NetworkSetup, Part, RankedSetup, Traffic
from cnsim.brokers.faults import FaultStep, faulty, loss_summary
from cnsim.brokers.forwarding import Covering
from cnsim.errors import CLI, Names
from cnsim.server.distributed import Zones
from cnsim.simulations.config import Scenario, check_call
from cnsim.simulations.metrics import CATALOG, INTERVAL, Metric, aggregate, ratio_interval
from cnsim.simulations.oracle import Truth
from cnsim.simulations.progress import interval_s, track
from cnsim.simulations.ranked import ranked_summary
from cnsim.simulations.result import Result, claim_out_dir
from cnsim.simulations.seeds import Seeds
from cnsim.simulations.server_load import ServerLoad
from cnsim.simulations.sizes import check_fits
from cnsim.simulations.timed import FixedClock, StreamClock, Timer
from cnsim.simulations.world import Workload, build_workload
from cnsim.subscriptions.churn import Churn, churns, min_y_calls, pooled
from cnsim.subscriptions.covering.workload import command_workload
from cnsim.subscriptions.kinds import kind_of
from cnsim.subscriptions.lists import Layout, TopKLists
from cnsim.subscriptions.workload import Events, Updates


@dataclass
class Outcome:
    """What one approach did for one batch (one event when batches hold one), with the
    message sizes its traffic is weighed by."""

    spec: ApproachSpec
    messages: Messages
    delivery: Delivery
    traffic: Traffic
    publish_ip_hops: int
    calls: dict[str, int]
    server_time_s: float
    delivery_time_s: float
    message_bytes: int
    event_bytes: int
    updated: np.ndarray  # the objects the batch's events update (not exposed ones)
    # a command stream: what the commands before the event cost (Network.apply_commands)
    commands: dict[str, float] = field(default_factory=dict)
    # [churn]: who joined and left before the batch, what the joining ones' lists cost
    joins: dict[str, float] = field(default_factory=dict)
    # [faults]: brokers failed and repaired before the batch, what was lost, the repair
    faults: dict[str, float] = field(default_factory=dict)


def message_sizes(scenario: Scenario, w: Workload, approaches) -> dict[str, tuple[int, int]]:
    """Per approach, the bytes of one of its messages (a targeted one's, else a region
    of the kind's S) and of an event (``[messages]``)."""
    sizes = scenario["messages"]
    region_bytes = w.kind.region_bytes(w, sizes)
    return {
        a.name: (
            sizes["unicast_bytes"] if a.spec.message == "targeted" else region_bytes,
            sizes["event_bytes"],
        )
        for a in approaches
    }


def batch_modes(scenario: Scenario) -> tuple[str, ...]:
    """The catalog's modes of a counting run's batch columns: ``counting``, then those
    the scenario turns on (several servers, subscribers that come and go, brokers that
    fail, ranked delivery)."""
    on = {
        "distributed": scenario["server"]["count"] > 1,
        "joins": churns(scenario["churn"]),
        "faults": faulty(scenario["faults"]),
        "ranked": any(parse(a).message == "ranked" for a in scenario.approaches),
    }
    return ("counting", *(mode for mode, yes in on.items() if yes))


class Simulation:
    """A scenario's world, its approaches and their subscriber lists (``part``: those of
    one partition of a run spread over Spark tasks, :mod:`cnsim.simulations.partitioned`;
    ``self.partial`` says so)."""

    clock = FixedClock  # timed mode: the server's and brokers' queues (cnsim.simulations.timed)

    def __init__(
        self,
        scenario: Scenario,
        events: int | None = None,
        track_lists: bool = True,
        part: PartOfRun | None = None,
    ):
        self.scenario = scenario
        self.seeds = Seeds(scenario.seed)
        w = build_workload(scenario, self.seeds, events)
        # [churn]: every structure is built over the pool of the subscriptions the run
        # ever holds, the joining ones absent until they join
        self.churn: Churn | None
        self.churn, w = pooled(scenario["churn"], w, self.seeds)
        held = None  # a partition of a run spread over Spark tasks: its subscriptions
        self.partial = part is not None
        if part is not None:  # planned over the pool, as one process plans it
            held = part.held(w)
            w = w.subscriptions_of(held.ids)
            if self.churn is not None:
                self.churn = self.churn.restricted(held.ids)
        self.workload: Workload = w
        self.batch_size = scenario["events"]["batch_size"]
        self.subscriptions = w.kind.index(w)
        setup = network_setup(scenario, w.kind, len(w.events), self.seeds)
        if self.churn is not None:  # the network subscribes the others as they join
            setup = replace(setup, present=self.churn.initial)
        if held is not None:
            setup = replace(setup, part=held)
        self._setup = setup
        self.network: Network = NETWORKS[scenario["overlay"]["kind"]].create(
            setup, self.subscriptions
        )
        # Lists are stored in the order the network delivers from, with
        # object ids as compact as the run's ids allow.
        order = self.network.layout()
        layout = None if order is None else Layout.of(order)
        max_id = max(len(w.x) - 1, int(w.events.obj.max()) if len(w.events.obj) else -1)
        initial = w.kind.initial_lists(w, layout, max_id)
        servers = scenario["server"]["count"]
        view = server_view(w, scenario, self.subscriptions, initial)
        self._view = view
        self._boxes: tuple[np.ndarray, np.ndarray] | None = None  # made by _bounds
        self.approaches = [
            make_approach(name, view) if part is None else part.approach(name, view)
            for name in scenario.approaches
        ]
        # [server] count > 1: the objects spread over servers by x (seed 003 appendix C)
        self.server_load: ServerLoad | None = None
        if servers > 1:  # each server at a broker of its own, walks weighed by their hops
            zones = Zones.split(w.x, w.y, servers)
            links = self.network.place_servers(zones, w.events)
            self.server_load = ServerLoad(zones, self.approaches, links)
        self.lists: dict[str, TopKLists] = {}
        self._server_lists: dict[str, TopKLists] = {}
        # approaches whose server keeps its subscribers' lists in step (Unicast): their
        # lists are shared, not applied twice
        self._in_step: set[str] = set()
        if track_lists:
            keep = [a for a in self.approaches if a.spec.stores == "top-k"]
            # with faults a server's copy (Unicast's) and its subscribers' lists part:
            # a message to a lost subscription is sent, never received
            shared = [a for a in keep if _subscriber_lists(a) is not None and not setup.faults]
            fresh = [a.name for a in keep if a not in shared]
            apart = [a for a in keep if _subscriber_lists(a) is not None and a not in shared]
            self._server_lists = {a.name: _subscriber_lists(a) for a in apart}
            for a in keep:  # a range store needs no list of k
                if a in shared:
                    self.lists[a.name] = _subscriber_lists(a)
                    self._in_step.add(a.name)
            for j, name in enumerate(fresh):
                # the approaches hold their copies by now: the last takes the initial
                self.lists[name] = initial if j == len(fresh) - 1 else initial.copy()
        self._sizes = message_sizes(scenario, w, self.approaches)
        self.live: np.ndarray | None = None  # [churn]: which subscriptions are live
        self._truth: Truth | None = None  # a range store's arrivals: the objects now
        if (self.churn is not None or setup.faults) and any(
            a.spec.stores == "range" for a in self.approaches
        ):
            self._truth = Truth(w)
        if self.churn is not None:
            self.live = np.ones(self.churn.pool, np.bool_)
            self._live_count = self.churn.pool
            self._set_alive(np.arange(self.churn.initial, self.churn.pool), False)
            self.network.churn_messages()  # setting the pool up sends nothing to count

    @property
    def n_events(self) -> int:
        return len(self.workload.events)

    @property
    def events(self) -> Events:
        return self.workload.events

    def message_bytes(self, spec: ApproachSpec) -> int:
        """Bytes of one message of ``spec``'s kind."""
        return self._sizes[spec.name][0]

    def metrics(self) -> list[Metric]:
        """The batch metrics the run loop collects from every outcome, in column order."""
        return [m for mode in self.modes() for m in CATALOG.select("batch", mode) if m.collect]

    def modes(self) -> tuple[str, ...]:
        """The catalog's modes of the run's batch columns (timed mode adds its own)."""
        return batch_modes(self.scenario)

    def frame(self, columns: dict[str, np.ndarray], metrics: list[Metric]) -> pd.DataFrame:
        """One row per approach and batch: the batch, then the metrics."""
        return _with_redundancy(_frame(self, columns, metrics), self)

    def summary(self, frame: pd.DataFrame, setup_s: float, total_s: float, timer) -> dict:
        """The run's sizes and every approach's summary entries."""
        return _summary(self.scenario, self, frame, setup_s, total_s, timer)

    def sizes(self) -> dict:
        """The run's sizes as ``summary.json`` records them."""
        w = self.workload
        return {
            "objects": int(len(w.x)),
            # the initial ones ([churn]: those joining later are in "churn")
            "subscriptions": int(len(w.l) if self.churn is None else self.churn.initial),
            "k": w.k,
            "events": int(len(w.events)),
            # events drawn as deletes, moves or updates that became inserts (no object left)
            "forced_inserts": w.events.forced_inserts,
            "batch_size": self.batch_size,
            "overlay": self.network.kind,
        }

    def subscriber_memory(self, approach, object_bytes: int) -> int:
        """Bytes all subscribers store under ``approach`` (a range store keeps every
        object of its range)."""
        w = self.workload
        if approach.spec.stores == "range":
            return approach.memory_bytes(w.x, w.y, object_bytes)
        if approach.spec.stores == "notifications":  # ranked delivery: nothing kept
            return 0
        live = len(w.l) if self.live is None else int(self.live.sum())
        return live * w.k * object_bytes

    def servers(self) -> pd.DataFrame | None:
        """Per approach and server of the distributed object database, or None."""
        if self.server_load is None:
            return None
        return self.server_load.frame(self.approaches, self.message_bytes)

    def batches(self) -> Iterator[tuple[int, int]]:
        """``(first, stop)`` event indexes of every batch."""
        return batch_bounds(len(self.workload.events), self.batch_size)

    def steps(self) -> Iterator[tuple[int, dict[str, Outcome]]]:
        """Process the batches in order, yielding each batch's outcome per approach;
        before each, the brokers due fail and come back (``[faults]``), then the
        subscriptions due join and leave (``[churn]``), those arriving with their first
        lists."""
        ev = self.workload.events
        for b, (first, stop) in enumerate(self.batches()):
            updates = ev.updates(first, stop)
            update_events = np.repeat(np.arange(first, stop), np.diff(ev.start[first : stop + 1]))
            fault = None if self._setup.faults is None else self.network.apply_faults(first, stop)
            back = None if fault is None else self._arrivals(fault.resubscribing)
            joining = None if self.churn is None else self._churn(first, stop)
            outcomes = {}
            for a in self.approaches:
                joins = {} if joining is None else self._join(a, *joining)
                repair = {} if fault is None else self._repair(a, fault, back)
                o = outcomes[a.name] = self._process(a, updates, update_events, first, stop)
                o.joins = joins
                if fault is not None:  # what the lost subscriptions missed
                    o.faults = {**repair, "lost_msgs": o.traffic.costs.get("lost_msgs", 0),
                                "stale_subs": self.network.stale_subs(a.name)}  # fmt: skip
            if self._truth is not None:
                self._truth.apply(updates)
            yield b, outcomes

    def lost(self) -> np.ndarray | None:
        """Which subscriptions are lost now (held by a failed broker with no replica
        up, ``[faults]``), or None: none can be."""
        return None if self._setup.faults is None else self.network.lost_mask()

    def fault_totals(self, name: str) -> dict[str, int]:
        """The counts of the losses under approach ``name`` (``[faults]``)."""
        return self.network.fault_totals(name)

    def bound_setup(self) -> dict[str, int] | None:
        """Ranked delivery's initial bound dissemination (None: no ranked approach)."""
        if not any(a.spec.message == "ranked" for a in self.approaches):
            return None
        return self.network.ranked.net.setup_bound_traffic()

    def _set_alive(self, ids: np.ndarray, alive: bool) -> None:
        """Subscriptions ``ids`` join or leave: the run's index of S (the server's), the
        network's gateways and the live mask."""
        if not len(ids):
            return
        self.subscriptions.set_alive(ids, alive)
        self.network.set_alive(ids, alive)
        self.live[ids] = alive
        self._live_count += len(ids) if alive else -len(ids)

    def _churn(self, first: int, stop: int) -> tuple[Arrivals, dict[str, float]]:
        """Let the subscriptions due before the batch ``first .. stop - 1`` join and
        leave; who joined, with their first lists, and the counts rows record."""
        joining, leaving = self.churn.due(first, stop)
        self._set_alive(joining, True)
        self._set_alive(leaving, False)
        counts = {"joins": len(joining), "leaves": len(leaving), "live_subs": self._live_count,
                  "join_forward_msgs": self.network.churn_messages()}  # fmt: skip
        return self._arrivals(joining), counts

    def _arrivals(self, subs: np.ndarray) -> Arrivals:
        """Subscriptions ``subs`` arriving at their gateways, with their first lists from
        the server: every server holds the same objects at a batch's start, so one
        answer serves all approaches."""
        served = [a for a in self.approaches if a.object_index() is not None]
        if not len(subs) or not served:
            return Arrivals(subs, None)
        lo, hi = (b[subs] for b in self._bounds())
        return Arrivals(subs, self._view.server.top_k(served[0].object_index(), lo, hi,
                                                       self.workload.k))  # fmt: skip

    def _receive(self, approach, arrivals: Arrivals) -> tuple[int, int, int]:
        """The arriving subscriptions' first lists under ``approach``, set in its lists:
        a top-k list from its server, or — a range store (CN-Relax) — every object of the
        range, from the gateway broker; ``(calls, bytes, IP bytes)`` of the one message
        each gets (calls: the ``min_y`` calls k rounds of it make; IP hops:
        :meth:`Network.join_ip_hops`)."""
        subs = arrivals.subs
        if not len(subs):
            return 0, 0, 0
        calls = 0
        if approach.spec.stores == "range":
            entries = self._truth.inside(subs)
        else:
            ids, ys = arrivals.lists
            calls = min_y_calls(ids)
            if approach.name in self.lists:
                self.lists[approach.name].assign(subs, ids, ys)
            if approach.name in self._server_lists:  # the server's own copy, apart
                self._server_lists[approach.name].assign(subs, ids, ys)
            entries = (ids >= 0).sum(axis=1)
        object_bytes = self.scenario["messages"]["object_bytes"]
        hops = self.network.join_ip_hops(subs, approach.spec.entry)
        return calls, int(entries.sum()) * object_bytes, int((entries * hops).sum()) * object_bytes

    def _join(self, approach, arrivals: Arrivals, counts: dict[str, float]) -> dict[str, float]:
        """What the joining subscriptions cost under ``approach`` (catalog mode
        "joins")."""
        calls, size, ip = self._receive(approach, arrivals)
        return {**counts, "join_calls": calls, "join_msgs": len(arrivals.subs),
                "join_bytes": size, "join_ip_bytes": ip}  # fmt: skip

    def _repair(self, approach, step: FaultStep, arrivals: Arrivals) -> dict[str, float]:
        """What the failures and repairs before the batch cost under ``approach``
        (catalog mode "faults"): zones handed back, and each re-subscribing subscriber's
        subscription (to its gateway, over the last hop) and first list."""
        c = step.counts
        calls, size, ip = self._receive(approach, arrivals)
        subs = arrivals.subs
        sub_bytes = self._setup.subscription_bytes
        last_hops = int(self.network.join_ip_hops(subs, "publisher").sum())
        return {
            "failures": c["failures"], "repairs": c["repairs"],
            "link_failures": c["link_failures"], "lost_subs": c["lost_subs"],
            "resubscriptions": c["resubscriptions"], "repair_calls": calls,
            "repair_msgs": c["moved_msgs"] + 2 * len(subs),
            "repair_bytes": c["moved_bytes"] + len(subs) * sub_bytes + size,
            "repair_ip_bytes": c["moved_ip_bytes"] + last_hops * sub_bytes + ip,
        }  # fmt: skip

    def _bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Every subscription as a box over the objects' attributes (made once)."""
        if self._boxes is None:
            w = self.workload
            self._boxes = tuple(np.ascontiguousarray(b, np.float64) for b in w.kind.bounds(w))
        return self._boxes

    def _process(self, approach, updates: Updates, update_events, first, stop) -> Outcome:
        spec = approach.spec
        before = approach.calls()
        t0 = time.perf_counter()
        servers = None  # with several servers: the server each message leaves from
        if self.server_load is None:
            messages = approach.process(updates)
        else:  # each update processed at the server owning it
            messages, servers = self.server_load.process_at(approach, updates)
        t1 = time.perf_counter()
        delivery, traffic = self.network.deliver(spec, messages, update_events, servers)
        if approach.name in self.lists and approach.name not in self._in_step:
            self.lists[approach.name].apply(
                delivery.subs, delivery.obj, delivery.y, delivery.evict, delivery.rows
            )
        t2 = time.perf_counter()
        calls = {key: value - before[key] for key, value in approach.calls().items()}
        publish = self.network.publish_ip_hops(spec, first, stop)
        return Outcome(
            spec, messages, delivery, traffic, publish, calls, t1 - t0, t2 - t1,
            *self._sizes[spec.name], updated=updates.obj,
        )  # fmt: skip


class PartOfRun(Protocol):
    """One partition of a run spread over Spark tasks
    (:class:`cnsim.simulations.partitioned.Partition`)."""

    def held(self, w: Workload) -> Part:
        """Its subscriptions among the run's (``w``: the whole workload)."""

    def approach(self, name: str, view: ServerView) -> Approach:
        """The approach ``name`` as it runs in the partition: built over ``view`` (the
        partition's subscriptions), or replayed from its server's log."""


def batch_bounds(n_events: int, batch_size: int) -> Iterator[tuple[int, int]]:
    """``(first, stop)`` event indexes of every batch of ``batch_size`` events."""
    for first in range(0, n_events, batch_size):
        yield first, min(first + batch_size, n_events)


@dataclass(frozen=True)
class Arrivals:
    """Subscriptions arriving at their gateways before a batch (joining, [churn], or
    re-subscribing after a broker failure, [faults]), with their first lists from the
    server (ids, ys), or None (no approach with a server)."""

    subs: np.ndarray
    lists: tuple[np.ndarray, np.ndarray] | None


@dataclass(frozen=True)
class Publisher:
    """An approach without a server (CN-Relax) publishing a command stream's events
    at their publishers' brokers as the message reaching every box holding the point."""

    spec: ApproachSpec

    @property
    def name(self) -> str:
        return self.spec.name


class StreamSimulation:
    """Seed 001's command stream (Shen, Aluru, Tirthapura, "Indexing for Subscription
    Covering in Publish-Subscribe Systems", §V-A) as a run: box subscriptions over the
    content-based overlay that subscribe and unsubscribe, interleaved with published
    events, and no objects or top-k lists.

    Workload (:func:`cnsim.subscriptions.covering.workload.command_workload`):
    ``subscriptions.count`` commands on ``d = subscriptions.dims`` attributes, each a
    subscribe of a random box (every edge a random segment of the integers
    ``0 .. 1023``) with probability ``1 - p`` or an unsubscribe of a uniformly chosen
    live subscription with probability ``p = subscriptions.churn``; command ``i`` is
    issued by a subscriber on an IP node (stream ``subscriber_nodes``) attached to its
    nearest broker.  ``events.count`` points uniform over the same integers (stream
    ``events``) are published from uniformly drawn IP nodes (stream ``publishers``) at
    their nearest broker, evenly spread over the stream.

    Before each event the network applies the commands due (its ``joins``
    capability, :meth:`cnsim.brokers.base.Network.apply_commands`); the event is CN-Relax's
    point message, delivered by the network like any other.  A row per event: the
    event, the last command before it, the live subscriptions, then the catalog's
    ``churn`` metrics (the counters of the commands since the previous event, the
    routing entries after them) and the counting metrics declared ``stream`` (an
    event is ``messages.event_bytes`` long).

    ``engine`` (``"auto"``, ``"batch"``, ``"reference"``): how the brokers replay
    the subscriptions (:attr:`cnsim.brokers.base.NetworkSetup.engine`; timed runs
    replay in batch, which keeps every subscription message)."""

    batch_size = 1  # every event alone
    server_load = None
    clock = StreamClock  # timed mode: subscription messages beside the events

    def __init__(self, scenario: Scenario, events: int | None = None, engine: str = "auto"):
        self.scenario = scenario
        self.seeds = Seeds(scenario.seed)
        s = scenario["subscriptions"]
        n_events = scenario["events"]["count"] if events is None else events
        self.kind = kind_of(s)
        self.commands = command_workload(s["count"], s["dims"], s["churn"], n_events, self.seeds)
        timed = scenario["run"]["mode"] == "timed"
        setup = replace(
            network_setup(scenario, self.kind, n_events, self.seeds),
            commands=self.commands, engine="batch" if timed else engine, timed=timed,
        )  # fmt: skip
        self.network: Network = NETWORKS[scenario["overlay"]["kind"]].create(setup, None)
        self.approaches = [Publisher(parse(name, self.kind.name)) for name in scenario.approaches]
        self.event_bytes = scenario["messages"]["event_bytes"]

    @property
    def n_events(self) -> int:
        return len(self.commands.after)

    def batches(self) -> Iterator[tuple[int, int]]:
        """``(first, stop)`` of every event (one per batch)."""
        for e in range(self.n_events):
            yield e, e + 1

    def steps(self) -> Iterator[tuple[int, dict[str, Outcome]]]:
        """Apply the commands due, publish the event; then the commands after the last."""
        w, net = self.commands, self.network
        rects = reach(w.points, self.kind.lower_open)  # CN-Relax's point messages
        done = 0
        for e in range(self.n_events):
            stop = int(w.after[e]) + 1
            costs = net.apply_commands(done, stop)
            done = stop
            yield e, {a.name: self._publish(a.spec, e, rects, costs) for a in self.approaches}
        net.apply_commands(done, len(w.stream))

    def _publish(self, spec: ApproachSpec, e: int, rects: np.ndarray, costs: dict) -> Outcome:
        event = np.array([e], np.int64)
        messages = Messages(rects[e : e + 1], event, self.commands.points[e : e + 1, 0],
                            np.zeros(1))  # fmt: skip
        t0 = time.perf_counter()
        delivery, traffic = self.network.deliver(spec, messages, event)
        t1 = time.perf_counter()
        publish = self.network.publish_ip_hops(spec, e, e + 1)
        size = self.event_bytes
        return Outcome(
            spec, messages, delivery, traffic, publish, {}, 0.0, t1 - t0, size, size, event,
            costs,
        )  # fmt: skip

    def message_bytes(self, spec: ApproachSpec) -> int:
        """Bytes of an event."""
        return self.event_bytes

    def metrics(self) -> list[Metric]:
        """The command stream's metrics, then the counting ones declared ``stream``."""
        counting = [m for m in CATALOG.select("batch", "counting") if m.stream]
        return CATALOG.select("batch", "churn") + counting

    def frame(self, columns: dict[str, np.ndarray], metrics: list[Metric]) -> pd.DataFrame:
        """One row per approach and event: the event, the last command before it and
        the live subscriptions, then the metrics."""
        w = self.commands
        parts = []
        for name, values in columns.items():
            part = pd.DataFrame(values, columns=[m.name for m in metrics])
            part = part.astype({m.name: np.int64 for m in metrics if m.integer})
            part.insert(0, "live", w.live())
            part.insert(0, "command", w.after)
            part.insert(0, "event", np.arange(self.n_events, dtype=np.int64))
            part.insert(0, "approach", name)
            parts.append(part)
        return pd.concat(parts, ignore_index=True)

    def summary(self, frame: pd.DataFrame, setup_s: float, total_s: float, timer) -> dict:
        """The stream's sizes, the network's totals and every approach's aggregates."""
        metrics = [m for m in CATALOG.select("batch") if m.name in frame.columns]
        per_approach = {}
        for a in self.approaches:
            part = frame[frame.approach == a.name]
            per_approach[a.name] = {"batches": int(len(part)), **_aggregates(part, metrics)}
        summary = {
            "scenario": self.scenario.as_dict(),
            "source": self.scenario.source,
            "overlay": self.network.kind,
            "commands": int(len(self.commands.stream)),
            "attributes": int(self.commands.stream.d),
            "events": int(len(frame)),
            "batch_size": 1,
            "forced_inserts": 0,  # no objects: events are points
            **self.network.joins_summary(),
            "setup_time_s": setup_s,
            "approaches": per_approach,
            "total_time_s": total_s,
        }
        if timer is None:  # what match_* counted (timed runs replay in batch)
            summary["engine"] = "batch" if self.network.batch else "reference"
        else:
            summary.update(timer.summary())
        return summary

    def servers(self) -> None:
        return None


def _aggregates(part: pd.DataFrame, metrics: list[Metric]) -> dict:
    """The summary entries the catalog declares for ``metrics`` over one approach's rows."""
    out = {}
    for m in metrics:
        for agg in m.aggregates:
            if agg != "run":  # a whole-run value (and its interval) the summary computes
                out[m.key(agg)] = aggregate(part[m.name], agg, m.integer)
        if m.has_interval and "mean" in m.aggregates:
            out[m.key(INTERVAL)] = aggregate(part[m.name], INTERVAL)
    return out


def simulation(scenario: Scenario, events: int | None = None) -> Simulation | StreamSimulation:
    """The run of a scenario: its subscriptions fixed, or a command stream (subscription
    kinds its overlay declares it runs so: ``Network.streams``)."""
    return (StreamSimulation if scenario.commands else Simulation)(scenario, events)


def network_setup(scenario: Scenario, kind, n_events: int, seeds: Seeds) -> NetworkSetup:
    """The typed parameters a network of the scenario is built from."""
    o, s = scenario["overlay"], scenario["subscriptions"]
    ranked = None
    if any(parse(a, kind.name).message == "ranked" for a in scenario.approaches):
        r = scenario["ranked"]
        ranked = RankedSetup(
            r["k"], r["scores"], r["pruning"], r["index"], r["regions"], r["commands"],
            r["churn"], s["distribution"], s["spread"],
        )  # fmt: skip
    covering = Covering.of(o)
    faults = scenario["faults"] if faulty(scenario["faults"]) else None
    return NetworkSetup(
        scenario.network, kind, o["split"], o["degree"], covering, n_events, seeds, ranked,
        faults=faults, subscription_bytes=4 * (kind.space_dims + 1),
    )  # fmt: skip


def server_view(
    w: Workload, scenario: Scenario, subscriptions, lists: TopKLists | None = None
) -> ServerView:
    """What the scenario's approaches are built from: the objects, the index over the
    ``subscriptions``, the subscribers' initial ``lists`` (for the approaches that keep a
    copy) and what the subscription kind adds."""
    extra = w.kind.server_view(w, scenario["algorithm"])
    servers = scenario["server"]["count"]
    return ServerView(w.x, w.y, subscriptions, w.k, lists, servers, w.kind.name, **extra)


def _subscriber_lists(approach) -> TopKLists | None:
    """The lists ``approach``'s server keeps identical to its subscribers' (it applies
    exactly the deliveries it sends, in send order), or None."""
    return getattr(approach, "subscriber_lists", None)


def simulate(scenario: Scenario, events: int | None = None) -> Result:
    """Run a scenario in memory, in this process (``events`` overrides the configured
    event count); a scenario too big for this machine's memory is refused before any
    work. (``run.partitions``: :mod:`cnsim.simulations.launch` spreads it over Spark
    tasks.)"""
    check_call(scenario, events)
    check_fits(scenario, events)
    started, cpu_started = time.perf_counter(), time.process_time()
    sim = simulation(scenario, events)
    setup_s = time.perf_counter() - started
    n_batches = len(list(sim.batches()))
    collected = sim.metrics()
    columns = {a.name: np.zeros((n_batches, len(collected))) for a in sim.approaches}
    steps = sim.steps()
    if scenario["run"]["progress"] and n_batches >= 200:  # a bar, or lines off a terminal
        unit = "event" if sim.batch_size == 1 else "batch"
        steps = track(steps, n_batches, "run", unit, leave=False)
    timer = None
    if scenario["run"]["mode"] == "timed":
        timer = Timer(sim, scenario)
        steps = timer.replay(steps)
    for b, outcomes in steps:
        for name, o in outcomes.items():
            columns[name][b] = [m.collect(o) for m in collected]
    frame = sim.frame(columns, collected)
    if timer is not None:
        frame = _with_timing(frame, timer)
    summary = sim.summary(frame, setup_s, time.perf_counter() - started, timer)
    # CPU seconds of this process: a run's cost on a shared machine, where wall time is not
    summary["cpu_time_s"] = time.process_time() - cpu_started
    return Result(frame, _broker_load(sim, timer), summary, sim.servers())


def run_result(
    scenario: Scenario,
    out_dir: str | Path | None = None,
    events: int | None = None,
    overwrite: bool = False,
    names: Names = CLI,
    how: Callable[[Scenario, int | None], Result] = simulate,
) -> Result:
    """Run a scenario; write its outputs to ``out_dir`` if given (see :class:`Result`);
    ``names``: how messages name the arguments (``--out`` for the CLI, keywords for the
    API); ``how``: what runs it (:func:`simulate`: in this process)."""
    check_call(scenario, events)
    if scenario["run"]["progress"]:
        interval_s()  # a bad $CNSIM_PROGRESS_S fails before any work
    if out_dir is not None:
        claim_out_dir(out_dir, overwrite, names)  # an unusable folder fails before any work
    result = how(scenario, events)
    if out_dir is not None:
        result.write(out_dir, overwrite, names)
    return result


def run(
    scenario: Scenario,
    out_dir: str | Path | None = None,
    events: int | None = None,
    overwrite: bool = False,
) -> tuple[pd.DataFrame, dict]:
    """:func:`run_result`'s events and summary (its messages name the CLI's options)."""
    result = run_result(scenario, out_dir, events, overwrite)
    return result.events, result.summary


def _frame(sim: Simulation, columns: dict[str, np.ndarray], metrics: list) -> pd.DataFrame:
    bounds = np.array(list(sim.batches()), np.int64).reshape(-1, 2)
    first, stop = bounds[:, 0], bounds[:, 1]
    kinds = sim.events.kinds()[first] if sim.batch_size == 1 else "batch"
    names = [m.name for m in metrics]
    parts = []
    for name, values in columns.items():
        part = pd.DataFrame(values, columns=names)
        int_cols = [m.name for m in metrics if m.integer]
        part[int_cols] = part[int_cols].astype(np.int64)
        part.insert(0, "kind", kinds)
        part.insert(0, "events", stop - first)
        part.insert(0, "event", first)
        part.insert(0, "batch", np.arange(len(first), dtype=np.int64))
        part.insert(0, "approach", name)
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def reference_approach(sim: Simulation) -> str | None:
    """The exact approach redundancy is measured against: the first exact approach
    sending region messages, else the first exact one (a targeted message also
    carries the object it replaces, so Unicast delivers fewer messages than the
    region-message approaches)."""
    exact = [a.spec for a in sim.approaches if a.exact]
    region = [s for s in exact if s.message == "region"]
    return (region or exact)[0].name if exact else None


def _with_redundancy(frame: pd.DataFrame, sim: Simulation) -> pd.DataFrame:
    """``redundancy`` = delivered / delivered by the exact reference − 1, per batch
    (NaN without an exact approach, or where it delivered nothing); ``redundancy_paper``
    counts only the extra deliveries of the updated objects, over the same denominator:
    seed 003's Table II comes out so (``cnsim bench redundancy``)."""
    ref = reference_approach(sim)
    if ref is None:
        frame["redundancy"] = frame["redundancy_paper"] = np.nan
        return frame
    by_batch = frame.loc[frame.approach == ref].set_index("batch")
    exact = frame["batch"].map(by_batch["delivered_msgs"]).to_numpy(float)
    exact_updated = frame["batch"].map(by_batch["delivered_updated_msgs"]).to_numpy(float)
    extra_updated = frame["delivered_updated_msgs"].to_numpy(float) - exact_updated
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = frame["delivered_msgs"].to_numpy(float) / exact
        frame["redundancy"] = np.where(exact > 0, ratio - 1, np.nan)
        frame["redundancy_paper"] = np.where(exact > 0, extra_updated / exact, np.nan)
    return frame


def _redundancy_intervals(part: pd.DataFrame, ref_rows: pd.DataFrame) -> dict:
    """The intervals of an approach's whole-run redundancies (ratios over the run of its
    deliveries to the exact reference's, batch by batch: :func:`ratio_interval`)."""
    exact = ref_rows["delivered_msgs"].to_numpy(float)
    extra = part["delivered_updated_msgs"].to_numpy(float)
    extra = extra - ref_rows["delivered_updated_msgs"].to_numpy(float)
    delivered = part["delivered_msgs"].to_numpy(float)
    return {
        CATALOG["redundancy"].key(INTERVAL): ratio_interval(delivered, exact),
        CATALOG["redundancy_paper"].key(INTERVAL): ratio_interval(extra, exact),
    }


def _broker_load(sim: Simulation, timer: Timer | None = None) -> pd.DataFrame | None:
    load = sim.network.broker_load()
    if not load:
        return None
    held = load.pop("subscriptions_held")
    parts = []
    for name, handled in load.items():
        part = pd.DataFrame(
            {
                "approach": name,
                "broker": np.arange(len(held)),
                "subscriptions_held": held,
                "messages_handled": handled,
            }
        )
        if timer is not None:
            for column, values in timer.broker_columns(name).items():
                part[column] = values
        parts.append(part)
    return pd.concat(parts, ignore_index=True) if parts else None


def _with_timing(frame: pd.DataFrame, timer: Timer) -> pd.DataFrame:
    """The timed metrics as columns (timed runs have one row per event)."""
    timed = timer.metrics()
    names = frame["approach"].unique()
    values = np.concatenate([timer.columns(name) for name in names]) if len(names) else None
    values = np.zeros((0, len(timed))) if values is None else values
    for j, m in enumerate(timed):
        frame[m.name] = values[:, j].astype(np.int64) if m.integer else values[:, j]
    return frame


def _summary(scenario: Scenario, sim, frame: pd.DataFrame, setup_s, total_s, timer) -> dict:
    """The run's sizes and, per approach, every summary entry the catalog declares."""
    modes = sim.modes()
    if timer is not None:  # the timed columns, after the counting ones
        modes = (modes[0], "timed", *modes[1:])
    per_approach = {}
    ref = reference_approach(sim)
    ref_rows = frame.loc[frame.approach == ref]
    total_ref = int(ref_rows["delivered_msgs"].sum()) if ref else 0
    updated_ref = int(ref_rows["delivered_updated_msgs"].sum()) if ref else 0
    object_bytes = scenario["messages"]["object_bytes"]
    for a in sim.approaches:
        part = frame[frame.approach == a.name]
        metrics = [m for mode in modes for m in CATALOG.select("batch", mode)]
        s: dict = {"batches": int(len(part)), **_aggregates(part, metrics)}
        delivered = int(part["delivered_msgs"].sum())
        s["redundancy"] = delivered / total_ref - 1 if total_ref else None
        updated = int(part["delivered_updated_msgs"].sum()) - updated_ref
        s["redundancy_paper"] = updated / total_ref if total_ref else None
        s.update(_redundancy_intervals(part, ref_rows) if ref else {})
        s["subscriber_memory_bytes"] = sim.subscriber_memory(a, object_bytes)
        if sim.server_load is not None:
            s.update(sim.server_load.summary(a))
        if "faults" in modes:
            s.update(loss_summary(sim.fault_totals(a.name)))
        if a.spec.message == "ranked":
            s.update(ranked_summary(part, sim.bound_setup()))
        if timer is not None:
            util = timer.utilisation(a.name)
            s["max_broker_utilisation"] = float(util.max()) if len(util) else 0.0
            if "stale_subs" in part:  # each event's stale count, until the next event
                until = np.append(timer.times[1:], timer.env.now)[: len(part)]
                spans = until - timer.times[: len(part)]
                s["stale_subscriber_s"] = float((part["stale_subs"].to_numpy() * spans).sum())
        per_approach[a.name] = s
    summary = {
        "scenario": scenario.as_dict(),
        "source": scenario.source,
        **sim.sizes(),
        "redundancy_reference": ref,
        "setup_time_s": setup_s,
        "total_time_s": total_s,
        "approaches": per_approach,
    }
    if "joins" in modes:  # [churn]: live at the end = after the last batch's joins
        rows = frame.loc[frame.approach == sim.approaches[0].name]
        live = rows["live_subs"]
        summary["churn"] = {
            "joined": int(rows["joins"].sum()),
            "left": int(rows["leaves"].sum()),
            "live_at_end": int(live.iloc[-1]) if len(live) else summary["subscriptions"],
        }
    if timer is not None:
        summary.update(timer.summary())
    return summary
