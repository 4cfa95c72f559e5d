"""``cnsim bench ranked_churn``: ranked delivery runs with joins and leaves (RESULTS.md,
ranked_delivery section): 200,000 subscriptions, 100 brokers, 300 events, with and
without 3,000 join/leave commands, both score models; then verify on a shorter run.
``--quick``: 20,000 subscriptions, 60 events, 600 commands.
"""

from __future__ import annotations

import time

import cnsim
from cnsim.bench import provenance

#: (subscriptions, events, commands) of the runs, and (commands, events) of verify
FULL = {"count": 200_000, "events": 300, "commands": 3000, "verify": (600, 60)}
QUICK = {"count": 20_000, "events": 60, "commands": 600, "verify": (100, 20)}


def scenario(scores: str, commands: int, events: int, count: int = 200_000) -> cnsim.Scenario:
    """The run: ``count`` uniform subscriptions on 100 brokers, k = 10."""
    return cnsim.Scenario(
        seed=13,
        objects={"count": 1000},
        subscriptions={"count": count, "k": 10},
        events={"count": events},
        network={"ip_nodes": 2000, "brokers": 100},
        algorithm={"approaches": ["ranked"]},
        run={"progress": False},
        ranked={"k": 10, "scores": scores, "commands": commands, "churn": 0.5},
    )


def run_bench(quick: bool = False, full: bool = False) -> dict:
    """Both score models, without and with churn, then verify of each."""
    form = QUICK if quick else FULL
    rows: dict = {}
    for scores in ("uniform", "length"):
        for commands in (0, form["commands"]):
            t = time.perf_counter()
            run = cnsim.run(scenario(scores, commands, form["events"], form["count"]))
            s = run.summary["approaches"]["ranked"]
            row = {k: v for k, v in s.items() if v is None or isinstance(v, int | float)}
            row["wall_s"] = time.perf_counter() - t
            rows[f"{scores}/{commands}"] = row
            print(scores, commands, round(row["wall_s"]), flush=True)
        verify = scenario(scores, *form["verify"], form["count"])
        rows[f"{scores}/verify"] = cnsim.verify(verify).ok
        print("verify", scores, rows[f"{scores}/verify"], flush=True)
    headline = {key: (row if isinstance(row, bool) else round(row["wall_s"], 1))
                for key, row in rows.items()}  # fmt: skip
    return {**provenance("ranked_churn", quick, full), **rows, "headline": headline}
