"""The counting-mode driver: wires one scenario's world and drives every approach
over the identical event stream, recording one metrics row per (approach, batch).

Events are taken in batches of ``events.batch_size`` (1: every event alone). For
each batch, every approach applies its updates to its own object index and turns
them into messages, the network delivers them from the brokers' own state, and the
approach's own copy of the subscriber lists applies the deliveries. What is
recorded is declared in the metrics catalog (:mod:`cnsim.simulations.metrics`).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from cnsim.algorithms.base import ApproachSpec, ServerView
from cnsim.algorithms.messages import Messages
from cnsim.algorithms.registry import make_approach, parse
from cnsim.brokers import NETWORKS
from cnsim.brokers.base import Delivery, Network, NetworkSetup, RankedSetup, Traffic
from cnsim.brokers.forwarding import Covering
from cnsim.errors import CLI, Names
from cnsim.server.distributed import Zones
from cnsim.simulations.churn import simulate_churn
from cnsim.simulations.config import Scenario, check_call
from cnsim.simulations.metrics import CATALOG, aggregate
from cnsim.simulations.progress import interval_s, track
from cnsim.simulations.ranked import ranked_summary, runs_ranked
from cnsim.simulations.result import Result, claim_out_dir
from cnsim.simulations.seeds import Seeds
from cnsim.simulations.server_load import ServerLoad
from cnsim.simulations.sizes import check_fits
from cnsim.simulations.timed import Timer
from cnsim.simulations.timed_churn import simulate_churn_timed
from cnsim.simulations.world import Workload, build_workload
from cnsim.subscriptions.lists import Layout, TopKLists
from cnsim.subscriptions.workload import Updates


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


class Simulation:
    """A scenario's world, its approaches and their subscriber lists."""

    def __init__(self, scenario: Scenario, events: int | None = None, track_lists: bool = True):
        self.scenario = scenario
        self.seeds = Seeds(scenario.seed)
        self.workload: Workload = build_workload(scenario, self.seeds, events)
        w = self.workload
        self.batch_size = scenario["events"]["batch_size"]
        self.subscriptions = w.kind.index(w)
        setup = network_setup(scenario, w.kind, len(w.events), self.seeds)
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
        self.approaches = [make_approach(name, view) for name in scenario.approaches]
        # [server] count > 1: the objects spread over servers by x (seed 003 appendix C)
        self.server_load: ServerLoad | None = None
        if servers > 1:  # each server at a broker of its own, walks weighed by their hops
            zones = Zones.split(w.x, w.y, servers)
            links = self.network.place_servers(zones, w.events)
            self.server_load = ServerLoad(zones, self.approaches, links)
        self.lists: dict[str, TopKLists] = {}
        # approaches whose server keeps its subscribers' lists in step (Unicast): their
        # lists are shared, not applied twice
        self._in_step: set[str] = set()
        if track_lists:
            keep = [a for a in self.approaches if a.spec.stores == "top-k"]
            fresh = [a.name for a in keep if _subscriber_lists(a) is None]
            for a in keep:  # a range store needs no list of k
                if _subscriber_lists(a) is not None:
                    self.lists[a.name] = _subscriber_lists(a)
                    self._in_step.add(a.name)
            for j, name in enumerate(fresh):
                # the approaches hold their copies by now: the last takes the initial
                self.lists[name] = initial if j == len(fresh) - 1 else initial.copy()
        sizes = scenario["messages"]
        region_bytes = w.kind.region_bytes(w, sizes)
        self._sizes = {
            a.name: (
                sizes["unicast_bytes"] if a.spec.message == "targeted" else region_bytes,
                sizes["event_bytes"],
            )
            for a in self.approaches
        }

    def message_bytes(self, spec: ApproachSpec) -> int:
        """Bytes of one message of ``spec``'s kind."""
        return self._sizes[spec.name][0]

    def batches(self) -> Iterator[tuple[int, int]]:
        """``(first, stop)`` event indexes of every batch."""
        n = len(self.workload.events)
        for first in range(0, n, self.batch_size):
            yield first, min(first + self.batch_size, n)

    def steps(self) -> Iterator[tuple[int, dict[str, Outcome]]]:
        """Process the batches in order, yielding each batch's outcome per approach."""
        ev = self.workload.events
        for b, (first, stop) in enumerate(self.batches()):
            updates = ev.updates(first, stop)
            update_events = np.repeat(np.arange(first, stop), np.diff(ev.start[first : stop + 1]))
            yield (
                b,
                {
                    a.name: self._process(a, updates, update_events, first, stop)
                    for a in self.approaches
                },
            )

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
    return NetworkSetup(
        scenario.network, kind, o["split"], o["degree"], covering, n_events, seeds, ranked
    )


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
    """Run a scenario in memory (``events`` overrides the configured event count); a
    scenario too big for this machine's memory is refused before any work."""
    check_call(scenario, events)
    check_fits(scenario, events)
    if scenario.commands:  # seed 001's command stream has drivers of its own
        if scenario["run"]["mode"] == "timed":
            return simulate_churn_timed(scenario, events)
        return simulate_churn(scenario, events)
    started, cpu_started = time.perf_counter(), time.process_time()
    sim = Simulation(scenario, events)
    setup_s = time.perf_counter() - started
    n_batches = len(list(sim.batches()))
    modes = ("counting",) if sim.server_load is None else ("counting", "distributed")
    if runs_ranked(sim.approaches):  # ranked delivery's columns
        modes = (*modes, "ranked")
    collected = [m for mode in modes for m in CATALOG.select("batch", mode) if m.collect]
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
    frame = _with_redundancy(_frame(sim, columns, collected), sim)
    if timer is not None:
        frame = _with_timing(frame, timer)
    summary = _summary(scenario, sim, frame, setup_s, time.perf_counter() - started, timer)
    # CPU seconds of this process: a run's cost on a shared machine, where wall time is not
    summary["cpu_time_s"] = time.process_time() - cpu_started
    servers = None
    if sim.server_load is not None:
        servers = sim.server_load.frame(sim.approaches, sim.message_bytes)
    return Result(frame, _broker_load(sim, timer), summary, servers)


def run_result(
    scenario: Scenario,
    out_dir: str | Path | None = None,
    events: int | None = None,
    overwrite: bool = False,
    names: Names = CLI,
) -> Result:
    """Run a scenario; write its outputs to ``out_dir`` if given (see :class:`Result`);
    ``names``: how messages name the arguments (``--out`` for the CLI, keywords for the
    API)."""
    check_call(scenario, events)
    if scenario["run"]["progress"]:
        interval_s()  # a bad $CNSIM_PROGRESS_S fails before any work
    if out_dir is not None:
        claim_out_dir(out_dir, overwrite, names)  # an unusable folder fails before any work
    result = simulate(scenario, events)
    if out_dir is not None:
        result.write(out_dir, overwrite, names)
    return result


def run(
    scenario: Scenario,
    out_dir: str | Path | None = None,
    events: int | None = None,
    overwrite: bool = False,
    names: Names = CLI,
) -> tuple[pd.DataFrame, dict]:
    """:func:`run_result`'s events and summary."""
    result = run_result(scenario, out_dir, events, overwrite, names)
    return result.events, result.summary


def _frame(sim: Simulation, columns: dict[str, np.ndarray], metrics: list) -> pd.DataFrame:
    bounds = np.array(list(sim.batches()), np.int64).reshape(-1, 2)
    first, stop = bounds[:, 0], bounds[:, 1]
    kinds = sim.workload.events.kinds()[first] if sim.batch_size == 1 else "batch"
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
            part["utilisation"] = timer.utilisation(name)
        parts.append(part)
    return pd.concat(parts, ignore_index=True) if parts else None


def _with_timing(frame: pd.DataFrame, timer: Timer) -> pd.DataFrame:
    """The timed metrics as columns (timed runs have one row per event)."""
    timed = CATALOG.select("batch", "timed")
    values = np.concatenate([timer.columns(name) for name in frame["approach"].unique()])
    for j, m in enumerate(timed):
        frame[m.name] = values[:, j].astype(np.int64) if m.integer else values[:, j]
    return frame


def _memory(approach, sim: Simulation, object_bytes: int) -> int:
    """Bytes all subscribers store under ``approach`` (a range store keeps every object
    of its range)."""
    if approach.spec.stores == "range":
        return approach.memory_bytes(sim.workload.x, sim.workload.y, object_bytes)
    if approach.spec.stores == "notifications":  # ranked delivery: nothing kept
        return 0
    return len(sim.workload.l) * sim.workload.k * object_bytes


def _summary(scenario: Scenario, sim, frame: pd.DataFrame, setup_s, total_s, timer) -> dict:
    """The run's sizes and, per approach, every summary entry the catalog declares."""
    modes = ("counting", "timed") if timer is not None else ("counting",)
    if sim.server_load is not None:
        modes = (*modes, "distributed")
    if runs_ranked(sim.approaches):
        modes = (*modes, "ranked")
    per_approach = {}
    ref = reference_approach(sim)
    ref_rows = frame.loc[frame.approach == ref]
    total_ref = int(ref_rows["delivered_msgs"].sum()) if ref else 0
    updated_ref = int(ref_rows["delivered_updated_msgs"].sum()) if ref else 0
    object_bytes = scenario["messages"]["object_bytes"]
    for a in sim.approaches:
        part = frame[frame.approach == a.name]
        s: dict = {"batches": int(len(part))}
        for mode in modes:
            for m in CATALOG.select("batch", mode):
                for agg in m.aggregates:
                    if agg != "run":
                        s[m.key(agg)] = aggregate(part[m.name], agg, m.integer)
        delivered = int(part["delivered_msgs"].sum())
        s["redundancy"] = delivered / total_ref - 1 if total_ref else None
        updated = int(part["delivered_updated_msgs"].sum()) - updated_ref
        s["redundancy_paper"] = updated / total_ref if total_ref else None
        s["subscriber_memory_bytes"] = _memory(a, sim, object_bytes)
        if sim.server_load is not None:
            s.update(sim.server_load.summary(a))
        if a.spec.message == "ranked":
            s.update(ranked_summary(part, sim.network))
        if timer is not None:
            util = timer.utilisation(a.name)
            s["max_broker_utilisation"] = float(util.max()) if len(util) else 0.0
        per_approach[a.name] = s
    summary = {
        "scenario": scenario.as_dict(),
        "source": scenario.source,
        "objects": int(len(sim.workload.x)),
        "subscriptions": int(len(sim.workload.l)),
        "k": sim.workload.k,
        "events": int(len(sim.workload.events)),
        # events drawn as deletes, moves or updates that became inserts (no object left)
        "forced_inserts": sim.workload.events.forced_inserts,
        "batch_size": sim.batch_size,
        "overlay": sim.network.kind,
        "redundancy_reference": ref,
        "setup_time_s": setup_s,
        "total_time_s": total_s,
        "approaches": per_approach,
    }
    if timer is not None:
        summary["simulated_time_s"] = timer.env.now
    return summary
