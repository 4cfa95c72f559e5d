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
from cnsim.brokers.ideal import Delivery, IdealCN
from cnsim.errors import InputError
from cnsim.simulations.config import Scenario
from cnsim.simulations.world import Workload, build_workload
from cnsim.subscriptions.index import SubscriptionIndex
from cnsim.subscriptions.lists import TopKLists
from cnsim.subscriptions.workload import Updates

METRICS = (
    "server_out_msgs",
    "server_out_bytes",
    "delivered_msgs",
    "calls_first_k",
    "calls_min_y",
    "calls_snap",
    "server_time_s",
    "delivery_time_s",
)


@dataclass
class Outcome:
    """What one approach did for one event."""

    messages: Messages
    delivery: Delivery
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
        self.cn = IdealCN(self.subscriptions)
        self.approaches = [
            make_approach(name, w.x, w.y, self.subscriptions, w.k) for name in scenario.approaches
        ]
        self.lists: dict[str, TopKLists] = {}
        if track_lists:
            initial = TopKLists.initial(w.x, w.y, w.l, w.r, w.k)
            for a in self.approaches:
                self.lists[a.name] = initial.copy()

    def batches(self) -> Iterator[tuple[int, int]]:
        """``(first, stop)`` event indexes of every batch."""
        n = len(self.workload.events)
        for first in range(0, n, self.batch_size):
            yield first, min(first + self.batch_size, n)

    def steps(self) -> Iterator[tuple[int, dict[str, Outcome]]]:
        """Process the batches in order, yielding each batch's outcome per approach."""
        for b, (first, stop) in enumerate(self.batches()):
            updates = self.workload.events.updates(first, stop)
            yield b, {a.name: self._process(a, updates) for a in self.approaches}

    def _process(self, approach, updates: Updates) -> Outcome:
        before = approach.counter.as_dict()
        t0 = time.perf_counter()
        messages = approach.process(updates)
        t1 = time.perf_counter()
        delivery = self.cn.deliver(messages)
        if approach.name in self.lists:
            self.lists[approach.name].apply(delivery.subs, delivery.obj, delivery.y)
        t2 = time.perf_counter()
        calls = {key: value - before[key] for key, value in approach.counter.as_dict().items()}
        return Outcome(messages, delivery, calls, t1 - t0, t2 - t1)


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
    cn_bytes = scenario["messages"]["cn_bytes"]
    steps = sim.steps()
    if scenario["run"]["progress"] and n_batches >= 200:
        steps = tqdm(steps, total=n_batches, desc="batches", unit="batch", leave=False)
    for b, outcomes in steps:
        for name, o in outcomes.items():
            n_msgs = len(o.messages)
            columns[name][b] = (
                n_msgs,
                n_msgs * cn_bytes,
                len(o.delivery),
                o.calls["calls_first_k"],
                o.calls["calls_min_y"],
                o.calls["calls_snap"],
                o.server_time_s,
                o.delivery_time_s,
            )
    frame = _frame(sim, columns)
    summary = _summary(scenario, sim, frame, setup_s, time.perf_counter() - started)
    if out is not None:
        frame.to_parquet(out / "events.parquet", index=False)
        (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    return frame, summary


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


def _summary(
    scenario: Scenario, sim: Simulation, frame: pd.DataFrame, setup_s: float, total_s: float
):
    per_approach = {}
    for name, part in frame.groupby("approach", sort=False):
        means = {f"mean_{c}": float(part[c].mean()) for c in METRICS} if len(part) else {}
        per_approach[name] = {
            "batches": int(len(part)),
            **means,
            "max_server_out_bytes": int(part["server_out_bytes"].max()) if len(part) else 0,
            "total_delivered_msgs": int(part["delivered_msgs"].sum()),
        }
    return {
        "scenario": scenario.as_dict(),
        "source": scenario.source,
        "objects": int(len(sim.workload.x)),
        "subscriptions": int(len(sim.workload.l)),
        "k": sim.workload.k,
        "events": int(len(sim.workload.events)),
        "batch_size": sim.batch_size,
        "setup_time_s": setup_s,
        "total_time_s": total_s,
        "approaches": per_approach,
    }
