"""One run spread over Spark tasks (``[run] partitions = P``, ``cnsim run --master``):
its subscriptions split into P partitions, each held — subscriptions, index, gateway
stores, subscriber lists — by one task, never by the driver.

The papers' setting splits this way (seed 003 §V "Network setup"): a server, and
brokers that each hold the subscriptions of their zones. So:

* **Server** (one task, first, only when an approach declares ``partition =
  "whole"``: Paint-Sparse): its server runs over every subscription and logs each
  batch's messages (:class:`cnsim.algorithms.replayed.ServerLog`), which Spark keeps on
  the executors and hands to every partition's task (the driver reads only their server
  times). Its memory is one index of S (about 48 bytes a subscription): the first limit
  as m grows (docs/DESIGN_NOTES.md).
* **Partitions** (P tasks): each draws the workload as one process draws it, plans
  the split alike (:class:`Plan`: the network's zones over every subscription — CAN
  zones, random or load split — cut in zone order into P runs of about m / P
  subscriptions; over the ideal CN, which has no zones, runs of consecutive ids), keeps
  its own subscriptions (:meth:`Workload.subscriptions_of`; the subscribers' IP nodes
  drawn for all and kept for its own, :class:`cnsim.brokers.base.Part`) and runs the
  usual run loop
  (:class:`cnsim.simulations.runner.Simulation`) over them. The server is
  deterministic from the seeds, so every partition recomputes the messages of an
  ``alike`` approach (Paint-Dense, CN-Relax) and finds its own subscriptions'
  messages of an ``own`` one (Unicast); a ``whole`` one is replayed from its log.
  Every message is routed over all the zones in every partition — routing needs the
  zones only — and delivered by the zones the partition holds. Over the content-based
  tree (``Network.routes_own``) a partition's brokers route each event to its own
  subscriptions alone, and the run's hops are the union of the partitions'
  (:class:`_Routes`), made into the ``routes`` columns by the driver.
* **Combine** (Spark's tree reduce, :func:`_merged`: the driver receives the run's
  columns, not P partitions' of them): per approach and batch, each metric's
  partitions make the run's value as the catalog declares (``Metric.partitions``):
  deliveries and last hops add up; the server's messages and their overlay and IP
  traffic are counted once (all partitions agree, and a disagreement is an error), or
  add up for an ``own`` approach; wall times are the slowest partition's. The result is
  written as one process writes it: ``events.parquet``, ``brokers.parquet`` and
  ``summary.json`` are the one-process run's but for wall times (and ``summary.json``'s
  ``execution``).

* **Apart** (one task, :data:`APART`, beside the partitions, only when an approach
  declares ``partition = "apart"``: ranked delivery): those approaches run, delivery
  and all, over every subscription, as one process runs them
  (:func:`~cnsim.simulations.config.split_apart`: the partitions run the scenario
  without them); their columns join the partitions' as they are.

Subscribers that come and go (``[churn]``) and brokers that fail (``[faults]``): the
plan is drawn over the pool, each partition keeps its part of the churn schedule
(:meth:`cnsim.subscriptions.churn.Churn.restricted`), every partition fails the same
brokers (drawn from the seeds) and a zone's subscriptions are in one partition, so the
losses and repairs add up (docs/DESIGN_NOTES.md, "One run over Spark tasks"). Several
servers (``[server] count`` > 1): an ``alike`` approach's servers do the same in every
partition (their ``servers.parquet`` rows and summary checked to agree); a ``whole``
one's run in the server task, which logs the server each message left from
(:meth:`Approach.sent_from`); an ``own`` one's (Unicast) answer and walk for each
partition's own subscriptions, and what they did adds up
(:meth:`~cnsim.simulations.server_load.ServerTally.added`).

Drawing: every task draws the whole workload with the one-process generators and keeps
its part, so each partition holds exactly the subscriptions one process holds, at the
price of a transient O(m) draw per task (about 64 bytes a 1-d subscription, with the
points and zones the plan reads) before its own structures are built.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import resource
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from cnsim.algorithms.base import Approach, ApproachSpec, ServerView
from cnsim.algorithms.registry import make_approach, parse
from cnsim.algorithms.replayed import Replayed, ServerLog
from cnsim.brokers import NETWORKS
from cnsim.brokers.base import Part, Traffic
from cnsim.brokers.zones import Zones
from cnsim.errors import CnsimError, InputError
from cnsim.server.distributed import Zones as Servers
from cnsim.simulations.config import Scenario, check_call, split_apart
from cnsim.simulations.metrics import CATALOG, Metric
from cnsim.simulations.result import Result
from cnsim.simulations.runner import (
    Simulation,
    _frame,
    _summary,
    _with_redundancy,
    batch_bounds,
    batch_modes,
    message_sizes,
    network_setup,
    server_view,
)
from cnsim.simulations.seeds import Seeds
from cnsim.simulations.server_load import ServerLoad, ServerTally
from cnsim.simulations.sizes import TASKS, Estimate, check_fits, estimate, spread_tasks
from cnsim.simulations.world import Workload, build_workload, objects_and_events
from cnsim.subscriptions.churn import pooled
from cnsim.subscriptions.kinds import kind_of

if TYPE_CHECKING:
    from cnsim.simulations.verify import Report


@dataclass(frozen=True)
class Plan:
    """Which partition holds which subscription: over a network with zones, each zone's
    (``zone_part``, zones in order grouped into runs of about m / P subscriptions, from
    the subscriptions each holds); without, runs of consecutive ids. Every partition
    draws it alike from the whole workload (:meth:`draw`): no task has to send it."""

    partitions: int
    total: int  # m, the scenario's subscriptions
    sizes: np.ndarray  # (P,) the subscriptions each partition holds
    zones: Zones | None = None
    zone_part: np.ndarray | None = None  # (Z,) the partition of every zone

    @classmethod
    def of(cls, partitions: int, total: int, zones: Zones | None, held: np.ndarray | None) -> Plan:
        """The plan for ``total`` subscriptions over ``zones`` holding ``held`` each
        (None: no zones, runs of ids)."""
        if zones is None:
            return cls(partitions, total, np.diff(_starts(total, partitions)))
        middle = np.cumsum(held) - held / 2.0  # each zone's middle subscription, in order
        zone_part = np.minimum(middle * partitions // max(total, 1), partitions - 1)
        zone_part = zone_part.astype(np.int64)
        sizes = np.bincount(zone_part, weights=held, minlength=partitions).astype(np.int64)
        return cls(partitions, total, sizes, zones, zone_part)

    @classmethod
    def draw(cls, scenario: Scenario, w: Workload) -> tuple[Plan, np.ndarray | None]:
        """The plan of ``scenario`` from its whole workload ``w``: the network's zones
        planned over every subscription (as one process plans them), and the gateway
        zone of each (None: no zones)."""
        setup = network_setup(scenario, w.kind, len(w.events), Seeds(scenario.seed))
        points = w.kind.space_points(w)
        zones = NETWORKS[scenario["overlay"]["kind"]].plan_zones(setup, points)
        partitions, total = scenario["run"]["partitions"], len(points)
        if zones is None:
            return cls.of(partitions, total, None, None), None
        zone = zones.zone_of(points)
        held = np.bincount(zone, minlength=zones.n_zones)
        return cls.of(partitions, total, zones, held), zone

    def ids(self, p: int, zone: np.ndarray | None) -> np.ndarray:
        """The ids of partition ``p``'s subscriptions (``zone``: every subscription's
        gateway zone, :meth:`draw`'s)."""
        if self.zones is None:
            starts = _starts(self.total, self.partitions)
            return np.arange(starts[p], starts[p + 1], dtype=np.int64)
        return np.flatnonzero(self.zone_part[zone] == p).astype(np.int64)


def _starts(total: int, partitions: int) -> np.ndarray:
    return np.arange(partitions + 1, dtype=np.int64) * total // partitions


@dataclass(frozen=True)
class Partition:
    """Partition ``index`` of a run of ``scenario`` (:class:`cnsim.simulations.runner.
    PartOfRun`): its subscriptions by the plan, the ``whole`` approaches replayed from
    their logs."""

    scenario: Scenario
    index: int
    logs: dict[str, ServerLog]

    def held(self, w: Workload) -> Part:
        plan, zone = Plan.draw(self.scenario, w)
        return Part(plan.ids(self.index, zone), plan.total, plan.zones)

    def approach(self, name: str, view: ServerView) -> Approach:
        spec = parse(name, view.kind)
        if spec.partition == "whole":
            return Replayed(spec, self.logs[spec.name], view)
        # the calls an ``own`` approach makes alike in every partition: counted in one
        return make_approach(spec, replace(view, counts_shared=self.index == 0))


# -- the tasks --------------------------------------------------------------------------


def _reported(task):
    """``task`` with its cnsim error (what the run finds it cannot do, e.g. a box budget
    too small for an event) handed back as its result, ``{"failed": error}``, for the
    driver to raise as one process raises it, not lost in Spark's trace."""

    @functools.wraps(task)
    def run(*args):
        try:
            return task(*args)
        except CnsimError as exc:
            return {"failed": exc}

    return run



@_reported
def _server_task(scenario: Scenario, events: int | None) -> tuple[dict[str, ServerLog], dict]:
    """The ``whole`` approaches' servers over every subscription, batch by batch; and
    the task's cost (wall seconds, peak memory), with several servers what each
    approach's servers did (:func:`_servers_seen`), and over a network whose brokers
    route by what they hold (``routes_own``) what they hold (covering prunes each
    routing table by every subscription)."""
    _reset_peak()
    started = time.perf_counter()
    seeds = Seeds(scenario.seed)
    churn, w = pooled(scenario["churn"], build_workload(scenario, seeds, events), seeds)
    index = w.kind.index(w)
    if churn is not None:  # the pool, the joining ones absent until they join
        index.set_alive(np.arange(churn.initial, churn.pool), False)
    view = server_view(w, scenario, index)
    approaches = [make_approach(s, view) for s in _specs(scenario) if s.partition == "whole"]
    load = None
    if scenario["server"]["count"] > 1:  # the objects over servers, as each partition has them
        servers = Servers.split(w.x, w.y, scenario["server"]["count"])
        plan, _ = Plan.draw(scenario, w)
        setup = network_setup(scenario, w.kind, len(w.events), seeds)
        links = NETWORKS[scenario["overlay"]["kind"]].server_links(setup, plan.zones, servers)
        load = ServerLoad(servers, approaches, links)
    logs = {a.name: ServerLog() for a in approaches}
    bounds = batch_bounds(len(w.events), scenario["events"]["batch_size"])
    for first, stop in bounds if approaches else ():  # (none: the stage counts tables only)
        if churn is not None:  # S as the server knows it at the batch (failures aside)
            joining, leaving = churn.due(first, stop)
            index.set_alive(joining, True)
            index.set_alive(leaving, False)
        updates = w.events.updates(first, stop)
        for a in approaches:
            logs[a.name].record(a, updates, load)
    held = tables = None
    if NETWORKS[scenario["overlay"]["kind"]].routes_own:
        held, tables = _tables(scenario, w, index, churn, seeds)
    cost = {"wall_s": round(time.perf_counter() - started, 3), "peak_rss_bytes": _peak_rss()}
    sizes = message_sizes(scenario, w, approaches)
    seen = _servers_seen(load, approaches, lambda spec: sizes[spec.name][0])
    return logs, {**cost, "servers": seen, "held": held, "tables": tables}


#: the ``tables`` metrics a spread run's server stage counts over every subscription,
#: by what it measures of the brokers: a batch's (un)subscription messages between them
#: (``[churn]``) and what rebuilding their tables after failures sent (``[faults]``)
TABLES = {"join_forward_msgs": "forwarded", "repair_msgs": "moved_msgs",
          "repair_bytes": "moved_bytes", "repair_ip_bytes": "moved_ip_bytes"}  # fmt: skip


def _tables(
    scenario: Scenario, w: Workload, index, churn, seeds: Seeds
) -> tuple[np.ndarray, dict]:
    """Over a network whose brokers route by what they hold (``routes_own``), its
    brokers over every subscription (``index``: the server's, whose ranges it reads), as
    one process has them — before each batch the brokers due fail and come back, then
    the subscriptions due join and leave — : what each holds at the end, and per batch
    what the :data:`TABLES` metrics add (covering prunes it by every subscription)."""
    kind = NETWORKS[scenario["overlay"]["kind"]]
    setup = network_setup(split_apart(scenario)[0], w.kind, len(w.events), seeds)
    if churn is not None:  # the others subscribe as they join
        setup = replace(setup, present=churn.initial)
    network = kind.create(setup, index)
    bounds = list(batch_bounds(len(w.events), scenario["events"]["batch_size"]))
    counts = {what: np.zeros(len(bounds), np.int64) for what in TABLES.values()}
    if churn is not None:
        network.set_alive(np.arange(churn.initial, churn.pool), False)
        network.churn_messages()  # setting the pool up sends nothing to count
    for b, (first, stop) in enumerate(bounds):
        if setup.faults is not None:
            step = network.apply_faults(first, stop)
            for what in ("moved_msgs", "moved_bytes", "moved_ip_bytes"):
                counts[what][b] = step.counts[what]
        if churn is not None:
            joining, leaving = churn.due(first, stop)
            network.set_alive(joining, True)
            network.set_alive(leaving, False)
            counts["forwarded"][b] = network.churn_messages()
    held = network.broker_load()["subscriptions_held"]
    return held, {name: counts[what] for name, what in TABLES.items()}


def _servers_seen(load: ServerLoad | None, approaches: list[Approach], message_bytes):
    """With several servers (``load``), per approach charged there, what its servers did
    (a :class:`~cnsim.simulations.server_load.ServerTally`; ``message_bytes(spec)``: the
    bytes of one of its messages); None with one server."""
    if load is None:
        return None
    charged = [a for a in approaches if a.name in load.updates]
    return {a.name: load.tally(a, message_bytes(a.spec)) for a in charged}


#: the index of the task that runs the ``apart`` approaches over every subscription
APART = -1


class _Routes:
    """A partition's hops over a network that routes its messages to its own
    subscriptions alone (``Network.routes_own``: the content-based tree), kept to be
    joined with the other partitions' (:func:`_merged`): per approach, an (events,
    brokers) table of the IP hops + 1 of the hop reaching each broker (0: not reached;
    each broker is reached once, from the one before it on the tree path from the
    event's source), and the broker each event entered at."""

    def __init__(self, sim: Simulation):
        world = sim.network.world
        self.ip = np.asarray(world.broker_hops)
        assert self.ip.max(initial=0) < np.iinfo(np.uint16).max
        shape = (sim.n_events, world.n_brokers)
        self.reached = {a.name: np.zeros(shape, np.uint16) for a in sim.approaches}
        self.source = {a.name: np.full(sim.n_events, -1, np.int64) for a in sim.approaches}

    def record(self, name: str, first: int, paths) -> None:
        """The hops of a batch's messages, one per event from ``first`` on."""
        if paths is None:  # no message
            return
        events = first + np.repeat(np.arange(len(paths.source)), np.diff(paths.hop_ptr))
        frm, to = paths.hop_from, paths.hop_to
        self.reached[name][events, to] = self.ip[frm, to] + 1
        self.source[name][first : first + len(paths.source)] = paths.source

    def kept(self, sim: Simulation) -> dict[str, tuple]:
        """Per approach: the table, the sources and one message's bytes."""
        return {a.name: (self.reached[a.name], self.source[a.name], sim.message_bytes(a.spec))
                for a in sim.approaches}  # fmt: skip


@_reported
def _partition_task(task: dict[str, Any], logs: dict[str, ServerLog]) -> dict[str, Any]:
    """Run partition ``task["index"]`` (``logs``: the server logs of the ``whole``
    approaches, read through Spark): the run loop over its subscriptions; per approach
    its metric columns, what its brokers held and handled, its subscribers' memory and
    its losses (``[faults]``); and its cost (:func:`_merged` adds partitions' results
    up). Task :data:`APART` runs the ``apart`` approaches over every subscription (what
    its brokers held is the partitions' to count)."""
    _reset_peak()
    started, cpu = time.perf_counter(), time.process_time()
    spread, apart = split_apart(task["scenario"])
    if task["index"] == APART:
        scenario, part = apart, None
    else:
        scenario, part = spread, Partition(spread, task["index"], logs)
    sim = Simulation(scenario, task["events"], part=part)
    setup_s = time.perf_counter() - started
    metrics = _metrics(task["scenario"])  # the run's columns, every approach's
    bounds = list(sim.batches())
    n = len(bounds)
    columns = {a.name: np.zeros((n, len(metrics))) for a in sim.approaches}
    # its hops, to be joined with the other partitions' (a network routing to its own)
    routes = _Routes(sim) if part is not None and sim.network.routes_own else None
    beat = _Heartbeat(task.get("progress"), task["index"])
    for b, outcomes in sim.steps():
        for name, o in outcomes.items():
            columns[name][b] = [m.collect(o) for m in metrics]
            if routes is not None:
                routes.record(name, bounds[b][0], o.traffic.paths)
        beat.tick(b + 1)
    beat.tick(n, force=True)
    load = sim.network.broker_load()
    object_bytes = scenario["messages"]["object_bytes"]
    names = [m.name for m in metrics]

    def spent(column: str) -> float:  # seconds over the run, every approach
        return round(float(sum(c[:, names.index(column)].sum() for c in columns.values())), 3)

    cost = {
        "index": task["index"],
        "subscriptions": len(sim.workload.l),
        # its set-up (drawing, its part's structures), the servers it recomputed (or
        # replayed) and its deliveries, then its whole wall and CPU time
        "setup_s": round(setup_s, 3),
        "server_s": spent("server_time_s"),
        "delivery_s": spent("delivery_time_s"),
        "wall_s": round(time.perf_counter() - started, 3),
        "cpu_s": round(time.process_time() - cpu, 3),
        "peak_rss_bytes": _peak_rss(),
    }
    held = load.pop("subscriptions_held", None)
    return {
        "columns": columns,
        "held": None if part is None else held,
        "handled": load,
        "memory": {a.name: sim.subscriber_memory(a, object_bytes) for a in sim.approaches},
        "losses": {a.name: sim.fault_totals(a.name) for a in sim.approaches}
        if "faults" in sim.modes() else None,
        "servers": _servers_seen(sim.server_load, sim.approaches, sim.message_bytes),
        "bound_setup": sim.bound_setup(),  # ranked delivery's: the apart task's
        "routes": None if routes is None else routes.kept(sim),
        "disagree": [],  # what partitions that should agree did not agree on
        "tasks": [cost],
    }


def _merged(scenario: Scenario):
    """The function that adds two partitions' results up (each a :func:`_partition_task`
    result, or two already added): every column and broker count as its metric declares
    (:func:`_combine`), memory and losses summed, the tasks' costs listed; an approach
    in one of them alone (an ``apart`` one, in the apart task's) as it is there.
    Associative, so Spark reduces the partitions' results in a tree and the driver
    receives one."""
    specs = {s.name: s for s in _specs(scenario)}
    metrics = _metrics(scenario)
    rule = CATALOG["messages_handled"]
    union = NETWORKS[scenario["overlay"]["kind"]].routes_own

    def merge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
        if "failed" in a or "failed" in b:  # a partition could not run: its error
            return a if "failed" in a else b
        disagree = a["disagree"] + b["disagree"]

        def pair(metric: Metric, spec: ApproachSpec, x: np.ndarray, y: np.ndarray):
            try:
                return _combine(metric, spec, np.stack([x, y]), union)
            except CnsimError as exc:  # said by the driver, not lost in Spark's trace
                disagree.append(str(exc))
                return x

        def tallies(name: str, tally, other):
            if specs[name].partition == "own":  # each partition's servers charge its own
                both = tally.added(other)
            else:  # the same in each
                both = tally if tally.same(other) else None
            if both is None:
                disagree.append(_disagreement(f"the servers' load of {name}"))
            return tally if both is None else both

        def columns(name: str, c: np.ndarray, d: np.ndarray) -> np.ndarray:
            return np.column_stack([pair(m, specs[name], c[:, j], d[:, j])
                                    for j, m in enumerate(metrics)])  # fmt: skip

        def losses(name: str, t: dict, u: dict) -> dict:
            return {key: t[key] + u[key] for key in t}

        def routes(name: str, r: tuple, s: tuple) -> tuple:  # the union of the hops
            if not (np.array_equal(r[1], s[1]) and r[2] == s[2]):
                disagree.append(_disagreement(f"the events' sources of {name}"))
            return np.maximum(r[0], s[0]), r[1], r[2]

        return {
            "columns": _union(a["columns"], b["columns"], columns),
            "held": _added(a["held"], b["held"]),
            "handled": _union(a["handled"], b["handled"],
                              lambda name, h, g: pair(rule, specs[name], h, g)),
            "memory": _union(a["memory"], b["memory"], lambda name, v, w: v + w),
            "losses": _maybe(_union, a["losses"], b["losses"], losses),
            "servers": _maybe(_union, a["servers"], b["servers"], tallies),
            "bound_setup": a["bound_setup"] or b["bound_setup"],
            "routes": _maybe(_union, a["routes"], b["routes"], routes),
            "disagree": disagree,
            "tasks": a["tasks"] + b["tasks"],
        }

    return merge


def _union(x: dict[str, Any], y: dict[str, Any], both) -> dict[str, Any]:
    """Per approach, ``both(name, x[name], y[name])`` where both results have it, else
    the one there is."""
    return {name: both(name, x[name], y[name]) if name in x and name in y
            else x.get(name, y.get(name)) for name in {**x, **y}}  # fmt: skip


def _added(x, y):
    """``x + y``, or the one that is not None."""
    return y if x is None else x if y is None else x + y


def _maybe(combine, x, y, *args):
    """``combine(x, y, *args)`` over what there is of ``x`` and ``y`` (None: neither)."""
    return None if x is None and y is None else combine(x or {}, y or {}, *args)


def _metrics(scenario: Scenario) -> list[Metric]:
    """The batch metrics every partition collects, in column order (the run loop's)."""
    return [m for mode in batch_modes(scenario) for m in CATALOG.select("batch", mode) if m.collect]


def _specs(scenario: Scenario) -> list[ApproachSpec]:
    kind = kind_of(scenario["subscriptions"]).name
    return [parse(name, kind) for name in scenario.approaches]



def _reset_peak() -> None:
    """Start this process's peak resident memory afresh (a Spark worker runs task after
    task: Linux resets its high-water mark on request; elsewhere nothing happens)."""
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")


def _peak_rss() -> int:
    """This process's peak resident memory since :func:`_reset_peak`, in bytes (Linux's
    high-water mark; elsewhere the peak over the process's life)."""
    with contextlib.suppress(OSError, ValueError, StopIteration):
        status = Path("/proc/self/status").read_text().splitlines()
        line = next(t for t in status if t.startswith("VmHWM:"))
        return int(line.split()[1]) * 1024
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024


class _Heartbeat:
    """A partition's batches done, written to a file of the driver's progress folder
    (where tasks see the driver's files: local masters and workers on its machine;
    elsewhere nothing is written and the bar moves as partitions finish)."""

    def __init__(self, folder: str | None, index: int):
        self.path = None if folder is None else Path(folder) / f"{index}"
        self.last = 0.0

    def tick(self, done: int, force: bool = False) -> None:
        now = time.monotonic()
        if self.path is None or (not force and now - self.last < 0.5):
            return
        self.last = now
        with contextlib.suppress(OSError):
            tmp = self.path.with_suffix(".tmp")
            tmp.write_text(str(done))
            os.replace(tmp, self.path)


# -- the driver -------------------------------------------------------------------------


@dataclass(frozen=True)
class _Declared:
    """An approach as the driver knows it: its spec alone."""

    spec: ApproachSpec

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def exact(self) -> bool:
        return self.spec.exact


class Spread:
    """The driver's side of a partitioned run: the scenario, its events and the
    partitions' results added up (``run``, :func:`_merged`), made into the one-process
    run's frame and summary (the interface :func:`cnsim.simulations.runner._summary`
    reads)."""

    server_load: _Servers | None = None  # several servers: set from the partitions' results

    def __init__(self, scenario: Scenario, events: int | None):
        self.scenario = scenario
        self.partitions = scenario["run"]["partitions"]
        x, _, self.events = objects_and_events(scenario, Seeds(scenario.seed), events)
        self.n_objects = len(x)
        self.batch_size = scenario["events"]["batch_size"]
        self.approaches = [_Declared(s) for s in _specs(scenario)]
        self.run: dict[str, Any] = {}

    def batches(self):
        return batch_bounds(len(self.events), self.batch_size)

    def modes(self) -> tuple[str, ...]:
        return batch_modes(self.scenario)

    def fault_totals(self, name: str) -> dict[str, int]:
        """The counts of the losses under approach ``name``, its partitions' added up."""
        return self.run["losses"][name]

    def bound_setup(self) -> dict[str, int] | None:
        """Ranked delivery's initial bound dissemination, from the apart task."""
        return self.run["bound_setup"]

    def metrics(self) -> list[Metric]:
        return _metrics(self.scenario)

    def sizes(self) -> dict:
        s = self.scenario
        return {
            "objects": int(self.n_objects),
            "subscriptions": int(s["subscriptions"]["count"]),
            "k": s["subscriptions"]["k"],
            "events": int(len(self.events)),
            "forced_inserts": self.events.forced_inserts,
            "batch_size": self.batch_size,
            "overlay": s["overlay"]["kind"],
        }

    def subscriber_memory(self, approach, object_bytes: int) -> int:
        return int(self.run["memory"][approach.name])

    def columns(self, times: dict[str, list[float]]) -> dict[str, np.ndarray]:
        """Every approach's batch columns (``times``: a ``whole`` approach's server time
        per batch, its log's)."""
        out = {a.name: self.run["columns"][a.name].copy() for a in self.approaches}
        metrics = self.metrics()
        j = [m.name for m in metrics].index("server_time_s")
        for name, spent in times.items():  # its server ran elsewhere
            out[name][:, j] = spent
        for j, m in enumerate(metrics):  # counted over every subscription by one task
            if m.partitions == "tables" and m.name in (self.run["tables"] or {}):
                for name in out:
                    out[name][:, j] += self.run["tables"][m.name]
        starts = [first for first, _ in self.batches()]
        for name, (reached, _, size) in (self.run["routes"] or {}).items():
            # over a network routing each partition's messages to its own subscriptions:
            # the batches' hops are the union of the partitions'
            hops = (reached > 0).sum(axis=1)
            ip = reached.sum(axis=1, dtype=np.int64) - hops
            batch_hops, batch_ip = np.add.reduceat(hops, starts), np.add.reduceat(ip, starts)
            batches = [_Routed(Traffic(overlay_hops=int(h), ip_hops=int(i)), size)
                       for h, i in zip(batch_hops, batch_ip, strict=True)]  # fmt: skip
            for j, m in enumerate(metrics):
                if m.partitions == "routes":
                    out[name][:, j] = [m.collect(o) for o in batches]
        return out

    def brokers(self) -> pd.DataFrame | None:
        """``brokers.parquet``: what the brokers held (added up) and handled (counted as
        ``messages_handled`` declares)."""
        held = self.run["held"]
        if held is None:
            return None
        handled = dict(self.run["handled"])
        for name, (reached, source, _) in (self.run["routes"] or {}).items():  # the union
            handled[name] = (reached > 0).sum(axis=0) + np.bincount(source, minlength=len(held))
        parts = [pd.DataFrame({"approach": a.name, "broker": np.arange(len(held)),
                               "subscriptions_held": held, "messages_handled": handled[a.name]})
                 for a in self.approaches]  # fmt: skip
        return pd.concat(parts, ignore_index=True)

    def frame(self, columns: dict[str, np.ndarray]) -> pd.DataFrame:
        return _with_redundancy(_frame(self, columns, self.metrics()), self)


@dataclass(frozen=True)
class _Routed:
    """What a ``routes`` metric reads of a batch whose hops the driver joined."""

    traffic: Traffic
    message_bytes: int


class _Servers:
    """A spread run's several servers as the partitions (added up) and the server task
    (the ``whole`` approaches) saw them: what the summary and ``servers.parquet`` read
    of a :class:`~cnsim.simulations.server_load.ServerLoad`."""

    def __init__(self, seen: dict[str, ServerTally]):
        self.seen = seen

    def summary(self, approach) -> dict:
        return self.seen[approach.name].summary() if approach.name in self.seen else {}

    def frame(self, approaches) -> pd.DataFrame | None:
        parts = [self.seen[a.name].frame(a.name) for a in approaches if a.name in self.seen]
        return pd.concat(parts, ignore_index=True) if parts else None


def _combine(
    metric: Metric, spec: ApproachSpec, values: np.ndarray, union: bool = False
) -> np.ndarray:
    """One batch column (or broker column) of the run from its partitions' ``values``
    (P, n), as ``metric.partitions`` declares (``union``: the network routes each
    partition's messages to its own subscriptions, and the driver makes the ``routes``
    columns from the union of their hops, :meth:`Spread.columns`; the largest stands in
    until then)."""
    rule = metric.partitions
    own = spec.partition == "own"
    if rule == "routes" and union:
        return values.max(axis=0)
    if rule in ("sum", "tables") or (rule in ("server", "routes") and own):
        return values.sum(axis=0)
    if rule == "slowest":
        return values.max(axis=0)
    if not (values == values[0]).all():  # the same in every partition, by construction
        raise CnsimError(_disagreement(f"{metric.name} of {spec.name}"))
    return values[0]


def _disagreement(what: str) -> str:
    return (f"partitions disagree on {what} (it should be the same in each): a bug in "
            "cnsim, please report it with the scenario")  # fmt: skip


def simulate_partitioned(
    scenario: Scenario, events: int | None = None, master: str | None = None, spark: Any = None
) -> Result:
    """Run ``scenario`` over ``run.partitions`` Spark tasks (``master``: the Spark master
    URL, None: spark-submit's or ``local[*]``; ``spark``: a SparkSession to use, left
    running) and combine them into the one-process run's :class:`Result`; a scenario
    whose partitions would not fit their executors is refused before any work."""
    started, cpu_started = time.perf_counter(), time.process_time()
    with _staged(scenario, events, master, spark) as (sc, server):
        spread = Spread(scenario, events)
        setup_s = time.perf_counter() - started
        indexes = _task_indexes(scenario)
        with tempfile.TemporaryDirectory(prefix="cnsim-partitions-") as folder:
            tasks = [{"scenario": scenario, "events": events, "index": p, "progress": folder}
                     for p in indexes]  # fmt: skip
            rdd = server.beside(sc, tasks).map(lambda pair: _partition_task(pair[1], pair[0]))
            progress = scenario["run"]["progress"]
            spread.run = _collect(sc, rdd, spread, indexes, folder, progress)
    if "failed" in spread.run:
        raise spread.run["failed"]
    if spread.run["disagree"]:
        raise CnsimError(spread.run["disagree"][0])
    spread.run["tables"] = server.tables  # the brokers' tables over every subscription
    if server.held is not None:
        spread.run["held"] = server.held
    if spread.run["servers"] is not None:  # several servers: the partitions' and the task's
        spread.server_load = _Servers({**spread.run["servers"], **(server.servers or {})})
    columns = spread.columns(server.times)
    frame = spread.frame(columns)
    summary = _summary(scenario, spread, frame, setup_s, time.perf_counter() - started, None)
    summary["cpu_time_s"] = time.process_time() - cpu_started  # the driver's
    summary["execution"] = _execution(spread, master, server)
    servers = None if spread.server_load is None else spread.server_load.frame(spread.approaches)
    return Result(frame, spread.brokers(), summary, servers)


def _task_indexes(scenario: Scenario) -> list[int]:
    """The tasks of a spread run: its partitions, then :data:`APART` if an approach runs
    apart."""
    apart = any(s.partition == "apart" for s in _specs(scenario))
    return [*range(scenario["run"]["partitions"]), *([APART] if apart else [])]


def verify_partitioned(
    scenario: Scenario, events: int | None = None, master: str | None = None, spark: Any = None
) -> Report:
    """``cnsim verify`` of a partitioned run: each partition's task checks its
    subscriptions against the oracle after every batch (:func:`cnsim.simulations.verify.
    verify` with its part), and the driver joins their reports (:meth:`Report.merge`)."""
    from cnsim.simulations.verify import Report

    with _staged(scenario, events, master, spark, oracle=True) as (sc, server):
        rdd = server.beside(sc, _task_indexes(scenario))
        reports = rdd.map(lambda pair: _verify_task(scenario, events, pair[1], pair[0]))
        reports = reports.collect()
    failed = [r["failed"] for r in reports if isinstance(r, dict)]
    if failed:
        raise failed[0]
    return Report.merge(reports, scenario.approaches)


@_reported
def _verify_task(scenario: Scenario, events: int | None, index: int, logs) -> Report:
    """Verify partition ``index``'s subscriptions, or (:data:`APART`) the ``apart``
    approaches over every subscription."""
    from cnsim.simulations.verify import verify

    spread, apart = split_apart(scenario)
    if index == APART:
        return verify(apart, events)
    return verify(spread, events, part=Partition(spread, index, logs))


@dataclass(frozen=True)
class _ServerStage:
    """The ``whole`` approaches' server task as the driver knows it: its logs kept by
    Spark on the executors (``kept``: a one-element RDD, persisted; the partitions read
    them through Spark, so the driver never holds the messages), each log's server time
    per batch, the bytes of their messages and the task's cost (None: no such approach,
    nothing to log, and a network whose brokers route by what they hold is not
    spread)."""

    kept: Any
    times: dict[str, list[float]]
    nbytes: int
    cost: dict | None
    servers: dict | None = None  # several servers: what the ``whole`` ones' servers did
    # over a network whose brokers route by what they hold (``routes_own``): what each
    # broker holds, over every subscription, and the ``tables`` metrics per batch
    held: np.ndarray | None = None
    tables: dict[str, np.ndarray] | None = None

    @classmethod
    def run(cls, sc, scenario: Scenario, events: int | None) -> _ServerStage:
        whole = any(s.partition == "whole" for s in _specs(scenario))
        if not whole and not NETWORKS[scenario["overlay"]["kind"]].routes_own:
            return cls(sc.parallelize([{}], 1), {}, 0, None)
        from pyspark import StorageLevel

        task = sc.parallelize([0], 1).map(lambda _: _server_task(scenario, events))
        task = task.persist(StorageLevel.MEMORY_AND_DISK)
        facts = task.map(_log_facts).collect()[0]
        if "failed" in facts:
            raise facts["failed"]
        cost = facts["cost"]
        servers, held, tables = cost.pop("servers"), cost.pop("held"), cost.pop("tables")
        kept = task.map(lambda done: done[0])
        return cls(kept, facts["times"], facts["nbytes"], cost, servers, held, tables)

    def beside(self, sc, items: list) -> Any:
        """An RDD of ``(logs, item)``, one per item and Spark task."""
        return self.kept.cartesian(sc.parallelize(items, len(items)))


def _log_facts(done) -> dict[str, Any]:
    """What the driver reads of the server task's output: times, bytes, cost (or the
    error it stopped on)."""
    if isinstance(done, dict):  # {"failed": error}
        return done
    logs, cost = done
    return {"times": {n: log.times for n, log in logs.items()},
            "nbytes": sum(log.nbytes() for log in logs.values()), "cost": cost}  # fmt: skip


@contextlib.contextmanager
def _staged(scenario: Scenario, events, master, spark, oracle: bool = False):
    """A partitioned run checked and its first stage done: the Spark context and the
    ``whole`` approaches' server task (:class:`_ServerStage`: one task over every
    subscription, its logs kept by Spark) (``oracle``: under verify); without a master
    the active session is used if there is one (a notebook's); a session started here
    stops after the block."""
    from cnsim.simulations.sweep.executors import spark_session, stop_spark

    check_call(scenario, events)
    here = master is None or master.startswith("local")  # tasks share this machine
    fits = check_fits if here else estimate
    fits(scenario, events, oracle=oracle, spread=True)
    largest = max(spread_tasks(scenario, events, oracle), key=lambda e: e.total)
    if spark is None and master is None:  # a notebook's session, left running
        from pyspark.sql import SparkSession

        spark = SparkSession.getActiveSession()
    own = spark is None
    session = spark_session(master, app_name="cnsim-run") if own else spark
    try:
        sc = session.sparkContext
        _check_executor_memory(scenario, sc, largest)
        server = _ServerStage.run(sc, scenario, events)
        yield sc, server
        server.kept.unpersist()
    finally:
        if own:
            stop_spark(session)


def _check_executor_memory(scenario: Scenario, sc, largest: Estimate) -> None:
    """Refuse, before any task, the largest task's estimated peak (``largest``) beyond
    the memory Spark gives each executor's Python (``spark.executor.pyspark.memory``,
    where set)."""
    limit = _bytes(sc.getConf().get("spark.executor.pyspark.memory"))
    need = largest.total
    if limit is not None and need > limit:
        who = f"each of {scenario['run']['partitions']} partitions"
        remedy = "raise run.partitions or that memory"
        if largest.task != "partition":  # over every subscription: more partitions do not help
            who, remedy = TASKS[largest.task], "raise that memory or lower subscriptions.count"
        raise InputError(
            f"{scenario.source}: {who} needs about {need / 1e9:.1f} GB, more than "
            f"spark.executor.pyspark.memory = {limit / 1e9:.1f} GB; {remedy} (cnsim run "
            "--dry-run prints the estimate)"
        )


def _bytes(text: str | None) -> float | None:
    """A Spark memory setting in bytes (a number in MiB, or with a unit k, m, g, t)."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kmgt]?)b?\s*", (text or "").lower())
    if match is None:
        return None
    scale = {"k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40, "": 2**20}[match.group(2)]
    return float(match.group(1)) * scale


def _collect(sc, rdd, spread: Spread, indexes: list[int], folder: str, progress: bool) -> dict:
    """The partitions' results added up by Spark (:func:`_merged`, in a tree: the driver
    receives one), while a bar follows the slowest partition's batches."""
    from cnsim.simulations.sweep.executors import collect

    n_batches = len(list(spread.batches()))
    unit = "event" if spread.batch_size == 1 else "batch"
    merge = _merged(spread.scenario)
    return collect(
        sc, rdd, n_batches, f"run ({len(indexes)} partitions)", unit, progress, False,
        "nothing was written", done=lambda: _slowest(folder, indexes),
        action=lambda r: r.treeReduce(merge),
    )  # fmt: skip


def _slowest(folder: str, indexes: list[int]) -> int:
    """The batches the slowest partition has done (0 until every one has reported)."""
    done = []
    for p in indexes:
        try:
            done.append(int((Path(folder) / f"{p}").read_text()))
        except (OSError, ValueError):
            return 0
    return min(done) if done else 0


def _execution(spread: Spread, master: str | None, server: _ServerStage) -> dict:
    """How the run was spread: partitions, their sizes and costs, the server task's (its
    wall seconds and peak memory, None without one; the bytes of its logs, which every
    partition reads) and the apart task's (None without one); not results: every P
    gives the same frame."""
    rows = sorted(spread.run["tasks"], key=lambda t: t["index"])
    apart = [r for r in rows if r["index"] == APART]
    rows = [r for r in rows if r["index"] != APART]
    return {
        "partitions": spread.partitions,
        "master": master,
        **{key: [r[key] for r in rows] for key in ("subscriptions", "setup_s", "server_s",
                                                   "delivery_s", "wall_s", "cpu_s",
                                                   "peak_rss_bytes")},
        "server_task": server.cost,
        "apart_task": apart[0] if apart else None,
        "server_log_bytes": int(server.nbytes),
        "driver_peak_rss_bytes": _peak_rss(),
    }
