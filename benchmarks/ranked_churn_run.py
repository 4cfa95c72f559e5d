"""Ranked delivery runs with joins and leaves (issue 13; RESULTS.md, ranked_delivery
section): 200,000 subscriptions, 100 brokers, 300 events, with and without 3,000
join/leave commands, both score models; then verify on a shorter run.

Usage: python benchmarks/ranked_churn_run.py [OUT.json]
"""

import json
import sys
import time
from pathlib import Path

import cnsim


def scenario(scores: str, commands: int, events: int) -> cnsim.Scenario:
    """The run: 200,000 uniform subscriptions on 100 brokers, k = 10."""
    return cnsim.Scenario(
        seed=13,
        objects={"count": 1000},
        subscriptions={"count": 200_000, "k": 10},
        events={"count": events},
        network={"ip_nodes": 2000, "brokers": 100},
        algorithm={"approaches": ["ranked"]},
        run={"progress": False},
        ranked={"k": 10, "scores": scores, "commands": commands, "churn": 0.5},
    )


def main() -> None:
    rows: dict = {}
    for scores in ("uniform", "length"):
        for commands in (0, 3000):
            t = time.perf_counter()
            s = cnsim.run(scenario(scores, commands, 300)).summary["approaches"]["ranked"]
            row = {k: v for k, v in s.items() if v is None or isinstance(v, int | float)}
            row["wall_s"] = time.perf_counter() - t
            rows[f"{scores}/{commands}"] = row
            print(scores, commands, round(row["wall_s"]), flush=True)
        rows[f"{scores}/verify"] = cnsim.verify(scenario(scores, 600, 60)).ok
        print("verify", scores, rows[f"{scores}/verify"], flush=True)
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "ranked_churn_run.json")
    out.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
