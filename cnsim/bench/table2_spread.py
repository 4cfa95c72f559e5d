"""``cnsim bench table2_spread``: Table II's spread, Paint-Sparse(ε)'s redundancy as the
paper counts it, on long runs.

``redundancy_paper`` (the updated objects' extra deliveries over the exact reference's
deliveries) is heavy-tailed: one event can carry most of a run's extra deliveries.
This runs seed 003's Table II scenario (``cnsim/simulations/reproduce/sweeps/seed003``:
10,000 objects, 2,000,000 subscriptions, stationary y, uniform updates; the ideal CN,
which delivers as the brokers do) for k = 2, 10, 20, two seeds each, 5,000 events per
run, and gives per (k, seed, ε) the ratio of sums, a bootstrap 90% interval over events
(2,000 resamples) and the ratio over each half of the run, beside the paper.  About 8
minutes on one core (RESULTS.md, the Table II section).  ``--quick``: 200,000
subscriptions and 300 events per run.
"""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd

from cnsim.bench import provenance
from cnsim.simulations.config import from_dict
from cnsim.simulations.runner import run

EPS = (0.125, 0.25, 0.5, 1.0)
KS = (2, 10, 20)
SEEDS = (1, 2)
EVENTS = 5000
PAPER = {  # seed 003 Table II, Paint-Sparse(ε), by k then ε
    2: {0.125: 0.0, 0.25: 0.0, 0.5: 0.0, 1.0: 0.16},
    10: {0.125: 0.015, 0.25: 0.061, 0.5: 0.14, 1.0: 0.30},
    20: {0.125: 0.034, 0.25: 0.080, 0.5: 0.17, 1.0: 0.34},
}


def scenario(k: int, seed: int, events: int = EVENTS, count: int = 2_000_000):
    """Table II's scenario at ``k``, its seed from ``k`` and ``seed``."""
    return from_dict({
        "seed": 1000 * k + seed,
        "objects": {"count": 10_000, "distribution": "uniform", "y_distribution": "stationary"},
        "subscriptions": {"count": count, "distribution": "uniform", "k": k},
        "events": {"count": events, "update": "uniform"},
        "network": {"ip_nodes": 20_000, "brokers": 1_000, "seed": 2011},
        "overlay": {"kind": "ideal"},
        "algorithm": {"approaches": ["paint-sparse", *(f"paint-sparse({e:g})" for e in EPS)]},
        "run": {"progress": False},
    })  # fmt: skip


def spread(events: pd.DataFrame, k: int, seed: int, rng) -> list[dict]:
    """Per ε: the ratio of sums, a bootstrap 90% interval over events and each half's."""
    ref = events[events.approach == "paint-sparse"].set_index("event")
    rows = []
    for eps in EPS:
        a = events[events.approach == f"paint-sparse({eps:g})"].set_index("event")
        extra = (a.delivered_updated_msgs - ref.delivered_updated_msgs).to_numpy(float)
        den = ref.delivered_msgs.to_numpy(float)
        n = len(extra)
        picks = rng.integers(0, n, (2000, n))
        boot = extra[picks].sum(axis=1) / den[picks].sum(axis=1)
        h = n // 2
        rows.append({
            "k": k, "seed": 1000 * k + seed, "eps": eps, "events": n,
            "redundancy_paper": extra.sum() / den.sum(),
            "p5": np.percentile(boot, 5), "p95": np.percentile(boot, 95),
            "first_half": extra[:h].sum() / den[:h].sum(),
            "second_half": extra[h:].sum() / den[h:].sum(),
            "paper": PAPER[k][eps],
        })  # fmt: skip
    return rows


def run_bench(quick: bool = False, full: bool = False) -> dict:
    """Every (k, seed): one run, its rows per ε."""
    rng = np.random.default_rng(0)
    rows = []
    for k in KS:
        for seed in SEEDS:
            sc = scenario(k, seed, 300, 200_000) if quick else scenario(k, seed)
            events, _ = run(sc)
            rows += spread(events, k, seed, rng)
            print(f"k={k} seed={seed} done", file=sys.stderr)
    rows = [{key: v.item() if isinstance(v, np.generic) else v for key, v in r.items()}
            for r in rows]  # fmt: skip
    headline = {f"k={r['k']} seed={r['seed']} eps={r['eps']:g}":
                f"{r['redundancy_paper']:.3g} [{r['p5']:.3g}, {r['p95']:.3g}] paper {r['paper']}"
                for r in rows}  # fmt: skip
    return {**provenance("table2_spread", quick, full), "rows": rows, "headline": headline}
