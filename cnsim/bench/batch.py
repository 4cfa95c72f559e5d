"""``cnsim bench batch``: batch processing as in seed 003 §V "Batch processing"
(Figure 16): one sequence of 50,000 events processed as one batch by Paint-Batch,
Coalesce and Online (over Paint-Dense), for k in {1, 2, 5, 10, 15, 20}: messages
generated, messages received by subscriptions and min_y calls, in total.
"""

from __future__ import annotations

import time

from cnsim.bench import provenance
from cnsim.simulations.config import from_dict
from cnsim.simulations.runner import run

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


def run_bench(quick: bool = False) -> dict:
    """Totals per approach and k; ``quick`` shrinks the sequence and m tenfold."""
    m, events = (20_000, 5_000) if quick else (200_000, 50_000)
    started = time.perf_counter()
    by_k = {}
    for k in KS:
        frame, _ = run(_scenario(m, k, events))
        totals = frame.groupby("approach", sort=False)[
            ["server_out_msgs", "delivered_msgs", "calls_min_y", "server_time_s"]
        ].sum()
        by_k[k] = {name: {c: float(v) for c, v in row.items()} for name, row in totals.iterrows()}
    return {
        **provenance("batch", quick),
        "subscriptions": m,
        "events": events,
        "by_k": by_k,
        "headline": by_k,
        "wall_s": time.perf_counter() - started,
    }
