"""Paint-Sparse's calls at m = 2,000,000 with both counters, cnsim's and the paper's
reading, and real deliveries checking the computed masses (:func:`sparse_calls`)."""

from __future__ import annotations

import numpy as np

from cnsim.algorithms.paint_dense import PaintDense
from cnsim.algorithms.paint_sparse import PaintSparse
from cnsim.bench.fidelity.paper import KS
from cnsim.bench.fidelity.streams import workload
from cnsim.server.object_index import ObjectIndex
from cnsim.simulations.seeds import Seeds
from cnsim.subscriptions.generators.readings import mass
from cnsim.subscriptions.index import SubscriptionIndex
from cnsim.subscriptions.workload import generate_subscriptions


def sparse_calls(seeds: list[int], n_events: int, m: int, initial: str, ks=KS) -> dict:
    """Per k, per seed: Paint-Sparse's calls per event by both of its counts, Paint-Dense's
    min_y, and messages received — counted by reporting Paint-Sparse's and
    Paint-Sparse(1)'s messages against ``m`` drawn subscriptions, beside ``m`` × the
    mass of Paint-Dense's messages (the computed figure of :func:`readings_table`)."""
    out = {}
    for k in ks:
        rows = []
        for seed in seeds:
            x, y, ev = workload(seed, n_events, "uniform", initial)
            l, r = generate_subscriptions(Seeds(seed).rng("subscriptions"), m, "uniform")
            index = SubscriptionIndex(l, r)
            sparse = PaintSparse(ObjectIndex(x, y), index, k)
            sparse1 = PaintSparse(ObjectIndex(x, y), index, k, 1.0)
            dense = PaintDense(ObjectIndex(x, y), k)
            msgs = received = received1 = 0
            expected = 0.0
            for e in range(len(ev)):
                u = ev.updates(e, e + 1)
                exact, eps1 = sparse.process(u), sparse1.process(u)
                msgs += len(exact)
                received += int(index.report(exact.rects)[0][-1]) if len(exact) else 0
                received1 += int(index.report(eps1.rects)[0][-1]) if len(eps1) else 0
                expected += float(mass(dense.process(u).rects, "triangle").sum())
            n = len(ev)
            rows.append(
                {
                    "seed": seed,
                    "dense_min_y": dense.counter.min_y / n,
                    "min_y": sparse.counter.min_y / n,
                    "snap": sparse.counter.snap / n,
                    **{f"paper_{key}": v / n for key, v in sparse.paper.as_dict().items()},
                    "lowering_share": float(np.mean(ev.kind == 1)),
                    "messages": msgs / n,
                    "received": received / n,
                    "received_expected": m * expected / n,
                    "redundancy_paint_sparse_1": received1 / received - 1 if received else 0.0,
                }
            )
        mean = {key: float(np.mean([r[key] for r in rows])) for key in rows[0] if key != "seed"}
        total = sum(r["received"] for r in rows)
        mean["redundancy_paint_sparse_1"] = (
            sum(r["received"] * (1 + r["redundancy_paint_sparse_1"]) for r in rows) / total - 1
            if total
            else 0.0
        )
        out[k] = {"per_seed": rows, "mean": mean}
    return out
