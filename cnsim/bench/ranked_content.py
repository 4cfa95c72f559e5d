"""``cnsim bench ranked_content``: top-k ranked delivery over the content-based overlay
(:mod:`cnsim.brokers.ranked_content`), the best-first search on per-neighbour score
bounds against the flood along the routing tables.

Full: 200,000 scored boxes at d = 2 on the paper's world (1,000 brokers on a
20,000-node Internet-like topology, seed 003 §V; the overlay is the content-based
run's degree-4 latency spanning tree); quick: 20,000 on 100 brokers and 2,000 IP nodes.
Box corners are the min and max of two uniform draws per dimension (seed 003 §V's
ranges, per dimension); subscribers sit on uniform IP nodes and are held by their
nearest broker (as :class:`~cnsim.brokers.content_based.ContentBasedCN` homes them).
Two score models, as ``cnsim bench ranked_delivery``:

* ``uniform``: scores uniform in [0, 1), independent of the box (a bid);
* ``length``: ``1 -`` the mean side length of the box (seed 000 §4's ``1 - len``),
  so the best subscriptions are the small boxes.

Events are uniform points published from uniform IP nodes, entering at the nearest
broker.  For k in {1, 10, 100}: brokers visited, messages, answer entries, overlay and
IP bytes per event of the flood (``baseline``) and of the search with the plain bound
(``regions = 1``: the subtree's maximum score) and the per-region bound (``regions =
8``: 8 × 8 cells), and the pruning ratios (pruned / baseline).  A sample of events is
checked against the global brute-force top-k.  Joins and leaves (alternating, uniform
boxes) measure what keeping the bounds current costs: bound changes, bound messages
and their IP bytes per operation, for both bounds.
"""

from __future__ import annotations

import time

import numpy as np

from cnsim.bench import provenance
from cnsim.brokers.endpoints import _nearest
from cnsim.brokers.ranked_content import DEFAULT_INDEX, RankedTree
from cnsim.brokers.spanning import overlay_tree
from cnsim.network.cache import build_world
from cnsim.network.params import NetworkParams

KS = (1, 10, 100)
SCORES = ("uniform", "length")
REGIONS = (1, 8)
DEGREE = 4  # [overlay] degree's default
D = 2
CHECKED = 20  # events per (score model, bound, k) checked against brute force
RATIOS = ("visited", "messages", "ip_hops", "overlay_bytes", "ip_bytes")


def _sizes(quick: bool) -> dict:
    if quick:
        return {"m": 20_000, "ip_nodes": 2_000, "brokers": 100, "events": 100, "churn": 500}
    return {"m": 200_000, "ip_nodes": 20_000, "brokers": 1_000, "events": 200, "churn": 1_000}


def _boxes(rng: np.random.Generator, m: int) -> tuple[np.ndarray, np.ndarray]:
    a, b = rng.random((m, D)), rng.random((m, D))
    return np.minimum(a, b), np.maximum(a, b)


def _scores(model: str, lo, hi, rng: np.random.Generator) -> np.ndarray:
    if model == "uniform":
        return rng.random(len(lo))
    return 1.0 - (hi - lo).mean(axis=1)


def _mean(d, name: str) -> float:
    return float(d.cost[name].mean())


def run_bench(quick: bool = False, full: bool = False) -> dict:
    """Per-event costs of the pruned search and the flood for every k, score model and
    bound, and the cost of keeping the bounds current."""
    size = _sizes(quick)
    started = time.perf_counter()
    rng = np.random.default_rng(np.random.SeedSequence(13, spawn_key=(200,)))
    params = NetworkParams(ip_nodes=size["ip_nodes"], brokers=size["brokers"], seed=1)
    t0 = time.perf_counter()
    world = build_world(params)
    tree = overlay_tree(world, DEGREE)
    world_s = time.perf_counter() - t0
    hops = np.asarray(world.broker_hops)
    m, n_events = size["m"], size["events"]
    lo, hi = _boxes(rng, m)
    home = _nearest(world, rng.integers(world.topology.n_nodes, size=m)).astype(np.int64)
    xs = rng.random((n_events, D))
    entry = _nearest(world, rng.integers(world.topology.n_nodes, size=n_events))
    churn_boxes = _boxes(rng, size["churn"])
    churn_home = _nearest(world, rng.integers(world.topology.n_nodes, size=size["churn"]))
    results, headline = {}, {}
    for model in SCORES:
        score = _scores(model, lo, hi, rng)
        by_bound, base = {}, {}
        for regions in REGIONS:
            t0 = time.perf_counter()
            net = RankedTree.boxes(tree, hops, home, lo, hi, score, regions=regions)
            build_s = time.perf_counter() - t0
            by_k = {}
            for k in KS:
                if k not in base:  # the flood does not read the bounds
                    t0 = time.perf_counter()
                    d = net.deliver(xs, k, entry, "baseline")
                    secs = time.perf_counter() - t0
                    base[k] = {name: _mean(d, name) for name in d.cost}
                    base[k]["ms_per_event"] = 1000 * secs / n_events
                    base[k]["exact"] = all(
                        np.array_equal(d.recipients(i), net.brute_top_k(xs[i], k))
                        for i in range(min(CHECKED, n_events))
                    )
                t0 = time.perf_counter()
                d = net.deliver(xs, k, entry, "pruned")
                secs = time.perf_counter() - t0
                row = {name: _mean(d, name) for name in d.cost}
                row["ms_per_event"] = 1000 * secs / n_events
                row["exact"] = all(
                    np.array_equal(d.recipients(i), net.brute_top_k(xs[i], k))
                    for i in range(min(CHECKED, n_events))
                )
                row["ratio"] = {
                    name: row[name] / base[k][name] if base[k][name] else None for name in RATIOS
                }
                by_k[k] = row
            by_bound[regions] = {
                "build_s": build_s,
                "bytes": net.nbytes(),
                "setup": net.setup_bound_traffic(),
                "by_k": by_k,
                "churn": _churn(net, churn_boxes, churn_home, rng),
            }
        results[model] = {"baseline": base, "by_regions": by_bound}
        headline[model] = {
            k: {
                "visited": [round(base[k]["visited"], 1)]
                + [round(by_bound[g]["by_k"][k]["visited"], 1) for g in REGIONS],
                "ip_bytes": [round(base[k]["ip_bytes"])]
                + [round(by_bound[g]["by_k"][k]["ip_bytes"]) for g in REGIONS],
                "pruning_ratio_ip_bytes": [
                    round(by_bound[g]["by_k"][k]["ratio"]["ip_bytes"], 4) for g in REGIONS
                ],
                "exact": base[k]["exact"] and all(by_bound[g]["by_k"][k]["exact"] for g in REGIONS),
            }
            for k in KS
        }
    return {
        **provenance("ranked_content", quick, full),
        "subscriptions": m,
        "d": D,
        "brokers": size["brokers"],
        "ip_nodes": size["ip_nodes"],
        "tree_degree": DEGREE,
        "events": n_events,
        "index": DEFAULT_INDEX["boxes"],
        "regions": list(REGIONS),
        "headline_columns": ["baseline", *(f"pruned, regions = {g}" for g in REGIONS)],
        "world_s": world_s,
        "results": results,
        "headline": headline,
        "wall_s": time.perf_counter() - started,
    }


def _churn(net: RankedTree, boxes, home, rng: np.random.Generator) -> dict:
    """Alternating joins (uniform boxes and scores) and leaves (uniform victims): bound
    changes, bound messages and their IP bytes, and the time per operation."""
    lo, hi = boxes
    n = len(lo)
    s = rng.random(n)
    victims = rng.choice(len(net), size=n, replace=False)
    before = (net.bound_changes, net.bound_msgs, net.bound_ip_bytes)
    t0 = time.perf_counter()
    for i in range(n):
        net.insert((lo[i], hi[i], s[i]), int(home[i]))
        net.delete(int(victims[i]))
    secs = time.perf_counter() - t0
    after = (net.bound_changes, net.bound_msgs, net.bound_ip_bytes)
    changes, msgs, ip_bytes = (a - b for a, b in zip(after, before, strict=True))
    return {
        "operations": 2 * n,
        "us_per_operation": 1e6 * secs / (2 * n),
        "bound_changes": changes,
        "bound_msgs": msgs,
        "bound_ip_bytes": ip_bytes,
        "bound_msgs_per_operation": msgs / (2 * n),
    }
