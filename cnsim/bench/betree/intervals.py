"""BE*-B against the k-index with repeats (seed 002 §VII, Figures 6-9):
``cnsim bench betree --figures F,..`` (without ``--table``).

At every point of the named figures (their axes in :data:`.plans.FULL_AXES`, at
:data:`N` subscriptions; Fig. 8's sizes scaled by ``N / 1M``, so 10K-100K), both
structures are built on the same workload, checked to give the same match counts, and
their matching time (``count_batch`` over the events, µs per event) is measured in
``rounds`` rounds, the two alternating which goes first.  Each round gives a paired
ratio BE*-B / k-index (one machine state for both: the load drift of a shared machine
cancels out of it); each figure carries the mean over the rounds and the half-width
of its 90% interval (Student's t, ``rounds - 1`` degrees of freedom), for each
structure's time and for the ratio.  The paper: "BE*-tree ... outperforms the k-index
by 60% (uniform) and 90% (Zipf)" on average over its figures (gain = 1 - ratio).

A point shared by several figures (Table III's defaults) is measured once.
``--quick``: :data:`QUICK_N` subscriptions, :data:`QUICK_ROUNDS` rounds (a fast look).
"""

from __future__ import annotations

import time

import numpy as np

from cnsim.bench import provenance
from cnsim.bench.betree.harness import warm_builds
from cnsim.bench.betree.plans import FULL_AXES
from cnsim.bench.betree.results import axis_label, axis_params, fig_base
from cnsim.simulations.metrics import student_half_width
from cnsim.subscriptions.ranked.boolean.workload import DEFAULTS, workload
from cnsim.subscriptions.ranked.boolean.workload import make_index as _make

#: the published run: 100,000 subscriptions (the paper's size for Figs 6-7 and the size
#: of the full run's figures; the paper's Figs 8-9 go to 1M, where the builds and the
#: rounds at match probability 9% (8-17 ms per event for the k-index already at 100,000)
#: would take well over 25 minutes of a shared 2-core machine; at 100,000 the run takes
#: ~3 minutes), 200 events, 10 rounds
N = 100_000
EVENTS = 200
ROUNDS = 10
#: ``--quick``
QUICK_N = 2_000
QUICK_EVENTS = 20
QUICK_ROUNDS = 3
#: the figures of the paper's matching-time comparison (Figures 6-9)
FIGURES = ("fig6_cardinality", "fig6_dims", "fig7_clusters", "fig7_cluster_size",
           "fig8_size", "fig9_match_prob")  # fmt: skip
STRUCTURES = {"BE*-B": ("betree_star", {"bulk": True}), "k-ind": ("kindex", {})}
#: the paper's gain of BE* over the k-index, on average (§VII)
PAPER_GAIN = {"uniform": "60%", "zipf": "90%"}


def values_of(fig: str, n: int) -> list:
    """The axis values of figure ``fig`` at ``n`` subscriptions (Fig. 8's sizes, up to
    1M in the paper, scaled by ``n / 1M``)."""
    values = FULL_AXES[fig][1]
    if fig == "fig8_size":
        return [max(1, v * n // 1_000_000) for v in values]
    return list(values)


def _build(name: str, kw: dict, subs, events, w):
    ix = _make(name, w, **kw)
    t = time.perf_counter()
    ix.insert_many(subs)
    ix.count_batch(events[0])  # the k-index builds its lists lazily; a warm-up for both
    return ix, time.perf_counter() - t


def measure_point(subs, events, w, rounds: int) -> dict:
    """Both structures on one workload: build times, then ``rounds`` rounds of matching
    (alternating order), each structure's mean µs per event with its 90% half-width,
    the per-round ratio BE*-B / k-index with its mean and half-width."""
    built = {lab: _build(name, kw, subs, events, w) for lab, (name, kw) in STRUCTURES.items()}
    counts = {lab: ix.count_batch(events) for lab, (ix, _) in built.items()}
    labs = list(STRUCTURES)
    us: dict = {lab: [] for lab in labs}
    for r in range(rounds):
        for lab in labs[:: 1 if r % 2 == 0 else -1]:
            ix = built[lab][0]
            t = time.perf_counter()
            ix.count_batch(events)
            us[lab].append((time.perf_counter() - t) / len(events) * 1e6)
    ratio = np.array(us["BE*-B"]) / np.array(us["k-ind"])
    row: dict = {"mean_matches": float(counts["BE*-B"].mean()),
                 "same_counts": bool(np.array_equal(counts["BE*-B"], counts["k-ind"]))}  # fmt: skip
    for lab in labs:
        row[lab] = {"build_s": built[lab][1], "match_us": float(np.mean(us[lab])),
                    "match_us_hw90": student_half_width(us[lab]), "rounds_us": us[lab]}  # fmt: skip
    row["ratio"] = float(ratio.mean())
    row["ratio_hw90"] = student_half_width(ratio)
    row["rounds_ratio"] = ratio.tolist()
    return row


def run(figures=FIGURES, n: int = N, n_events: int = EVENTS, rounds: int = ROUNDS,
        seed: int = 0, dists=("uniform", "zipf"), log=print) -> dict:  # fmt: skip
    """Every point of ``figures`` under every distribution (:func:`measure_point`), a
    point shared by figures measured once."""
    warm_builds({lab: (name, kw.get("bulk", False), None, None)
                 for lab, (name, kw) in STRUCTURES.items()}, seed)  # fmt: skip
    out: dict = {fig: {d: {} for d in dists} for fig in figures}
    for dist in dists:
        done: dict = {}
        for fig in figures:
            axis = FULL_AXES[fig][0]
            for val in values_of(fig, n):
                params = {**DEFAULTS, "n": n, "dist": dist, **fig_base(FULL_AXES[fig]),
                          **axis_params(axis, val)}  # fmt: skip
                key = tuple(sorted(params.items()))
                if key not in done:
                    subs, events, w = workload(seed, n_events, **params)
                    done[key] = measure_point(subs, events, w, rounds)
                    c = done[key]
                    log(f"  {fig} {axis_label(val)} {dist}: BE*-B {c['BE*-B']['match_us']:.0f} "
                        f"µs, k-ind {c['k-ind']['match_us']:.0f} µs, ratio {c['ratio']:.3f} "
                        f"± {c['ratio_hw90']:.3f}")  # fmt: skip
                out[fig][dist][axis_label(val)] = done[key]
    return out


def summary(figs: dict) -> dict:
    """Per figure and distribution, the ratio and gain at every point (mean ± 90%
    half-width), and the mean gain over the unique points beside the paper's."""
    h: dict = {}
    for dist in ("uniform", "zipf"):
        unique: dict = {}
        for fig, per in figs.items():
            for val, c in per.get(dist, {}).items():
                unique[id(c)] = c
                h[f"{dist}: {fig} {val}: BE*-B / k-index"] = (
                    f"{c['ratio']:.2f} ± {c['ratio_hw90']:.2f} (BE*-B faster by "
                    f"{(1 - c['ratio']) * 100:.0f}%)"
                )
        if unique:
            gains = [1 - c["ratio"] for c in unique.values()]
            h[f"{dist}: BE*-B faster than k-index, mean over {len(gains)} points"] = (
                f"{np.mean(gains) * 100:.0f}% (range {min(gains) * 100:.0f}% to "
                f"{max(gains) * 100:.0f}%; paper {PAPER_GAIN[dist]})"
            )
    return h


def run_bench(quick: bool = False, full: bool = False, figures=FIGURES) -> dict:
    """``cnsim bench betree --figures F,..``: the interval run at the size form's size."""
    n, n_events, rounds = (QUICK_N, QUICK_EVENTS, QUICK_ROUNDS) if quick else (N, EVENTS, ROUNDS)
    t0 = time.perf_counter()
    figs = run(figures, n, n_events, rounds)
    res = {"provenance": provenance("betree", quick, full, {"figures": list(figures)}),
           "n": n, "events": n_events, "rounds": rounds, "interval": "90% Student's t",
           "figures": figs}  # fmt: skip
    res["wall_s"] = time.perf_counter() - t0
    res["headline"] = summary(figs)
    return res
