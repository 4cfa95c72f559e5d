"""``cnsim bench distributed``: the distributed object database of seed 003 appendix C
(Figure 20): how many servers a ``first_k`` or ``min_y`` query traverses against k,
with 100 servers holding 100,000 objects (k from 10 to 100,000), beside the paper's
estimate ``2k·s/n`` and the ``O(log(k)·s/n)`` it reports observing.

The objects are uniform in x and y (seed 003 §V). For every k, a stream of uniform
y-updates (an object drawn uniformly, raised or lowered with probability 1/2, the new
y uniform on that side) is applied to a :class:`~cnsim.server.distributed.DistributedIndex`
at the owner of each object, and each update issues the queries Paint-Dense opens it
with: ``first_k`` west and east of ``x_i`` at the lower of the two y-values (the
influence region's staircase), and for a rank-lowering update the sweep's first
``min_y`` over the influence interval II(i) above ``y_old``. (The sweep's later
``min_y`` ranges lie inside that first one.) Paint-Dense itself runs beside it at
k = 10 and 100, all its queries counted. A query's traversal is the number of
neighbour servers it walks to beyond the one it starts at (appendix C's length of
traversal). Beside the paper's two curves the results give a third, the estimate
redone with each query's own chance ``z`` of an object lying below it (its y-value)
in place of 1/2: about ``k/z`` objects are met before ``k`` lie below, at most as
many as lie on that side, hence ``min(k/z, objects on the side)·s/n`` servers.
"""

from __future__ import annotations

import math
import time

import numpy as np

from cnsim.algorithms import regions
from cnsim.algorithms.base import ServerView
from cnsim.algorithms.registry import make_approach
from cnsim.bench import provenance
from cnsim.server.distributed import DistributedIndex
from cnsim.server.object_index import EAST, WEST
from cnsim.simulations.seeds import Seeds
from cnsim.subscriptions.index import SubscriptionIndex
from cnsim.subscriptions.workload import generate_events, generate_objects


def _sizes(quick: bool) -> dict:
    if quick:  # the same n/s = 1,000 objects per server, a fifth of the servers
        return {"n": 20_000, "s": 20, "ks": [10, 100, 1_000, 10_000, 20_000], "events": 300}
    return {"n": 100_000, "s": 100, "ks": [10, 100, 1_000, 10_000, 100_000], "events": 1_000}


def run_bench(quick: bool = False, full: bool = False) -> dict:
    """Servers traversed per query against k, the estimates, and per-server load."""
    size = _sizes(quick)
    n, s = size["n"], size["s"]
    seeds = Seeds(20)
    x, y = generate_objects(seeds.rng("objects"), n, "uniform")
    events = generate_events(seeds.rng("events"), y, size["events"], "uniform", x=x)
    started = time.perf_counter()
    by_k = {k: _queries(x, y, s, k, events) for k in size["ks"]}
    paint = {k: _paint_dense(x, y, s, k, events, quick) for k in (10, 100)}
    headline = {
        k: {
            "first_k": r["first_k"]["mean"],
            "min_y": r["min_y"]["mean"],
            "all": r["all"]["mean"],
            "model_first_k": r["model_first_k"],
            "model_min_y": r["model_min_y"],
            "estimate_2ks_n": r["estimate_2ks_n"],
            "log_k_s_n": r["log_k_s_n"],
        }
        for k, r in by_k.items()
    }
    return {
        **provenance("distributed", quick, full),
        "objects": n,
        "servers": s,
        "events": len(events),
        "by_k": by_k,
        "paint_dense": paint,
        "headline": headline,
        "wall_s": time.perf_counter() - started,
    }


def _stats(hops: list[int]) -> dict:
    a = np.asarray(hops, np.float64)
    if not len(a):
        return {"queries": 0, "mean": None, "p50": None, "p95": None, "max": None}
    return {
        "queries": len(a),
        "mean": float(a.mean()),
        "p50": float(np.percentile(a, 50)),
        "p95": float(np.percentile(a, 95)),
        "max": int(a.max()),
    }


def _queries(x: np.ndarray, y: np.ndarray, s: int, k: int, events) -> dict:
    """Traversal of Paint-Dense's opening queries of every update, for one k."""
    index = DistributedIndex(x, y, s)
    c = index.counter
    n = len(x)
    xs = np.sort(x)  # the stream holds y-updates only: x-values stay as they are
    hops: dict[str, list[int]] = {"first_k": [], "min_y": []}
    model: dict[str, list[float]] = {"first_k": [], "min_y": []}
    for i, x_i, y_old, y_new in events.updates(0, len(events)):
        index.apply(i, x_i, y_new)
        z = min(y_old, y_new)
        # The 2k·s/n estimate with the query's own chance z of an object lying below
        # (not 1/2): about k/z objects met before k lie below, at most those on the side.
        west = int(np.searchsorted(xs, x_i))
        met = [min(k / max(z, 1e-12), side) for side in (west, n - west - 1)]
        lists = []
        for direction, m in zip((WEST, EAST), met, strict=True):
            before = c.hops_first_k
            lists.append(index.first_k(x_i, z, direction, k, i))
            hops["first_k"].append(c.hops_first_k - before)
            model["first_k"].append(m * s / n)
        if y_new > y_old:
            lo, hi = regions.influence_interval(x_i, *lists, k)
            before = c.hops_min_y
            index.min_y(lo, hi, y_old, i)
            hops["min_y"].append(c.hops_min_y - before)
            model["min_y"].append(sum(met) * s / n)  # II(i) spans both walks
    answered = c.answered
    return {
        "first_k": _stats(hops["first_k"]),
        "min_y": _stats(hops["min_y"]),
        "all": _stats(hops["first_k"] + hops["min_y"]),
        "model_first_k": float(np.mean(model["first_k"])),
        "model_min_y": float(np.mean(model["min_y"])) if model["min_y"] else None,
        "estimate_2ks_n": 2 * k * s / n,
        "log_k_s_n": math.log(k) * s / n,
        "server_queries_max_over_mean": float(answered.max() / answered.mean()),
        "server_objects_max_over_mean": float(index.held().max() / index.held().mean()),
    }


def _paint_dense(x, y, s: int, k: int, events, quick: bool) -> dict:
    """Paint-Dense over the distributed index: every query it makes, counted."""
    count = min(len(events), 100 if quick else 300)
    # Paint-Dense needs no subscriptions; an empty index stands in for them.
    view = ServerView(x, y, SubscriptionIndex(np.empty(0), np.empty(0)), k, servers=s)
    approach = make_approach("paint-dense", view)
    approach.process(events.updates(0, count))
    c = approach.counter
    return {
        "events": count,
        "first_k_per_event": c.dist_first_k / count,
        "min_y_per_event": c.dist_min_y / count,
        "traversed_per_first_k": c.hops_first_k / c.dist_first_k,
        "traversed_per_min_y": c.hops_min_y / c.dist_min_y if c.dist_min_y else None,
        "max_traversed": int(c.max_hops),
        "estimate_2ks_n": 2 * k * s / len(x),
    }
