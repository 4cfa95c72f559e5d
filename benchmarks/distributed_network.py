"""The distributed object database's servers as brokers of the overlay (issue 14, seed
003 appendix C; RESULTS.md, distributed-database section): the paper's world (20,000
IP nodes, 1,000 brokers), 10,000 uniform objects, 200,000 uniform subscriptions,
k = 10, 1,000 uniform y-updates, on s = 1, 4, 16 and 100 servers: per event the IP
bytes of the messages, of publishing, and of the walks between servers.

Usage: python benchmarks/distributed_network.py [OUT.json]
"""

import json
import sys
import time
from pathlib import Path

import cnsim

APPROACHES = ["paint-dense", "paint-sparse", "unicast"]
KEYS = (
    "mean_server_out_msgs", "mean_ip_bytes", "mean_publish_ip_bytes", "mean_server_walk_msgs",
    "mean_server_walk_ip_bytes", "traversed_per_first_k", "traversed_per_min_y",
    "max_traversed", "server_msg_imbalance",
)  # fmt: skip


def scenario(servers: int) -> cnsim.Scenario:
    """The run on ``servers`` servers (seed 1: the paper's cached world)."""
    return cnsim.Scenario(
        seed=1,
        objects={"count": 10_000},
        subscriptions={"count": 200_000, "k": 10},
        events={"count": 1000},
        algorithm={"approaches": APPROACHES},
        run={"progress": False},
        server={"count": servers},
    )


def main() -> None:
    rows: dict = {}
    for servers in (1, 4, 16, 100):
        t = time.perf_counter()
        summary = cnsim.run(scenario(servers)).summary["approaches"]
        rows[str(servers)] = {
            name: {key: summary[name].get(key) for key in KEYS} for name in APPROACHES
        }
        rows[str(servers)]["wall_s"] = time.perf_counter() - t
        print(servers, json.dumps(rows[str(servers)]), flush=True)
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "distributed_network.json")
    out.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
