"""``cnsim bench betree_ranking``: Algorithm 4's two attribute rankings side by side
(seed 002 §V-B): the optimistic popularity (loss = 0, the paper's measured choice)
against the selectivity ranking (loss = the average bucket size of a histogram of the
candidate attribute's intervals), for BE*-B and the one-by-one BE*, on Table III's
default workload (uniform and Zipf).

The paper: "In our experimental evaluation, the optimistic approach results in an
improved matching and insertion time."  Every pair answers identically (checked).
"""

from __future__ import annotations

import resource
import time

import numpy as np

from cnsim.bench import provenance
from cnsim.subscriptions.ranked.boolean.workload import make_index as _make
from cnsim.subscriptions.ranked.boolean.workload import workload

#: subscriptions: the published run (``--full``, also the default) and ``--quick``
FULL_N = 100_000
QUICK_N = 2_000

RANKINGS = ("popularity", "selectivity")


def _per_event(f, *args) -> tuple[float, object]:
    """Wall time of ``f(*args)`` and its answer."""
    t = time.perf_counter()
    out = f(*args)
    return time.perf_counter() - t, out


def run(n: int, n_events: int = 200, seed: int = 0, rounds: int = 5) -> dict:
    """Per distribution and build: both rankings' trees built twice (in alternating
    order, the better build time kept), then ``rounds`` rounds of matching / top-1 /
    top-5 over the events, the rankings alternating which goes first; the median and the
    range over the rounds (the machine is shared: single timings are noisy)."""
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
            trees, build = {}, {r: np.inf for r in RANKINGS}
            for rep in range(2):
                for ranking in RANKINGS[:: 1 if rep % 2 == 0 else -1]:
                    trees.pop(ranking, None)
                    ix = _make("betree_star", w, bulk=bulk, ranking=ranking)
                    dt, _ = _per_event(ix.insert_many, subs)
                    build[ranking] = min(build[ranking], dt)
                    trees[ranking] = ix
            times = {r: {"match": [], "top1": [], "top5": []} for r in RANKINGS}
            answers: dict = {}
            for rnd in range(rounds):
                for ranking in RANKINGS[:: 1 if rnd % 2 == 0 else -1]:
                    ix = trees[ranking]
                    for key, f, a in (("match", ix.count_batch, ()), ("top1", ix.top_k_batch, (1,)),
                                      ("top5", ix.top_k_batch, (5,))):  # fmt: skip
                        dt, ans = _per_event(f, events, *a)
                        times[ranking][key].append(dt / len(events) * 1e6)
                        answers.setdefault((ranking, key), ans)
            rows: dict = {}
            for ranking in RANKINGS:
                rows[ranking] = {"build_s": build[ranking], "stats": trees[ranking].stats()}
                for key, ts in times[ranking].items():
                    rows[ranking][f"{key}_us"] = float(np.median(ts))
                    rows[ranking][f"{key}_us_range"] = [float(min(ts)), float(max(ts))]
                print(dist, label, ranking, {k: v for k, v in rows[ranking].items()
                                             if k != "stats"}, flush=True)  # fmt: skip
            rows["same_answers"] = all(
                np.array_equal(answers[(RANKINGS[0], k)], answers[(RANKINGS[1], k)])
                for k in ("match", "top1", "top5")
            )
            rows["ratio_selectivity_over_popularity"] = {
                k: rows["selectivity"][f"{k}_us"] / rows["popularity"][f"{k}_us"]
                for k in ("match", "top1", "top5")
            } | {"build": build["selectivity"] / build["popularity"]}
            out.setdefault(dist, {})[label] = rows
            del trees
    return out


def run_bench(quick: bool = False, full: bool = False, n: int | None = None) -> dict:
    """Both rankings at the size form's subscription count (or ``n``)."""
    size = (QUICK_N if quick else FULL_N) if n is None else n
    t0 = time.perf_counter()
    res = {"provenance": provenance("betree_ranking", quick, full, {"n": n}), "n": size,
           "results": run(size)}  # fmt: skip
    res["wall_s"] = time.perf_counter() - t0
    res["max_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    res["headline"] = {
        f"{dist} {label}: selectivity / popularity": rows["ratio_selectivity_over_popularity"]
        | {"same_answers": rows["same_answers"]}
        for dist, per in res["results"].items()
        for label, rows in per.items()
    }
    return res
