"""``cnsim bench multidim``: Paint-Dense and Paint-Sparse for 1.5-d range subscriptions
on seed 003 appendix D-C's workload, beside its Tables VII and VIII and Figure 26.

Workload (appendix D-C): n = 10,000 objects with x1, x2 (and y) uniform in [0, 1);
m = 400,000 subscriptions ``[l1, r1] × (−∞, r2]`` with r2 uniform and

* DS#1: l1, r1 the smaller and larger of two uniform draws;
* DS#2: l1 uniform, r1 − l1 the narrowest width covering 1,000 objects (r1 is the
  x1 of the 1,000th object from l1 eastward, or the last object's);
* DS#3: the same covering 100 objects.

Events (seed 003 §V): a uniformly chosen object's y is raised or lowered with
probability 1/2, the new y uniform on that side of the old one; the same stream
for every approach. Per event and k in
{1, 2, 5, 10, 15}: "min queries" (Table VII): the min_y calls of the exposed-object
search plus the min_x2 calls of the polygon sweep (Algorithm 7 names both "min";
their sum matches the paper's Paint-Dense column within noise, both are also
recorded apart),
snap calls (Table VIII), first_k calls, messages, and the server's outgoing
traffic (messages × 36 bytes: a 3-d box and (x1, x2, y), 4 bytes each), average
and maximum per event (Figure 26). Paint-Dense does not depend on the
subscriptions, so it runs once per k.
"""

from __future__ import annotations

import time

import numpy as np

from cnsim.algorithms.range15d.paint import MESSAGE_BYTES, PaintDense15, PaintSparse15
from cnsim.bench import provenance
from cnsim.server.object_index_2d import ObjectIndex2D
from cnsim.subscriptions.generators.datasets_15d import DATASETS, events, objects, subscriptions
from cnsim.subscriptions.index import SubscriptionIndex3D

KS = [1, 2, 5, 10, 15]
# Seed 003 appendix D, Table VII (min queries per event) and Table VIII (snap calls).
PAPER_TABLE_VII = {
    "paint-dense": [6.35, 11.31, 26.13, 50.48, 74.40],
    "paint-sparse DS#1": [5.68, 9.88, 23.07, 45.85, 68.8],
    "paint-sparse DS#2": [5.40, 8.97, 19.45, 36.97, 54.67],
    "paint-sparse DS#3": [5.51, 9.36, 21.12, 41.13, 61.07],
}
PAPER_TABLE_VIII = {
    "paint-sparse DS#1": [4.55, 13.86, 88.43, 473.43, 1361.90],
    "paint-sparse DS#2": [4.08, 10.92, 51.44, 213.40, 561.45],
    "paint-sparse DS#3": [4.29, 12.28, 70.69, 360.45, 1022.86],
}


def measure(approach, events: list[tuple[int, float]]) -> dict:
    """Per-event means (and the maximum traffic) of one approach over ``events``."""
    counter = approach.counter
    per_event = []
    started = time.perf_counter()
    for i, y_new in events:
        before = counter.as_dict()
        msgs = approach.process(np.array([i]), np.array([y_new]))
        after = counter.as_dict()
        per_event.append([after[c] - before[c] for c in after] + [len(msgs)])
    wall = time.perf_counter() - started
    a = np.array(per_event, np.float64)
    names = [*counter.as_dict(), "server_out_msgs"]
    out = {name: float(a[:, j].mean()) for j, name in enumerate(names)}
    # Per-event counts are heavy-tailed (a few rank-lowering events expose many
    # objects): the standard error of the mean says how far a sample can drift.
    sem = a.std(axis=0, ddof=1) / np.sqrt(len(a)) if len(a) > 1 else np.zeros(a.shape[1])
    out.update({f"{name}_sem": float(sem[j]) for j, name in enumerate(names)})
    traffic = a[:, -1] * MESSAGE_BYTES
    out["server_out_bytes_avg"] = float(traffic.mean())
    out["server_out_bytes_max"] = float(traffic.max())
    out["server_time_s"] = wall / len(events)
    return out


def run_bench(quick: bool = False, full: bool = False) -> dict:
    """Every (approach, dataset, k) on one object set and one event stream."""
    n, m = 10_000, (40_000 if quick else 400_000)
    events_n = 100 if quick else 500
    ks = [1, 2, 5] if quick else KS
    started = time.perf_counter()
    rng = np.random.default_rng(2024)
    x1, x2, y = objects(n, rng)
    stream = events(y, events_n, np.random.default_rng(7))
    subs = {d: SubscriptionIndex3D(*subscriptions(d, m, x1, np.random.default_rng(11 + j)))
            for j, d in enumerate(DATASETS)}  # fmt: skip
    results: dict[str, dict[int, dict]] = {}
    for k in ks:
        results.setdefault("paint-dense", {})[k] = measure(
            PaintDense15(ObjectIndex2D(x1, x2, y), k), stream
        )
        for d in DATASETS:
            results.setdefault(f"paint-sparse {d}", {})[k] = measure(
                PaintSparse15(ObjectIndex2D(x1, x2, y), subs[d], k), stream
            )
        # The other way of keeping the slabs' subscription bounds (fewer snaps, more min_y).
        results.setdefault("paint-sparse DS#1 lazy", {})[k] = measure(
            PaintSparse15(ObjectIndex2D(x1, x2, y), subs["DS#1"], k, "lazy"), stream
        )
    ratios = {}
    for name, by_k in results.items():
        ratios[name] = {}
        for k, fig in by_k.items():
            j = KS.index(k)
            paper = name.removesuffix(" lazy")
            row = {
                "min_y": fig["calls_min_y"] / PAPER_TABLE_VII[paper][j],
                "min_y+min_x2": fig["calls_min"] / PAPER_TABLE_VII[paper][j],
            }
            if paper in PAPER_TABLE_VIII:
                row["snap"] = fig["calls_snap"] / PAPER_TABLE_VIII[paper][j]
            ratios[name][k] = row
    return {
        **provenance("multidim", quick, full),
        "objects": n,
        "subscriptions": m,
        "events": events_n,
        "ks": ks,
        "message_bytes": MESSAGE_BYTES,
        "results": results,
        "paper_table_vii_min_queries": PAPER_TABLE_VII,
        "paper_table_viii_snap": PAPER_TABLE_VIII,
        "ratio_to_paper": ratios,
        "headline": {
            name: {
                k: {
                    "min_y": round(f["calls_min_y"], 2),
                    "min_x2": round(f["calls_min_x2"], 2),
                    "snap": round(f["calls_snap"], 2),
                    "msgs": round(f["server_out_msgs"], 2),
                }
                for k, f in by_k.items()
            }
            for name, by_k in results.items()
        },  # fmt: skip
        "wall_s": time.perf_counter() - started,
    }
