"""``cnsim bench overlay``: the Meghdoot overlay at the paper's scale (seed 003 §V:
20,000 IP nodes, 1,000 brokers, 2,000,000 uniform subscriptions, 10,000 objects).

* world build time, first (into an empty cache) and cached;
* messages routed per second (Paint-Dense's messages, routed in one batch);
* per-event time with the overlay against the ideal CN on the same workload, the two
  stepping through the event stream in lockstep (target: at most 2×);
* traffic per event by k for every approach: server outgoing bytes (mean and max),
  overlay and IP bytes, deliveries and redundancy (Figures 12–14, Tables I–II).
"""

from __future__ import annotations

import tempfile
import time

import numpy as np

from cnsim.bench import provenance
from cnsim.brokers.routing import route
from cnsim.network.cache import build_world
from cnsim.simulations.config import from_dict
from cnsim.simulations.metrics import CATALOG
from cnsim.simulations.runner import Simulation, run

KS = [1, 2, 5, 10, 15, 20]
APPROACHES = [
    "paint-dense",
    "paint-sparse",
    "paint-dense(1)",
    "paint-sparse(1)",
    "unicast",
    "cn-relax",
]
# Seed 003 Table I (deliveries per event, any exact approach) and Table II (redundancy).
PAPER_TABLE_I = [444.14, 939.76, 2211.14, 4190.21, 6082.94, 7904.26]
PAPER_TABLE_II = {
    "paint-sparse(1)": [0, 0.16, 0.29, 0.30, 0.32, 0.34],
    "cn-relax": [1440.2, 680.14, 288.49, 151.76, 104.23, 79.98],
}


def _scenario(m: int, k: int, events: int, network: dict, kind: str, approaches: list[str]):
    return from_dict(
        {
            "seed": 1,
            "objects": {"count": 10_000},
            "subscriptions": {"count": m, "k": k},
            "events": {"count": events},
            "network": network,
            "overlay": {"kind": kind},
            "algorithm": {"approaches": approaches},
            "run": {"progress": False},
        }
    )


def world_build_times(network: dict) -> dict:
    """Seconds to build a world into an empty cache, then to load it from the cache."""
    params = _scenario(1, 1, 0, network, "meghdoot", ["paint-dense"]).network
    with tempfile.TemporaryDirectory() as cache:
        t0 = time.perf_counter()
        build_world(params, directory=cache)
        t1 = time.perf_counter()
        world = build_world(params, directory=cache)
        np.asarray(world.broker_hops).sum()  # touch the memory-mapped matrices
        t2 = time.perf_counter()
    return {"first_s": t1 - t0, "cached_s": t2 - t1}


def overlay_vs_ideal(m: int, events: int, network: dict) -> dict:
    """Mean per-event time (server + delivery) of Paint-Dense and Paint-Sparse with the
    overlay and with the ideal CN, stepped in lockstep, and routing throughput."""
    sims = {
        kind: Simulation(_scenario(m, 10, events, network, kind, APPROACHES[:2]))
        for kind in ("ideal", "meghdoot")
    }
    totals = {kind: 0.0 for kind in sims}
    collected = []
    for (_, ideal), (_, meghdoot) in zip(*(s.steps() for s in sims.values()), strict=True):
        for kind, outcomes in (("ideal", ideal), ("meghdoot", meghdoot)):
            totals[kind] += sum(o.server_time_s + o.delivery_time_s for o in outcomes.values())
        collected.append(meghdoot["paint-dense"].messages.rects)
    rects = np.concatenate(collected)
    network = sims["meghdoot"].network
    zones = network.zones
    t0 = time.perf_counter()
    route(zones, rects)
    routing_s = time.perf_counter() - t0
    per_event = {kind: total / events for kind, total in totals.items()}
    return {
        "per_event_s": per_event,
        "overlay_over_ideal": per_event["meghdoot"] / per_event["ideal"],
        # Bytes per subscription of what the brokers hold (their subscriptions and one
        # k-d tree per zone) and of the server's global index of S (Paint-Sparse, Unicast)
        "gateway_bytes_per_subscription": network.gateways.nbytes() / m,
        "global_index_bytes_per_subscription": sims["meghdoot"].subscriptions.nbytes() / m,
        "messages_routed": int(len(rects)),
        "messages_routed_per_s": len(rects) / routing_s,
    }


def traffic_by_k(m: int, events: int, network: dict) -> dict:
    """Per-event traffic of every approach for each k."""
    keys = [
        c.key
        for c in CATALOG.summary_columns()
        if c.metric.mode == "counting" and not c.metric.wall
    ]
    out = {}
    for k in KS:
        _, summary = run(_scenario(m, k, events, network, "meghdoot", APPROACHES))
        out[k] = {name: {key: s[key] for key in keys} for name, s in summary["approaches"].items()}
    return out


def run_bench(quick: bool = False, full: bool = False) -> dict:
    """All measurements; ``quick`` uses a 2,000-node network and fewer subscriptions."""
    if quick:
        network, m, events = {"ip_nodes": 2_000, "brokers": 100}, 100_000, 100
    else:
        network, m, events = {"ip_nodes": 20_000, "brokers": 1_000}, 2_000_000, 300
    started = time.perf_counter()
    results = {
        **provenance("overlay", quick, full),
        "network": network,
        "subscriptions": m,
        "events_per_point": events,
        "world_build": world_build_times(network),
        "overlay_vs_ideal": overlay_vs_ideal(m, events, network),
        "traffic_by_k": traffic_by_k(m, events, network),
        "paper_table_i": PAPER_TABLE_I,
        "paper_table_ii": PAPER_TABLE_II,
    }
    results["wall_s"] = time.perf_counter() - started
    results["headline"] = {
        "world_first_s": results["world_build"]["first_s"],
        "world_cached_s": results["world_build"]["cached_s"],
        "overlay_over_ideal": results["overlay_vs_ideal"]["overlay_over_ideal"],
        "gateway_bytes_per_subscription": results["overlay_vs_ideal"][
            "gateway_bytes_per_subscription"
        ],
        "messages_routed_per_s": results["overlay_vs_ideal"]["messages_routed_per_s"],
    }
    return results
