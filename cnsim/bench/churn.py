"""``cnsim bench churn``: what subscribers coming and going cost a run per event.

The paper's world (seed 003 §V: 10,000 uniform objects, m = 2,000,000 uniform ranges,
k = 10, the Meghdoot overlay over 1,000 brokers on 20,000 IP nodes), Paint-Dense and
Paint-Sparse, with churn at 1% of the subscriptions per 1,000 events — m / 100,000
joins per event and exponential lifetimes of mean 100,000 events, so the live count
stays about m — against the same run without churn. The two runs step through their
(identical) event streams in lockstep, each step timed (CPU seconds of the process),
so machine noise falls on both alike; the ratio is given over the whole run and per
block of 100 events (its spread). Target: at most 1.3x.
"""

from __future__ import annotations

import time

import numpy as np

from cnsim.bench import provenance
from cnsim.simulations.config import from_dict
from cnsim.simulations.runner import Simulation

APPROACHES = ["paint-dense", "paint-sparse"]
BLOCK = 100  # events per block of the per-block ratios


def _scenario(m: int, events: int, churn: bool, quick: bool):
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
    if churn:  # 1% of m per 1,000 events joins, as many leave
        tables["churn"] = {"joins": m / 100_000, "lifetime": "exponential",
                           "mean_lifetime": 100_000.0}  # fmt: skip
    return from_dict(tables)


def measure(m: int, events: int, quick: bool) -> dict:
    """Both runs in lockstep: CPU seconds per event of each, and their ratio by block
    (after both ran a small copy, so that neither pays for loading compiled code)."""
    for churn in (False, True):
        for _ in Simulation(_scenario(2_000, 200, churn, True)).steps():
            pass
    sims = [Simulation(_scenario(m, events, churn, quick)) for churn in (False, True)]
    steps = [sim.steps() for sim in sims]
    spent = np.zeros((2, events))
    for e in range(events):
        for s in range(2):  # alternate which goes first
            r = s if e % 2 == 0 else 1 - s
            t0 = time.process_time()
            next(steps[r])
            spent[r, e] = time.process_time() - t0
    blocks = spent[:, : events // BLOCK * BLOCK].reshape(2, -1, BLOCK).sum(axis=2)
    ratios = blocks[1] / blocks[0]
    churn = sims[1]
    return {
        "m": m,
        "events": events,
        "joins_per_event": m / 100_000,
        "live_at_end": int(churn.live.sum()),
        "pool": int(churn.churn.pool),
        "cpu_s_per_event": {"without": float(spent[0].mean()), "with": float(spent[1].mean())},
        "ratio": float(spent[1].sum() / spent[0].sum()),
        "block_ratios": {
            "min": float(ratios.min()) if len(ratios) else None,
            "median": float(np.median(ratios)) if len(ratios) else None,
            "max": float(ratios.max()) if len(ratios) else None,
        },
    }


def run_bench(quick: bool = False, full: bool = False) -> dict:
    """The measurement at m = 2,000,000 over 2,000 events (``quick``: 200,000 over
    500 events on a smaller network; ``full``: 10,000 events)."""
    m, events = (200_000, 500) if quick else (2_000_000, 10_000 if full else 2_000)
    started = time.perf_counter()
    result = measure(m, events, quick)
    return {
        **provenance("churn", quick, full),
        **result,
        "headline": {"ratio": result["ratio"], "target": 1.3, **result["block_ratios"]},
        "wall_s": time.perf_counter() - started,
    }
