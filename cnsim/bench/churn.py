"""``cnsim bench churn``: what subscribers coming and going, and brokers failing, cost
a run per event.

The paper's world (seed 003 §V: 10,000 uniform objects, m = 2,000,000 uniform ranges,
k = 10, the Meghdoot overlay over 1,000 brokers on 20,000 IP nodes), Paint-Dense and
Paint-Sparse, three ways:

* **none**: fixed subscriptions, every broker up;
* **churn**: 1% of the subscriptions per 1,000 events — m / 100,000 joins per event and
  exponential lifetimes of mean 100,000 events, so the live count stays about m
  (target: at most 1.3x none);
* **faults**: one broker failure per 500 events on average, back after 200, no
  replica, lost subscribers re-subscribing 20 events after a failure (reported).

The runs step through their (identical) event streams in lockstep, the order rotating
from event to event, each step timed (CPU seconds of the process), so machine noise
falls on all alike; the ratios are given over the whole run and per block of 100
events (their spread).
"""

from __future__ import annotations

import time

import numpy as np

from cnsim.bench import provenance
from cnsim.simulations.config import from_dict
from cnsim.simulations.runner import Simulation

APPROACHES = ["paint-dense", "paint-sparse"]
BLOCK = 100  # events per block of the per-block ratios
WAYS = ("none", "churn", "faults")


def _scenario(m: int, events: int, way: str, quick: bool):
    network = {"ip_nodes": 2_000, "brokers": 100} if quick else {}
    tables = {
        "seed": 1,
        "objects": {"count": 10_000},
        "subscriptions": {"count": m, "k": 10},
        "events": {"count": events},
        "network": network,
        "algorithm": {"approaches": APPROACHES},
        "run": {"progress": False},
    }
    if way == "churn":  # 1% of m per 1,000 events joins, as many leave
        tables["churn"] = {"joins": m / 100_000, "lifetime": "exponential",
                           "mean_lifetime": 100_000.0}  # fmt: skip
    if way == "faults":
        tables["faults"] = {"rate": 0.002, "repair_time": 200.0, "detection": 20}
    return from_dict(tables)


def measure(m: int, events: int, quick: bool) -> dict:
    """The three runs in lockstep: CPU seconds per event of each, and the ratios to the
    run with neither, by block (after each ran a small copy, so that none pays for
    loading compiled code)."""
    for way in WAYS:
        for _ in Simulation(_scenario(2_000, 200, way, True)).steps():
            pass
    sims = [Simulation(_scenario(m, events, way, quick)) for way in WAYS]
    steps = [sim.steps() for sim in sims]
    spent = np.zeros((len(WAYS), events))
    for e in range(events):
        for s in range(len(WAYS)):  # rotate which goes first
            r = (s + e) % len(WAYS)
            t0 = time.process_time()
            next(steps[r])
            spent[r, e] = time.process_time() - t0
    blocks = spent[:, : events // BLOCK * BLOCK].reshape(len(WAYS), -1, BLOCK).sum(axis=2)
    out = {
        "m": m,
        "events": events,
        "cpu_s_per_event": {way: float(spent[i].mean()) for i, way in enumerate(WAYS)},
    }
    for i, way in enumerate(WAYS[1:], start=1):
        ratios = blocks[i] / blocks[0]
        out[way] = {
            "ratio": float(spent[i].sum() / spent[0].sum()),
            "block_ratios": {
                "min": float(ratios.min()) if len(ratios) else None,
                "median": float(np.median(ratios)) if len(ratios) else None,
                "max": float(ratios.max()) if len(ratios) else None,
            },
        }
    churn, faults = sims[1], sims[2]
    out["churn"].update(joins_per_event=m / 100_000, pool=int(churn.churn.pool),
                        live_at_end=int(churn.live.sum()))  # fmt: skip
    out["faults"]["failures"] = int(len(faults.network.faults.schedule.broker))
    return out


def run_bench(quick: bool = False, full: bool = False) -> dict:
    """The measurement at m = 2,000,000 over 2,000 events (``quick``: 200,000 over
    500 events on a smaller network; ``full``: 10,000 events)."""
    m, events = (200_000, 500) if quick else (2_000_000, 10_000 if full else 2_000)
    started = time.perf_counter()
    result = measure(m, events, quick)
    headline = {f"{way}_ratio": result[way]["ratio"] for way in WAYS[1:]}
    return {
        **provenance("churn", quick, full),
        **result,
        "headline": {**headline, "target_churn": 1.3,
                     "churn_block_median": result["churn"]["block_ratios"]["median"]},
        "wall_s": time.perf_counter() - started,
    }
