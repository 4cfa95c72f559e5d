"""``cnsim bench ranked_delivery``: top-k ranked delivery over the Meghdoot zones
(:mod:`cnsim.brokers.ranked`), threshold pruning against the visit-every-zone baseline.

Full: 2,000,000 scored range subscriptions on the paper's world (1,000 brokers on a
20,000-node Internet-like topology, seed 003 §V); quick: 200,000 on 100 brokers and
2,000 IP nodes. Ranges are uniform over S (seed 003 §V); two score models:

* ``uniform``: scores uniform in [0, 1), independent of the range (a bid);
* ``length``: score ``1 - (r - l)`` (seed 000 §4's per-dimension weight ``1 - len``),
  so the best subscriptions are the short ranges near the diagonal of S.

Every event is a uniform point published from a uniform IP node and enters at the
broker nearest to it (as :class:`~cnsim.brokers.endpoints.Endpoints` places
publishers). For k in {1, 10, 100}: zones visited, messages, answer entries, overlay
and IP bytes per event for both modes, and the pruning ratios (pruned / baseline).
A sample of events is checked against the global brute-force top-k.
"""

from __future__ import annotations

import time

import numpy as np

from cnsim.bench import provenance
from cnsim.brokers.ranked import DEFAULT_INDEX, MODES, RankedZones
from cnsim.network.cache import build_world
from cnsim.network.params import NetworkParams
from cnsim.simulations.seeds import Seeds
from cnsim.subscriptions.ranked.scores import generate_scores

KS = (1, 10, 100)
SCORES = ("uniform", "length")
OWN = ("scores", "churn")  # random streams of this benchmark only
CHECKED = 50  # events per (score model, k) checked against brute force


def _own_rng(name: str) -> np.random.Generator:
    """This benchmark's streams beyond the run's (``Seeds`` names a fixed set)."""
    return np.random.default_rng(np.random.SeedSequence(13, spawn_key=(100 + OWN.index(name),)))


def _sizes(quick: bool) -> dict:
    if quick:
        return {"m": 200_000, "ip_nodes": 2_000, "brokers": 100, "events": 1_000}
    return {"m": 2_000_000, "ip_nodes": 20_000, "brokers": 1_000, "events": 500}


def _scores(model: str, l: np.ndarray, r: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return generate_scores(rng, l, r, model)


def run_bench(quick: bool = False, full: bool = False) -> dict:
    """Per-event costs of pruned and baseline ranked delivery for every k and score model."""
    size = _sizes(quick)
    started = time.perf_counter()
    seeds = Seeds(13)
    params = NetworkParams(ip_nodes=size["ip_nodes"], brokers=size["brokers"], seed=1)
    t0 = time.perf_counter()
    world = build_world(params)
    world_s = time.perf_counter() - t0
    rng = seeds.rng("subscriptions")
    a, b = rng.random(size["m"]), rng.random(size["m"])
    l, r = np.minimum(a, b), np.maximum(a, b)
    n_events = size["events"]
    xs = seeds.rng("events").random(n_events)
    publishers = seeds.rng("publishers").integers(world.topology.n_nodes, size=n_events)
    entry = np.asarray(world.hops_from_brokers(publishers)).argmin(axis=0)  # broker = zone
    results, headline = {}, {}
    for model in SCORES:
        score = _scores(model, l, r, _own_rng("scores"))
        t0 = time.perf_counter()
        net = RankedZones.build(world, l, r, score, "random", seeds.rng("zones"))
        build_s = time.perf_counter() - t0
        by_k = {}
        for k in KS:
            row = {}
            for mode in MODES:
                t0 = time.perf_counter()
                d = net.deliver(xs, k, entry, mode)
                secs = time.perf_counter() - t0
                row[mode] = {name: float(v.mean()) for name, v in d.cost.items()}
                row[mode]["ms_per_event"] = 1000 * secs / n_events
                row[mode]["exact"] = all(
                    np.array_equal(d.recipients(i), net.brute_top_k(xs[i], k))
                    for i in range(min(CHECKED, n_events))
                )
            p, base = row["pruned"], row["baseline"]
            row["ratio"] = {
                name: p[name] / base[name] if base[name] else None
                for name in ("visited", "messages", "ip_hops", "overlay_bytes", "ip_bytes")
            }
            by_k[k] = row
        churn = _churn(net, _own_rng("churn"), 2_000 if quick else 5_000)
        results[model] = {
            "build_s": build_s,
            "held_max_over_mean": float(net.held().max() / net.held().mean()),
            "index_bytes": net.nbytes(),
            "by_k": by_k,
            "churn": churn,
        }
        headline[model] = {
            k: {
                "visited": [
                    round(row["pruned"]["visited"], 2),
                    round(row["baseline"]["visited"], 2),
                ],
                "messages": [
                    round(row["pruned"]["messages"], 2),
                    round(row["baseline"]["messages"], 2),
                ],
                "ip_bytes": [round(row["pruned"]["ip_bytes"]), round(row["baseline"]["ip_bytes"])],
                "pruning_ratio_visited": round(row["ratio"]["visited"], 4),
                "pruning_ratio_ip_bytes": round(row["ratio"]["ip_bytes"], 4),
                "exact": row["pruned"]["exact"] and row["baseline"]["exact"],
            }
            for k, row in by_k.items()
        }
    return {
        **provenance("ranked_delivery", quick, full),
        "subscriptions": size["m"],
        "brokers": size["brokers"],
        "ip_nodes": size["ip_nodes"],
        "events": n_events,
        "index": DEFAULT_INDEX,
        "world_s": world_s,
        "results": results,
        "headline": headline,
        "wall_s": time.perf_counter() - started,
    }


def _churn(net: RankedZones, rng: np.random.Generator, n: int) -> dict:
    """Time per join/leave (alternating), how often a zone bound changed and what
    propagating the changes cost (overlay messages and IP bytes of the broadcasts)."""
    before = net.bound_changes
    msgs0, ip0 = net.bound_msgs, net.bound_ip_bytes
    net.broadcast_cost()  # computed once, outside the timed loop
    a, b = rng.random(n), rng.random(n)
    l, r, s = np.minimum(a, b), np.maximum(a, b), rng.random(n)
    victims = rng.choice(len(net.columns()[0]), size=n, replace=False)
    t0 = time.perf_counter()
    for i in range(n):
        net.insert(l[i], r[i], s[i])
        net.delete(int(victims[i]))
    secs = time.perf_counter() - t0
    return {
        "operations": 2 * n,
        "us_per_operation": 1e6 * secs / (2 * n),
        "bound_changes": net.bound_changes - before,
        "bound_msgs": net.bound_msgs - msgs0,
        "bound_ip_bytes": net.bound_ip_bytes - ip0,
        "setup": net.setup_bound_traffic(),
    }
