"""``cnsim bench paint``: per-event cost of Paint-Dense and Paint-Sparse on the paper's
workload (seed 003 §V: 10,000 uniform objects, uniform subscriptions), by k and m.

Measured side by side in one process, so ratios are meaningful on a noisy machine:

* by k in {1, 2, 5, 10, 15, 20} at m = 2,000,000: server time, delivery time,
  messages, deliveries and index calls per event (Table III layout);
* by m in {200,000, 2,000,000} at k = 10: server time per event (target: the 2M
  figure within 1.3x of the 200k one) and delivery time per delivered notification;
* Paint-Dense's server time against a vectorised brute-force computation of the
  affected set at m = 2,000,000 (target: at least 100x faster).
"""

from __future__ import annotations

import time

import numpy as np

from cnsim.bench import provenance
from cnsim.simulations.config import from_dict
from cnsim.simulations.metrics import CATALOG
from cnsim.simulations.runner import Simulation

APPROACHES = ["paint-dense", "paint-sparse"]
KS = [1, 2, 5, 10, 15, 20]
# Seed 003 Table III (k = 1, 2, 5, 10, 15, 20), m = 2,000,000.
PAPER_TABLE_III = {
    "paint_first_k": [2, 2, 2, 2, 2, 2],
    "paint-dense_min_y": [1.12, 1.73, 3.57, 6.60, 9.63, 12.63],
    "paint-sparse_min_y": [0.72744, 1.08988, 2.59596, 5.5568, 8.57692, 11.58048],
    "paint-sparse_snap": [1.2284, 2.95254, 12.06538, 40.69192, 84.65234, 143.20416],
    "unicast_min_y": [444.141, 1086.44, 2846.1, 5453.64, 8032.39, 10587.4],
}


def _scenario(m: int, k: int, events: int, seed: int = 1):
    return from_dict(
        {
            "seed": seed,
            "objects": {"count": 10_000, "distribution": "uniform"},
            "subscriptions": {"count": m, "distribution": "uniform", "k": k},
            "events": {"count": events},
            "algorithm": {"approaches": APPROACHES},
            "run": {"progress": False},
            "overlay": {"kind": "ideal"},
        }
    )


def measure(worlds: list[tuple[int, int]], events: int) -> list[dict]:
    """Mean per-event figures of each approach on each world ``(m, k)``. The worlds
    step through their (identical) event streams in lockstep, so machine noise
    falls on all of them alike."""
    sims = [Simulation(_scenario(m, k, events)) for m, k in worlds]
    metrics = [m for m in CATALOG.select("batch", "counting") if m.collect is not None]
    sums = [{a: np.zeros(len(metrics)) for a in APPROACHES} for _ in sims]
    for steps in zip(*(sim.steps() for sim in sims), strict=True):
        for acc, (_, outcomes) in zip(sums, steps, strict=True):
            for name, o in outcomes.items():
                acc[name] += [m.collect(o) for m in metrics]
    keys = [m.name for m in metrics]
    return [
        {name: dict(zip(keys, (v / events).tolist(), strict=True)) for name, v in acc.items()}
        for acc in sums
    ]


def brute_force_affected(x, y_before, y_after, i, l, r, k) -> np.ndarray:
    """Affected subscriptions of one update by brute force over all subscriptions:
    those whose top-k holds object ``i`` before or after (vectorised numpy)."""
    order = np.argsort(x)
    xs = x[order]
    lo = np.searchsorted(xs, l, side="left")
    hi = np.searchsorted(xs, r, side="right")
    contains = (l <= x[i]) & (x[i] <= r)
    others = order != i
    affected = np.zeros(len(l), bool)
    for y_i in (y_before[i], y_after[i]):
        if np.isfinite(y_i):
            below = np.concatenate([[0], np.cumsum(others & (y_after[order] < y_i))])
            affected |= contains & (below[hi] - below[lo] < k)
    return affected


def time_brute_force(m: int, k: int, events: int) -> float:
    """Mean seconds per event of :func:`brute_force_affected` on the paper's workload."""
    sim = Simulation(_scenario(m, k, events), track_lists=False)
    w, ev = sim.workload, sim.workload.events
    y = w.y.copy()
    total = 0.0
    for e in range(len(ev)):
        before = y.copy()
        y[ev.obj[e]] = ev.y_new[e]
        t0 = time.perf_counter()
        brute_force_affected(w.x, before, y, int(ev.obj[e]), w.l, w.r, k)
        total += time.perf_counter() - t0
    return total / len(ev)


def _calls(figures: dict) -> float:
    return figures["calls_first_k"] + figures["calls_min_y"] + figures["calls_snap"]


def run_bench(quick: bool = False, full: bool = False) -> dict:
    """All measurements; ``quick`` shrinks m and the event counts about tenfold."""
    m_big, m_small = (200_000, 20_000) if quick else (2_000_000, 200_000)
    events = 200 if quick else 1_000
    started = time.perf_counter()
    by_k = {k: measure([(m_big, k)], events)[0] for k in KS if k != 10}
    small, by_k[10] = measure([(m_small, 10), (m_big, 10)], events)
    by_k = dict(sorted(by_k.items()))
    brute_s = time_brute_force(m_big, 10, 20 if quick else 50)
    big = by_k[10]
    dense_server = big["paint-dense"]["server_time_s"]
    headline = {
        "m_small": m_small,
        "m_big": m_big,
        "server_time_ratio_big_over_small": {
            a: big[a]["server_time_s"] / small[a]["server_time_s"] for a in APPROACHES
        },
        "server_time_per_index_call_ratio_big_over_small": {
            a: (big[a]["server_time_s"] / _calls(big[a]))
            / (small[a]["server_time_s"] / _calls(small[a]))
            for a in APPROACHES
        },
        "delivery_time_per_notification_ratio_big_over_small": {
            a: (big[a]["delivery_time_s"] / big[a]["delivered_msgs"])
            / (small[a]["delivery_time_s"] / small[a]["delivered_msgs"])
            for a in APPROACHES
        },
        "brute_force_affected_s": brute_s,
        "paint_dense_server_s": dense_server,
        "brute_force_over_paint_dense": brute_s / dense_server,
    }
    return {
        **provenance("paint", quick, full),
        "events_per_point": events,
        "by_k": by_k,
        "by_m": {m_small: small, m_big: big},
        "paper_table_iii": PAPER_TABLE_III,
        "headline": headline,
        "wall_s": time.perf_counter() - started,
    }
