"""``cnsim bench batch``: batch processing as in seed 003 §V "Batch processing"
(Figure 16): one sequence of 50,000 events processed as one batch by Paint-Batch,
Coalesce and Online (over Paint-Dense), for k in {1, 2, 5, 10, 15, 20}: messages
generated, messages received by subscriptions and min_y calls, in total; and the
fewest messages the subscriptions could receive (Theorem 6, corrected). A survey
of small random batch scenarios under ``cnsim verify`` adds how far each approach
is from that minimum, with ties, inserts, deletes and moves.
"""

from __future__ import annotations

import time

import numpy as np

from cnsim.algorithms.batch import coalesce
from cnsim.bench import provenance
from cnsim.simulations.config import Scenario, from_dict
from cnsim.simulations.metrics import CATALOG
from cnsim.simulations.minimum import fewest_messages
from cnsim.simulations.runner import run
from cnsim.simulations.seeds import Seeds
from cnsim.simulations.verify import verify
from cnsim.simulations.world import build_workload
from cnsim.subscriptions.lists import range_top_k

KS = [1, 2, 5, 10, 15, 20]
APPROACHES = ["paint-batch", "coalesce", "online"]


def _scenario(m: int, k: int, events: int):
    return from_dict(
        {
            "seed": 1,
            "objects": {"count": 10_000},
            "subscriptions": {"count": m, "k": k},
            "events": {"count": events, "batch_size": events},
            "overlay": {"kind": "ideal"},
            "algorithm": {"approaches": APPROACHES},
            "run": {"progress": False},
        }
    )


# Catalog metrics totalled over the sequence (Figure 16 compares what the server sends,
# what subscriptions receive, and the server's work).
_TOTALS = [
    CATALOG[name].name
    for name in ("server_out_msgs", "delivered_msgs", "calls_min_y", "server_time_s")
]


def run_bench(quick: bool = False, full: bool = False) -> dict:
    """Totals per approach and k; ``quick`` shrinks the sequence and m tenfold."""
    m, events = (20_000, 5_000) if quick else (200_000, 50_000)
    started = time.perf_counter()
    by_k = {}
    for k in KS:
        frame, _ = run(_scenario(m, k, events))
        totals = frame.groupby("approach", sort=False)[_TOTALS].sum()
        by_k[k] = {name: {c: float(v) for c, v in row.items()} for name, row in totals.iterrows()}
        by_k[k]["minimum"] = {"delivered_msgs": float(_fewest_received(_scenario(m, k, events)))}
    survey = _survey(6 if quick else 36)
    return {
        **provenance("batch", quick, full),
        "subscriptions": m,
        "events": events,
        "by_k": by_k,
        "survey": survey,
        "headline": {"by_k": by_k, "survey": survey["totals"]},
        "wall_s": time.perf_counter() - started,
    }


def _survey(count: int) -> dict:
    """``cnsim verify`` on ``count`` small random batch scenarios (k from 1 to 12,
    batches of 5 to 60 events, up to 25% each of inserts, deletes and moves):
    messages delivered by each approach and the minimum, in total."""
    totals: dict = {}
    for seed in range(count):
        mix = [0.0, 0.1, 0.25][seed % 3]
        scenario = from_dict(
            {
                "seed": seed,
                "objects": {
                    "count": 80 + seed % 50,
                    "distribution": "clustered" if seed % 2 else "uniform",
                },
                "subscriptions": {"count": 1000, "k": [1, 2, 3, 5, 8, 12][seed % 6]},
                "events": {
                    "count": 240,
                    "batch_size": [5, 10, 25, 60][seed % 4],
                    **{kind: mix for kind in ("inserts", "deletes", "moves")},
                },
                "overlay": {"kind": "ideal"},
                "algorithm": {"approaches": ["paint-batch"]},
                "run": {"progress": False},
            }
        )
        report = verify(scenario)
        if not report.ok:
            raise AssertionError(f"survey scenario {seed}: {report.text()}")
        for (approach, what), n in report.minimum.items():
            totals.setdefault(approach, {}).setdefault(what, 0)
            totals[approach][what] += n
    return {"scenarios": count, "totals": totals}


def _fewest_received(scenario: Scenario) -> int:
    """The fewest messages the subscriptions can receive for the whole sequence as
    one batch: :func:`cnsim.simulations.minimum.fewest_messages` from the lists
    before, after, and with the rank-raising updates alone."""
    w = build_workload(scenario, Seeds(scenario.seed))
    batch = coalesce(w.events.updates(0, len(w.events)))
    cap = len(w.x) + len(w.events)  # inserted objects take fresh ids
    x, y = np.full(cap, np.nan), np.full(cap, np.inf)
    x[: len(w.x)], y[: len(w.x)] = w.x, w.y
    x[batch.obj] = batch.x  # an id keeps its x (a move is a new id)
    y_after = y.copy()
    y_after[batch.obj] = batch.y_new
    y_pre = np.minimum(y, y_after)
    before, after, pre = (range_top_k(x, v, w.l, w.r, w.k) for v in (y, y_after, y_pre))
    return int(fewest_messages(before, after, pre).sum())
