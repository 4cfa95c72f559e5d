"""The counting-mode driver: wires one scenario's world and drives every approach
over the identical event stream, recording one metrics row per (approach, event).

Per event, the server's object index takes the update once; then each approach
turns the event into messages, the CN delivers them, and the approach's own copy
of the subscriber lists applies the deliveries.
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
from cnsim.server.object_index import CallCounter, ObjectIndex
from cnsim.simulations.config import Scenario
from cnsim.simulations.world import Workload, build_workload
from cnsim.subscriptions.index import SubscriptionIndex
from cnsim.subscriptions.lists import TopKLists

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
        self.counter = CallCounter()
        self.objects = ObjectIndex(w.x, w.y, self.counter)
        self.subscriptions = SubscriptionIndex(w.l, w.r, self.counter)
        self.cn = IdealCN(self.subscriptions)
        self.approaches = [
            make_approach(name, self.objects, self.subscriptions, w.k)
            for name in scenario.approaches
        ]
        self.lists: dict[str, TopKLists] = {}
        if track_lists:
            initial = TopKLists.initial(w.x, w.y, w.l, w.r, w.k)
            for a in self.approaches:
                self.lists[a.name] = initial.copy()

    def steps(self) -> Iterator[tuple[int, dict[str, Outcome]]]:
        """Process the events in order, yielding each event's outcome per approach."""
        ev = self.workload.events
        for e in range(len(ev)):
            i, y_old, y_new = int(ev.obj[e]), float(ev.y_old[e]), float(ev.y_new[e])
            self.objects.update(i, y_new)
            yield e, {a.name: self._process(a, i, y_old, y_new) for a in self.approaches}

    def _process(self, approach, i: int, y_old: float, y_new: float) -> Outcome:
        before = self.counter.as_dict()
        t0 = time.perf_counter()
        messages = approach.messages(i, y_old, y_new)
        t1 = time.perf_counter()
        delivery = self.cn.deliver(messages)
        if approach.name in self.lists:
            self.lists[approach.name].apply(delivery.subs, delivery.obj, delivery.y)
        t2 = time.perf_counter()
        calls = {key: value - before[key] for key, value in self.counter.as_dict().items()}
        return Outcome(messages, delivery, calls, t1 - t0, t2 - t1)


def run(
    scenario: Scenario, out_dir: str | Path | None = None, events: int | None = None
) -> tuple[pd.DataFrame, dict]:
    """Run a scenario; write ``events.parquet`` and ``summary.json`` to ``out_dir`` if given."""
    out = _prepare_out_dir(out_dir)
    started = time.perf_counter()
    sim = Simulation(scenario, events)
    setup_s = time.perf_counter() - started
    n_events = len(sim.workload.events)
    columns = {a.name: np.zeros((n_events, len(METRICS))) for a in sim.approaches}
    cn_bytes = scenario["messages"]["cn_bytes"]
    steps = sim.steps()
    if scenario["run"]["progress"] and n_events >= 200:
        steps = tqdm(steps, total=n_events, desc="events", unit="ev", leave=False)
    for e, outcomes in steps:
        for name, o in outcomes.items():
            n_msgs = len(o.messages)
            columns[name][e] = (
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
    ev = sim.workload.events
    kinds = ev.kinds()
    parts = []
    for name, values in columns.items():
        part = pd.DataFrame(values, columns=list(METRICS))
        int_cols = [c for c in METRICS if not c.endswith("_s")]
        part[int_cols] = part[int_cols].astype(np.int64)
        part.insert(0, "object", ev.obj)
        part.insert(0, "kind", kinds)
        part.insert(0, "event", np.arange(len(ev), dtype=np.int64))
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
            "events": int(len(part)),
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
        "setup_time_s": setup_s,
        "total_time_s": total_s,
        "approaches": per_approach,
    }
