"""``cnsim bench distributed_network``: the distributed object database's servers as
brokers of the overlay (seed 003 appendix C; RESULTS.md, distributed-database section):
the paper's world (20,000 IP nodes, 1,000 brokers), 10,000 uniform objects, 200,000
uniform subscriptions, k = 10, 1,000 uniform y-updates, on s = 1, 4, 16 and 100 servers:
per event the IP bytes of the messages, of publishing, and of the walks between servers.
``--quick``: 20,000 subscriptions, 100 events on 100 brokers of 2,000 IP nodes.
"""

from __future__ import annotations

import json
import time

import cnsim
from cnsim.bench import provenance

APPROACHES = ["paint-dense", "paint-sparse", "unicast"]
KEYS = (
    "mean_server_out_msgs", "mean_ip_bytes", "mean_publish_ip_bytes", "mean_server_walk_msgs",
    "mean_server_walk_ip_bytes", "traversed_per_first_k", "traversed_per_min_y",
    "max_traversed", "server_msg_imbalance",
)  # fmt: skip
SERVERS = (1, 4, 16, 100)


def scenario(servers: int, quick: bool = False) -> cnsim.Scenario:
    """The run on ``servers`` servers (seed 1: the paper's cached world)."""
    small = {"network": {"ip_nodes": 2000, "brokers": 100}} if quick else {}
    return cnsim.Scenario(
        seed=1,
        objects={"count": 10_000},
        subscriptions={"count": 20_000 if quick else 200_000, "k": 10},
        events={"count": 100 if quick else 1000},
        algorithm={"approaches": APPROACHES},
        run={"progress": False},
        server={"count": servers},
        **small,
    )


def run_bench(quick: bool = False, full: bool = False) -> dict:
    """Every server count in turn: the approaches' per-event means, the wall time."""
    rows: dict = {}
    for servers in SERVERS:
        t = time.perf_counter()
        summary = cnsim.run(scenario(servers, quick)).summary["approaches"]
        rows[str(servers)] = {
            name: {key: summary[name].get(key) for key in KEYS} for name in APPROACHES
        }
        rows[str(servers)]["wall_s"] = time.perf_counter() - t
        print(servers, json.dumps(rows[str(servers)]), flush=True)
    headline = {
        f"s={s}: mean IP bytes {name}": row[name]["mean_ip_bytes"]
        for s, row in rows.items()
        for name in APPROACHES
    }
    return {**provenance("distributed_network", quick, full), **rows, "headline": headline}
