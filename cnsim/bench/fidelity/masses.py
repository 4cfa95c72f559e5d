"""Messages received per event without drawing a subscription: per event and reading,
the probability mass of the rectangles each approach sends (:func:`delivery_masses`),
and the tables of their means (:func:`readings_table`)."""

from __future__ import annotations

import numpy as np

from cnsim.algorithms import regions
from cnsim.algorithms.paint_dense import PaintDense
from cnsim.bench.fidelity.paper import KS, M
from cnsim.bench.fidelity.streams import workload
from cnsim.server.object_index import EAST, WEST, ObjectIndex
from cnsim.subscriptions.generators.readings import READINGS, mass


def delivery_masses(k: int, x, y, ev) -> dict[str, np.ndarray]:
    """Per event and reading: the probability mass of Paint-Dense's messages (exact
    deliveries), of Paint-Dense(1)'s, of the affected subscriptions (one message each, as
    Unicast sends), of Unicast's candidate rectangle (ℓ, x_i] × [x_i, r) and of CN-Relax's
    message; plus Paint-Dense's min_y calls and messages."""
    dense, dense1 = PaintDense(ObjectIndex(x, y), k), PaintDense(ObjectIndex(x, y), k, 1.0)
    n = len(ev)
    parts: dict[str, list] = {"exact": [], "eps1": [], "affected": [], "candidates": []}
    owner: dict[str, list] = {key: [] for key in parts}
    min_y = np.zeros(n, np.int64)
    msgs = np.zeros(n, np.int64)
    for e in range(n):
        u = ev.updates(e, e + 1)
        before = dense.counter.min_y
        exact = dense.process(u)
        min_y[e] = dense.counter.min_y - before
        msgs[e] = len(exact)
        parts["exact"].append(exact.rects)
        parts["eps1"].append(dense1.process(u).rects)
        i, x_i, y_old, y_new = int(u.obj[0]), float(u.x[0]), float(u.y_old[0]), float(u.y_new[0])
        low = min(y_old, y_new)  # the larger influence region: the one at the lower y
        L = dense.objects.first_k(x_i, low, WEST, k, i)
        R = dense.objects.first_k(x_i, low, EAST, k, i)
        parts["affected"].append(np.array(regions.influence_region(x_i, L, R, k)).reshape(-1, 4))
        lo, hi = regions.influence_interval(x_i, L, R, k)
        parts["candidates"].append(np.array([[lo, x_i, x_i, hi]]))
    out: dict[str, np.ndarray] = {"dense_min_y": min_y, "dense_msgs": msgs}
    relax = np.stack([np.full(n, -np.inf), ev.x, ev.x, np.full(n, np.inf)], axis=1)
    for key, rects in parts.items():
        owner[key] = np.repeat(np.arange(n), [len(r) for r in rects])
        rects = np.concatenate(rects) if rects else np.empty((0, 4))
        for reading in READINGS:
            out[f"{key}_{reading}"] = np.bincount(owner[key], mass(rects, reading), n)
    for reading in READINGS:
        out[f"relax_{reading}"] = mass(relax, reading)
    return out


def distribution(values: np.ndarray) -> dict:
    """Mean, quantiles and the share of the mean from the top 1% of events."""
    v = np.sort(np.asarray(values, np.float64))
    total = v.sum()
    top = v[len(v) - max(1, len(v) // 100) :].sum()
    q = np.quantile(v, [0.5, 0.9, 0.99, 0.999]) if len(v) else [0.0] * 4
    return {
        "mean": float(v.mean()) if len(v) else 0.0,
        "median": float(q[0]),
        "p90": float(q[1]),
        "p99": float(q[2]),
        "p99.9": float(q[3]),
        "max": float(v[-1]) if len(v) else 0.0,
        "top1pct_share": float(top / total) if total else 0.0,
    }


def readings_table(seeds: list[int], n_events: int, combos, ks=KS) -> dict:
    """For each update rule and initial y: per k and subscription reading, the expected
    messages received per event (× M) and the other figures, per seed and pooled."""
    out = {}
    for update, initial in combos:
        rows = {}
        for k in ks:
            per_seed = []
            for seed in seeds:
                x, y, ev = workload(seed, n_events, update, initial)
                per_seed.append(delivery_masses(k, x, y, ev))
            pooled = {key: np.concatenate([s[key] for s in per_seed]) for key in per_seed[0]}
            row: dict = {
                "dense_min_y": float(pooled["dense_min_y"].mean()),
                "dense_msgs": float(pooled["dense_msgs"].mean()),
            }
            for reading in READINGS:
                exact = pooled[f"exact_{reading}"]
                row[reading] = {
                    "messages_received": M * float(exact.mean()),
                    "per_seed": [M * float(s[f"exact_{reading}"].mean()) for s in per_seed],
                    "affected": M * float(pooled[f"affected_{reading}"].mean()),
                    "unicast_candidates": M * float(pooled[f"candidates_{reading}"].mean()),
                    "redundancy_paint_dense_1": float(
                        pooled[f"eps1_{reading}"].sum() / exact.sum() - 1
                    ),
                    "redundancy_cn_relax": float(
                        pooled[f"relax_{reading}"].sum() / exact.sum() - 1
                    ),
                    "cn_relax_received": M * float(pooled[f"relax_{reading}"].mean()),
                }
            tri = M * pooled["exact_triangle"]
            row["distribution_triangle"] = distribution(tri)
            # How the mean depends on the run length: the mean over the first N events.
            row["mean_by_length_triangle"] = {
                int(n): float(np.mean([M * s["exact_triangle"][:n].mean() for s in per_seed]))
                for n in (100, 1_000, 10_000, 100_000, n_events)
                if n <= n_events
            }
            rows[k] = row
        out[f"{update}/{initial}"] = rows
    return out
