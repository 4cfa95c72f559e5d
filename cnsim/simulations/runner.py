"""The counting-mode driver: wires one scenario's world and drives every approach
over the identical event stream, recording one metrics row per (approach, batch).

Events are taken in batches of ``events.batch_size`` (1: every event alone). For
each batch, every approach applies its updates to its own object index and turns
them into messages, the CN delivers them, and the approach's own copy of the
subscriber lists applies the deliveries.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from tqdm import tqdm

from cnsim.algorithms.messages import Messages
from cnsim.algorithms.registry import make_approach
from cnsim.brokers.ideal import Delivery
from cnsim.brokers.overlay import Traffic
from cnsim.errors import InputError
from cnsim.simulations.config import Scenario
from cnsim.simulations.dissemination import Dissemination
from cnsim.simulations.timed import TIMED_METRICS, Timer
from cnsim.simulations.world import Workload, build_workload
from cnsim.subscriptions.index import SubscriptionIndex
from cnsim.subscriptions.lists import TopKLists
from cnsim.subscriptions.workload import Updates

METRICS = (
    "server_out_msgs",
    "server_out_bytes",
    "delivered_msgs",
    "overlay_bytes",
    "ip_bytes",
    "last_hop_ip_bytes",
    "publish_ip_bytes",
    "calls_first_k",
    "calls_min_y",
    "calls_snap",
    "server_time_s",
    "delivery_time_s",
)


@dataclass
class Outcome:
    """What one approach did for one batch (one event when batches hold one)."""

    messages: Messages
    delivery: Delivery
    traffic: Traffic
    publish_ip_hops: int
    calls: dict[str, int]
    server_time_s: float
    delivery_time_s: float


class Simulation:
    """A scenario's world, its approaches and their subscriber lists."""

    def __init__(self, scenario: Scenario, events: int | None = None, track_lists: bool = True):
        self.scenario = scenario
        self.workload: Workload = build_workload(scenario, events)
        w = self.workload
        self.batch_size = scenario["events"]["batch_size"]
        self.subscriptions = SubscriptionIndex(w.l, w.r)
        self.cn = Dissemination(scenario, w, self.subscriptions)
        initial = TopKLists.initial(w.x, w.y, w.l, w.r, w.k)
        self.approaches = [
            make_approach(name, w.x, w.y, self.subscriptions, w.k, initial)
            for name in scenario.approaches
        ]
        self.lists: dict[str, TopKLists] = {}
        if track_lists:
            for a in self.approaches:
                if not getattr(a, "serverless", False):  # CN-Relax keeps whole ranges
                    self.lists[a.name] = initial.copy()

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
        before = approach.counter.as_dict()
        t0 = time.perf_counter()
        messages = approach.process(updates)
        t1 = time.perf_counter()
        delivery, traffic = self.cn.deliver(approach, messages, update_events)
        if approach.name in self.lists:
            self.lists[approach.name].apply(delivery.subs, delivery.obj, delivery.y, delivery.evict)
        t2 = time.perf_counter()
        calls = {key: value - before[key] for key, value in approach.counter.as_dict().items()}
        publish = self.cn.publish_ip_hops(approach, first, stop)
        return Outcome(messages, delivery, traffic, publish, calls, t1 - t0, t2 - t1)


def run(
    scenario: Scenario, out_dir: str | Path | None = None, events: int | None = None
) -> tuple[pd.DataFrame, dict]:
    """Run a scenario; write ``events.parquet`` and ``summary.json`` to ``out_dir`` if given."""
    out = _prepare_out_dir(out_dir)
    started = time.perf_counter()
    sim = Simulation(scenario, events)
    setup_s = time.perf_counter() - started
    n_batches = len(list(sim.batches()))
    columns = {a.name: np.zeros((n_batches, len(METRICS))) for a in sim.approaches}
    steps = sim.steps()
    if scenario["run"]["progress"] and n_batches >= 200:
        steps = tqdm(
            steps, total=n_batches, desc="batches", unit="batch", leave=False, disable=None
        )
    sizes = scenario["messages"]
    approaches = {a.name: a for a in sim.approaches}
    timer = None
    if scenario["run"]["mode"] == "timed":
        timer = Timer(sim, scenario)
        steps = timer.replay(steps)
    for b, outcomes in steps:
        for name, o in outcomes.items():
            columns[name][b] = _row(approaches[name], o, sizes)
    frame = _with_redundancy(_frame(sim, columns), sim)
    if timer is not None:
        frame = _with_timing(frame, timer)
    summary = _summary(scenario, sim, frame, setup_s, time.perf_counter() - started)
    if timer is not None:
        _timed_summary(summary, frame, timer)
    if out is not None:
        frame.to_parquet(out / "events.parquet", index=False)
        (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
        load = _broker_load(sim, timer)
        if load is not None:
            load.to_parquet(out / "brokers.parquet", index=False)
    return frame, summary


def _row(approach, o: Outcome, sizes: dict) -> tuple:
    """One metrics row; message sizes by kind (CN or unicast), nothing from a server
    for the serverless CN-Relax."""
    size = sizes["unicast_bytes"] if o.messages.target is not None else sizes["cn_bytes"]
    from_server = 0 if getattr(approach, "serverless", False) else len(o.messages)
    t = o.traffic
    return (
        from_server,
        from_server * size,
        len(o.delivery),
        t.overlay_hops * size,
        t.ip_hops * size,
        t.last_hop_ip_hops * size,
        o.publish_ip_hops * sizes["event_bytes"],
        o.calls["calls_first_k"],
        o.calls["calls_min_y"],
        o.calls["calls_snap"],
        o.server_time_s,
        o.delivery_time_s,
    )


def _prepare_out_dir(out_dir: str | Path | None) -> Path | None:
    if out_dir is None:
        return None
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"--out {str(out)!r}: cannot create directory ({exc.strerror})") from None
    return out


def _frame(sim: Simulation, columns: dict[str, np.ndarray]) -> pd.DataFrame:
    bounds = np.array(list(sim.batches()), np.int64).reshape(-1, 2)
    first, stop = bounds[:, 0], bounds[:, 1]
    kinds = sim.workload.events.kinds()[first] if sim.batch_size == 1 else "batch"
    parts = []
    for name, values in columns.items():
        part = pd.DataFrame(values, columns=list(METRICS))
        int_cols = [c for c in METRICS if not c.endswith("_s")]
        part[int_cols] = part[int_cols].astype(np.int64)
        part.insert(0, "kind", kinds)
        part.insert(0, "events", stop - first)
        part.insert(0, "event", first)
        part.insert(0, "batch", np.arange(len(first), dtype=np.int64))
        part.insert(0, "approach", name)
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def reference_approach(sim: Simulation) -> str | None:
    """The exact approach redundancy is measured against: the first exact CN approach
    configured, else Unicast (whose messages also carry the object they replace, so
    it delivers fewer messages than the CN approaches)."""
    exact = [a.name for a in sim.approaches if a.exact]
    return next((n for n in exact if n != "unicast"), exact[0] if exact else None)


def _with_redundancy(frame: pd.DataFrame, sim: Simulation) -> pd.DataFrame:
    """``redundancy`` = delivered / delivered by the exact reference − 1, per batch
    (NaN without an exact approach, or where it delivered nothing)."""
    ref = reference_approach(sim)
    if ref is None:
        frame["redundancy"] = np.nan
        return frame
    by_batch = frame.loc[frame.approach == ref].set_index("batch")["delivered_msgs"]
    exact = frame["batch"].map(by_batch).to_numpy(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = frame["delivered_msgs"].to_numpy(float) / exact
    frame["redundancy"] = np.where(exact > 0, ratio - 1, np.nan)
    return frame


def _broker_load(sim: Simulation, timer: Timer | None = None) -> pd.DataFrame | None:
    load = sim.cn.broker_load()
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
    timed = np.concatenate([timer.columns(name) for name in frame["approach"].unique()])
    for j, col in enumerate(TIMED_METRICS):
        frame[col] = timed[:, j]
    frame["server_queue_len"] = frame["server_queue_len"].astype(np.int64)
    frame["reordered"] = frame["reordered"].astype(np.int64)
    return frame


def _timed_summary(summary: dict, frame: pd.DataFrame, timer: Timer) -> None:
    """Percentiles of latency and server waiting, reordering and utilisation."""
    summary["simulated_time_s"] = timer.env.now
    for name, part in frame.groupby("approach", sort=False):
        s = summary["approaches"][name]
        for col in ("latency_first_s", "latency_last_s", "server_wait_s"):
            values = part[col].dropna().to_numpy()
            for q in (50, 95, 99):
                s[f"p{q}_{col}"] = float(np.percentile(values, q)) if len(values) else None
        s["mean_server_queue_len"] = float(part["server_queue_len"].mean())
        s["total_reordered"] = int(part["reordered"].sum())
        util = timer.utilisation(name)
        s["max_broker_utilisation"] = float(util.max()) if len(util) else 0.0


def _memory(approach, sim: Simulation, object_bytes: int) -> int:
    """Bytes all subscribers store under ``approach`` (CN-Relax keeps whole ranges)."""
    if getattr(approach, "serverless", False):
        return approach.memory_bytes(sim.workload.x, sim.workload.y, object_bytes)
    return len(sim.workload.l) * sim.workload.k * object_bytes


def _summary(
    scenario: Scenario, sim: Simulation, frame: pd.DataFrame, setup_s: float, total_s: float
):
    per_approach = {}
    ref = reference_approach(sim)
    total_ref = int(frame.loc[frame.approach == ref, "delivered_msgs"].sum()) if ref else 0
    object_bytes = scenario["messages"]["object_bytes"]
    for a in sim.approaches:
        part = frame[frame.approach == a.name]
        means = {f"mean_{c}": float(part[c].mean()) for c in METRICS} if len(part) else {}
        delivered = int(part["delivered_msgs"].sum())
        per_approach[a.name] = {
            "batches": int(len(part)),
            **means,
            "max_server_out_bytes": int(part["server_out_bytes"].max()) if len(part) else 0,
            "total_delivered_msgs": delivered,
            "redundancy": delivered / total_ref - 1 if total_ref else None,
            "subscriber_memory_bytes": _memory(a, sim, object_bytes),
        }
    return {
        "scenario": scenario.as_dict(),
        "source": scenario.source,
        "objects": int(len(sim.workload.x)),
        "subscriptions": int(len(sim.workload.l)),
        "k": sim.workload.k,
        "events": int(len(sim.workload.events)),
        "batch_size": sim.batch_size,
        "overlay": sim.cn.kind,
        "redundancy_reference": ref,
        "setup_time_s": setup_s,
        "total_time_s": total_s,
        "approaches": per_approach,
    }
