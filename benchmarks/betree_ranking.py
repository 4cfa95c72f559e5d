"""Algorithm 4's two attribute rankings side by side (seed 002 §V-B): the optimistic
popularity (loss = 0, the paper's measured choice) against the selectivity ranking
(loss = the average bucket size of a histogram of the candidate attribute's intervals),
for BE*-B and the one-by-one BE*, on Table III's default workload (uniform and Zipf).

The paper: "In our experimental evaluation, the optimistic approach results in an
improved matching and insertion time."  Every pair answers identically (checked).

Run: ``python benchmarks/betree_ranking.py [--n 100000] [--json benchmarks/betree_ranking.json]``
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from pathlib import Path

import numpy as np

from cnsim.bench import provenance
from cnsim.bench.betree import _make, workload

RANKINGS = ("popularity", "selectivity")


def _best(f, *args, reps=2):
    """Best of ``reps`` wall times of ``f(*args)``, and its answer."""
    best, out = np.inf, None
    for _ in range(reps):
        t = time.perf_counter()
        out = f(*args)
        best = min(best, time.perf_counter() - t)
    return best, out


def run(n: int, n_events: int = 200, seed: int = 0) -> dict:
    # compile every path once, off the clock
    s0, e0, w0 = workload(seed + 1, 2, n=300)
    for ranking in RANKINGS:
        for bulk in (True, False):
            ix = _make("betree_star", w0, bulk=bulk, ranking=ranking)
            ix.insert_many(s0)
            ix.count_batch(e0)
            ix.top_k_batch(e0, 1)
    out: dict = {}
    for dist in ("uniform", "zipf"):
        subs, events, w = workload(seed, n_events, n=n, dist=dist)
        for label, bulk in (("BE*-B", True), ("BE*", False)):
            rows, answers = {}, []
            for ranking in RANKINGS:
                ix = _make("betree_star", w, bulk=bulk, ranking=ranking)
                t = time.perf_counter()
                ix.insert_many(subs)
                build = time.perf_counter() - t
                m, counts = _best(ix.count_batch, events)
                t1, top1 = _best(ix.top_k_batch, events, 1)
                t5, top5 = _best(ix.top_k_batch, events, 5)
                answers.append((counts, top1, top5))
                per = 1e6 / len(events)
                rows[ranking] = {"build_s": build, "match_us": m * per, "top1_us": t1 * per,
                                 "top5_us": t5 * per, "stats": ix.stats()}  # fmt: skip
                print(dist, label, ranking, {k: v for k, v in rows[ranking].items()
                                             if k != "stats"}, flush=True)  # fmt: skip
                del ix
            same = all(np.array_equal(a, b) for a, b in zip(*answers, strict=True))
            rows["same_answers"] = bool(same)
            out.setdefault(dist, {})[label] = rows
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--json", type=Path, default=Path("benchmarks/betree_ranking.json"))
    a = ap.parse_args()
    if a.n < 1000:
        ap.error(f"--n must be at least 1000, got {a.n}")
    t0 = time.perf_counter()
    res = {"provenance": {**provenance("betree_ranking", False),
                          "command": f"python benchmarks/betree_ranking.py --n {a.n}"},
           "n": a.n, "results": run(a.n)}  # fmt: skip
    res["wall_s"] = time.perf_counter() - t0
    res["max_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    tmp = a.json.with_suffix(".tmp")
    tmp.write_text(json.dumps(res, indent=1) + "\n")
    tmp.replace(a.json)


if __name__ == "__main__":
    main()
