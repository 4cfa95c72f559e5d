"""BE*-tree benchmark (seed 002 §VII, Table III, Figures 6-9).

``cnsim bench betree [--quick] [--json FILE]``: build time, matching time and top-1 /
top-5 / top-k time of the BE*-tree, the BE-tree, the k-index and a sequential scan on
synthetic workloads after Table III, varying one parameter at a time (subscription
count, dimensions, cardinality, number of clusters, match probability), for uniform and
Zipf attribute choice.  Query times come from ``top_k_batch`` / ``count_batch`` (the
event loop runs in numba); the builds run in numba too (BE*-B and the BE-tree's bulk
load in ``_build.build_tables``, the one-by-one BE* in ``_insert.insert_many``), the
k-index's in vectorised numpy.

``python -m cnsim.bench.betree full-1m --json FILE`` runs :func:`run_full_1m` (the
numba builds' speed-ups over their Python references, Fig 8 up to 1M and Fig 9 with
every structure where it fits 3 GB, see :data:`FULL_1M_STRUCTURES`; RESULTS.md "Full run,
dynamic BE* and BE-tree at 1M").
"""

from __future__ import annotations

import json
import time

import numpy as np

from cnsim.bench import provenance
from cnsim.subscriptions.ranked.boolean import REGISTRY, Expressions
from cnsim.subscriptions.ranked.boolean.expressions import BETWEEN, EQ

#: Table III defaults
DEFAULTS = {
    "n": 100_000,
    "dims": 400,
    "cardinality": 250_000_000,
    "clusters": 4,  # value clusters per dimension (0: none, uniform values)
    "cluster_size": 100,  # values of a cluster lie within this distance of its centre
    "sub_size": 8,
    "event_size": 15,
    "match_prob": 0.001,
    "dist": "uniform",  # attribute choice: uniform or zipf
}
STRUCTURES = tuple(s for s in ("betree_star", "betree", "kindex", "scan") if s in REGISTRY)
WIDTH = 4  # a subscription range is [core - u, core + v], u, v uniform in 0..WIDTH


def _attr_probs(dims: int, dist: str) -> np.ndarray:
    p = 1.0 / np.arange(1, dims + 1) if dist == "zipf" else np.ones(dims)
    return p / p.sum()


def _values(rng, n: int, dims: int, attrs: np.ndarray, w: dict) -> np.ndarray:
    """Core values of (attribute) draws: clustered around ``clusters`` random centres of
    each dimension (within ``cluster_size``), or uniform over the cardinality."""
    card = w["cardinality"]
    if not w["clusters"]:
        return rng.integers(0, card, n)
    cs = w["cluster_size"]
    centres = w["_centres"]
    which = rng.integers(0, w["clusters"], n)
    v = centres[attrs, which] + rng.integers(-cs, cs + 1, n)
    return np.clip(v, 0, card - 1)


def workload(seed: int, n_events: int, **params) -> tuple[Expressions, Expressions, dict]:
    """Subscriptions and point events after Table III.

    Subscriptions come in groups of ``g = round(match_prob * n)`` sharing one attribute
    set (``sub_size`` attributes drawn without replacement, uniform or Zipf) and one core
    point (clustered values); each member's predicate is ``between core - u and
    core + v`` with u, v uniform in 0..4 (a handful of values, as the paper restricts
    ranges for the k-index).  An event is the core point of a random group on its
    attributes plus ``event_size - sub_size`` further attributes (same attribute
    choice, clustered values): it matches its group's g members, so the match
    probability is about g / n (plus chance matches, measured and reported).
    Weights follow §VII: ``min(inv(a), N(0.8 inv(a), 0.05 inv(a)))`` with ``inv`` the
    inverse attribute frequency (the paper prints ``max``, which would make almost every
    weight equal to inv(a))."""
    w = {**DEFAULTS, **params}
    rng = np.random.default_rng(seed)
    n, dims, ss, es = w["n"], w["dims"], w["sub_size"], w["event_size"]
    if w["clusters"]:
        w["_centres"] = rng.integers(0, w["cardinality"], (dims, w["clusters"]))
    g = max(1, round(w["match_prob"] * n))
    n_groups = -(-n // g)
    probs = _attr_probs(dims, w["dist"])
    g_attr = np.stack([np.sort(rng.choice(dims, ss, replace=False, p=probs))
                       for _ in range(n_groups)])  # fmt: skip
    g_core = _values(rng, n_groups * ss, dims, g_attr.ravel(), w).reshape(n_groups, ss)
    grp = np.repeat(np.arange(n_groups), g)[:n]
    rng.shuffle(grp)
    attr = g_attr[grp].ravel()
    core = g_core[grp].ravel()
    u = rng.integers(0, WIDTH + 1, n * ss)
    v = rng.integers(0, WIDTH + 1, n * ss)
    lo, hi = core - u, core + v
    freq = np.bincount(attr, minlength=dims).astype(float)
    inv = np.where(freq > 0, freq.max() / np.maximum(freq, 1), 1.0)
    inv = inv / inv.max()

    def weights(a):
        return np.minimum(inv[a], np.abs(rng.normal(0.8 * inv[a], 0.05 * inv[a])))

    vals = np.stack([lo, hi], axis=1).ravel().astype(float)
    subs = Expressions.from_arrays(
        np.arange(n + 1) * ss, attr, np.full(n * ss, BETWEEN, np.int8), weights(attr),
        np.arange(n * ss + 1) * 2, vals,
    )  # fmt: skip
    # events: a group's core point plus extra attributes
    e_attr, e_val, e_ptr = [], [], [0]
    for q in rng.integers(0, n_groups, n_events):
        extra_n = max(0, es - ss)
        pool = np.setdiff1d(np.arange(dims), g_attr[q])
        pp = probs[pool] / probs[pool].sum()
        extra = rng.choice(pool, min(extra_n, len(pool)), replace=False, p=pp)
        ev_v = _values(rng, len(extra), dims, extra, w)
        a = np.concatenate([g_attr[q], extra])
        vv = np.concatenate([g_core[q], ev_v])
        e_attr.append(a)
        e_val.append(vv)
        e_ptr.append(e_ptr[-1] + len(a))
    ea = np.concatenate(e_attr)
    events = Expressions.from_arrays(
        np.array(e_ptr), ea, np.full(len(ea), EQ, np.int8), weights(ea),
        np.arange(len(ea) + 1), np.concatenate(e_val).astype(float),
    )  # fmt: skip
    w.pop("_centres", None)
    return subs, events, w


def _make(name: str, w: dict, **kw):
    if name == "betree":
        return REGISTRY[name](domain=(0.0, float(w["cardinality"])),
                              match_probability=w["match_prob"], **kw)  # fmt: skip
    if name == "betree_star":
        return REGISTRY[name](match_probability=w["match_prob"], **kw)
    if name == "kindex":
        return REGISTRY[name](domain=(0, int(w["cardinality"]) - 1))
    return REGISTRY[name]()


def measure(
    name: str,
    subs: Expressions,
    events: Expressions,
    w: dict,
    ks=(1, 5, 10),
    bulk=False,
    reps: int = 1,
) -> dict:
    """Build (the trees one by one, as the paper's dynamic BE*, or with ``bulk`` as
    BE*-B / a bulk-loaded BE-tree; the k-index's posting lists), then time matching and
    top-k over the events (µs per event)."""
    tree = name in ("betree", "betree_star")
    ix = _make(name, w, bulk=bool(bulk)) if tree else _make(name, w)
    t = time.perf_counter()
    ix.insert_many(subs)
    if name == "kindex":
        ix.count_batch(events[0])  # the k-index builds its lists lazily
    build = time.perf_counter() - t
    ix.count_batch(events[0])  # compile / warm up
    ix.top_k_batch(events[0], 1)

    def timed(f, *a) -> tuple[float, object]:  # best of ``reps``, µs per event
        best, out = np.inf, None
        for _ in range(reps):
            t = time.perf_counter()
            out = f(*a)
            best = min(best, time.perf_counter() - t)
        return best / len(events) * 1e6, out

    match_us, counts = timed(ix.count_batch, events)
    row = {
        "build_s": build,
        "match_us": match_us,
        "mean_matches": float(counts.mean()),
        "top_us": {},
        "mb": ix.nbytes() / 2**20,
    }
    for k in ks:
        row["top_us"][k] = timed(ix.top_k_batch, events, k)[0]
    if hasattr(ix, "stats"):
        row["stats"] = ix.stats()
    return row


def build_rates(sizes, dynamic_max: int, n_events: int, seed: int = 0) -> dict:
    """BE*-tree construction: one-by-one insertion (the paper's dynamic BE*, up to
    ``dynamic_max`` subscriptions) against the bulk load (BE*-B), with the matching
    time of the tree each builds."""
    out = {}
    for dist in ("uniform", "zipf"):
        rows = {}
        for n in sizes:
            subs, events, w = workload(seed, n_events, n=n, dist=dist)
            row = {}
            for label, kw in (("bulk", {}), ("dynamic", {"bulk": False})):
                if label == "dynamic" and n > dynamic_max:
                    continue
                _log(f"  build n={n} {dist} {label}")
                ix = _make("betree_star", w, **kw)
                t = time.perf_counter()
                ix.insert_many(subs)
                dt = time.perf_counter() - t
                ix.count_batch(events[0])
                t = time.perf_counter()
                ix.count_batch(events)
                row[label] = {
                    "build_s": dt,
                    "per_s": n / dt,
                    "match_us": (time.perf_counter() - t) / len(events) * 1e6,
                    "stats": ix.stats(),
                }
                del ix
            rows[str(n)] = row
        out[dist] = rows
    return out


def _log(msg: str) -> None:
    print(msg, flush=True)


def sweep(axis: str, values, base: dict, n_events: int, structures=STRUCTURES, seed=0) -> dict:
    out = {}
    for dist in ("uniform", "zipf"):
        rows = {}
        for val in values:
            params = {**base, "dist": dist, axis: val}
            subs, events, w = workload(seed, n_events, **params)
            cell = {}
            for name in structures:
                _log(f"  {axis}={val} {dist} {name}")
                cell[name] = measure(name, subs, events, w)
            rows[str(val)] = cell
        out[dist] = rows
    return out


def run_bench(quick: bool = False) -> dict:
    """``--quick``: the small one-by-one sweeps; otherwise the full run (``run_full``)."""
    if not quick:
        return merge_full([run_full()])
    n = 10_000 if quick else 100_000
    n_ev = 200 if quick else 1000
    base = {"n": n}
    t0 = time.perf_counter()
    res = {"provenance": provenance("betree", quick), "defaults": {**DEFAULTS, **base},
           "events": n_ev, "structures": list(STRUCTURES), "figures": {}}  # fmt: skip
    figs = res["figures"]
    if quick:
        axes = {
            "fig8_size": ("n", [n // 4, n // 2, n]),
            "fig6_cardinality": ("cardinality", [2_500, 250_000_000]),
            "fig7_clusters": ("clusters", [0, 2, 4]),
            "dims": ("dims", [50, 400]),
            "fig9_match_prob": ("match_prob", [0.001, 0.01]),
        }
    else:
        axes = {
            "fig8_size": ("n", [25_000, 50_000, 100_000, 200_000]),
            "fig6_cardinality": ("cardinality", [2_500, 250_000, 250_000_000]),
            "fig7_clusters": ("clusters", [0, 2, 4, 26]),
            "dims": ("dims", [50, 400, 1400]),
            "fig9_match_prob": ("match_prob", [0.0001, 0.001, 0.01, 0.09]),
        }
    if quick:
        res["build"] = build_rates([10_000, 100_000], 10_000, n_ev)
    else:
        res["build"] = build_rates([100_000, 1_000_000], 100_000, n_ev)
    for fig, (axis, values) in axes.items():
        figs[fig] = sweep(axis, values, base, n_ev)
    res["wall_s"] = time.perf_counter() - t0
    res["headline"] = headline(res)
    return res


def head(events: Expressions, m: int) -> Expressions:
    """The first ``m`` expressions of a collection (the scan's shorter event list)."""
    m = min(m, len(events))
    b = int(events.indptr[m])
    vb = int(events.vptr[b])
    return Expressions(events.indptr[: m + 1], events.attr[:b], events.op[:b],
                       events.weight[:b], events.lo[:b], events.hi[:b],
                       events.vptr[: b + 1], events.values[:vb])  # fmt: skip


#: the full run: every sweep of Table III / Figures 6-9 at 100,000 subscriptions (the
#: paper's size for Figs 6-7; it uses 1M for dimensions and match probability), the
#: size figure up to 1M.  The BE-tree runs at 100,000 at the points its claims need
#: (cardinality 2,500 and 250M, no / 2 / 4 clusters); the one-by-one BE* in the size
#: figure at 100,000 (the limits of the Python builds of that run; both builds are numba
#: now and :data:`FULL_1M_STRUCTURES` runs them at every point up to 1M); the scan
#: (O(n) per event, 30 events) in the size figure up to 300,000.
FULL_N = 100_000
FULL_EVENTS = 200
SCAN_EVENTS = 30  # the scan is O(n) per event
FULL_AXES = {
    "fig6_cardinality": ("cardinality", [2_500, 250_000, 250_000_000]),
    "fig7_clusters": ("clusters", [0, 2, 4, 26]),
    "fig6_dims": ("dims", [50, 400, 1400]),
    "fig7_cluster_size": ("cluster_size", [25, 100, 800]),
    "fig9_match_prob": ("match_prob", [0.0001, 0.001, 0.01, 0.09]),
    "fig8_size": ("n", [100_000, 300_000, 1_000_000]),
}
#: label -> (structure, bulk, largest n, only in these figures or (figure, value)
#: points (None: all); a row shows every structure measured at its point)
FULL_STRUCTURES = {
    "BE*-B": ("betree_star", True, None, None),
    "BE*": ("betree_star", False, 100_000, ("fig8_size",)),
    "BE": (
        "betree",
        True,
        100_000,
        ("fig8_size", ("fig6_cardinality", 2_500), ("fig7_clusters", 0), ("fig7_clusters", 2)),
    ),
    "k-ind": ("kindex", False, None, None),
    "SCAN": ("scan", False, 300_000, ("fig8_size",)),
}


def full_plan(axes: dict) -> list[tuple[str, object]]:
    """``(figure, value)`` in the order a full run measures them: the headline figures
    (clusters, size) first, every figure's largest value last (the 1M point)."""
    firsts = [(f, v) for f in ("fig7_clusters", "fig8_size") if f in axes for v in axes[f][1][:-1]]
    rest = [(f, v) for f, (_, vals) in axes.items() for v in vals[:-1] if (f, v) not in firsts]
    return firsts + rest + [(f, vals[-1]) for f, (_, vals) in axes.items()]


def run_full(dists=("uniform", "zipf"), axes=None, n=FULL_N, n_events=FULL_EVENTS,
             structures=None, seed=0, on_point=None, prior=None) -> dict:  # fmt: skip
    """Every figure's sweep, a point shared by several figures measured once; each
    point measures every structure in turn in this one process (ratios side by side).
    ``on_point(result so far)`` is called after every point (to save partial results);
    the cells of ``prior`` (such a partial result) are taken as measured."""
    axes = FULL_AXES if axes is None else axes
    structures = FULL_STRUCTURES if structures is None else structures
    t0 = time.perf_counter()
    figs: dict = {fig: {d: {} for d in dists} for fig in axes}
    res = {"provenance": provenance("betree", False), "defaults": {**DEFAULTS, "n": n},
           "events": n_events, "scan_events": SCAN_EVENTS,
           "structures": {k: list(v[:3]) for k, v in structures.items()},
           "figures": figs}  # fmt: skip
    cache: dict = {}

    def key_of(dist, fig, val):
        return tuple(sorted({**DEFAULTS, "n": n, "dist": dist, axes[fig][0]: val}.items()))

    for fig, per in (prior or {}).get("figures", {}).items():
        for dist, rows in per.items():
            for val, cell in rows.items():
                v = next(x for x in axes[fig][1] if str(x) == val)
                cache.setdefault(key_of(dist, fig, v), {}).update(cell)
                if dist in figs[fig]:  # in every partial result from the start
                    figs[fig][dist][val] = dict(cell)
    warm_builds(structures, seed)
    for dist in dists:
        for fig, val in full_plan(axes):
            axis = axes[fig][0]
            params = {**DEFAULTS, "n": n, "dist": dist, axis: val}
            key = key_of(dist, fig, val)
            cell = cache.setdefault(key, {})
            todo = [lab for lab, (_, _, top, only) in structures.items()
                    if lab not in cell and (top is None or params["n"] <= top)
                    and (only is None or fig in only or (fig, val) in only)]  # fmt: skip
            if todo:
                subs, events, w = workload(seed, n_events, **params)
                for lab in todo:
                    name, bulk, _, _ = structures[lab]
                    ev = head(events, SCAN_EVENTS) if name == "scan" else events
                    _log(f"  {fig} {axis}={val} {dist} {lab}")
                    reps = 1 if name == "scan" else 2
                    cell[lab] = measure(name, subs, ev, w, ks=(1, 5), bulk=bulk, reps=reps)
                    cell[lab]["events"] = len(ev)
                del subs, events
            figs[fig][dist][str(val)] = {lab: cell[lab] for lab in structures if lab in cell}
            res["wall_s"] = time.perf_counter() - t0
            if on_point is not None:
                on_point(res)
    for fig, (_, vals) in axes.items():  # rows in the axis' order
        for d in dists:
            figs[fig][d] = {str(v): figs[fig][d][str(v)] for v in vals if str(v) in figs[fig][d]}
    return res


def warm_builds(structures: dict, seed: int = 0) -> None:
    """Build and query every structure once on a small workload, so that no measured
    build time includes numba compilation (or loading the compiled cache)."""
    for dist in ("uniform", "zipf"):
        subs, events, w = workload(seed + 1, 2, n=300, dist=dist)
        for name, bulk, _, _ in structures.values():
            tree = name in ("betree", "betree_star")
            ix = _make(name, w, bulk=bool(bulk)) if tree else _make(name, w)
            ix.insert_many(subs)
            ix.count_batch(events)
            ix.top_k_batch(events, 1)


def merge_full(parts: list[dict]) -> dict:
    """One result from runs of the same plan over different distributions."""
    out = {**parts[0], "figures": {}}
    figs = list(dict.fromkeys(f for p in parts for f in p["figures"]))  # a part may lag
    for fig in figs:
        out["figures"][fig] = {d: r for p in parts for d, r in p["figures"].get(fig, {}).items()}
    out["wall_s"] = max(p["wall_s"] for p in parts)
    out["headline"] = headline_full(out)
    return out


def headline_full(res: dict) -> dict:
    """The paper's ratios over the full run: the mean over every point of every figure
    (the paper's "on average") and at the Table III point (100,000, defaults)."""
    h: dict = {}
    figs = res["figures"]
    paper = {"uniform": ("60%", "35%", "23%"), "zipf": ("90%", "65%", "77%")}
    for dist in ("uniform", "zipf"):
        # a point shared by several figures (the Table III point) counts once
        unique = {json.dumps(c, sort_keys=True, default=str): c
                  for f in figs.values() for c in f.get(dist, {}).values()}  # fmt: skip
        cells = list(unique.values())
        if not cells:
            continue
        for star in ("BE*-B", "BE*"):
            for other, pp in (("k-ind", paper[dist][0]), ("BE", paper[dist][1])):
                gains = [1 - c[star]["match_us"] / c[other]["match_us"]
                         for c in cells if star in c and other in c]  # fmt: skip
                if gains:
                    h[f"{dist}: {star} faster than {other}, mean over {len(gains)} points"] = (
                        f"{np.mean(gains) * 100:.0f}% (range {min(gains) * 100:.0f}% to "
                        f"{max(gains) * 100:.0f}%; paper {pp})"
                    )
        size = figs.get("fig8_size", {}).get(dist, {})
        for lab in ("BE*", "BE*-B", "k-ind", "BE"):
            gains = {v: 1 - _top(c[lab], 1) / c[lab]["match_us"]
                     for v, c in size.items() if lab in c}  # fmt: skip
            if gains:
                h[f"{dist}: top-1 faster than matching, {lab} (Fig. 8, n = {', '.join(gains)})"] = (
                    ", ".join(f"{g * 100:.0f}%" for g in gains.values())
                    + f" (paper: BE* up to {paper[dist][2]}, k-index 1-9%)"
                )
        cl = figs.get("fig7_clusters", {}).get(dist, {})
        if "0" in cl and "2" in cl:
            for lab in ("k-ind", "BE*-B", "BE"):
                if lab in cl["0"] and lab in cl["2"]:
                    a, b = cl["0"][lab]["match_us"], cl["2"][lab]["match_us"]
                    h[f"{dist}: {lab} matching, no clusters -> 2 clusters"] = (
                        f"{b / a:.2f}x (paper, Zipf: k-index 20.84x, BE* flat)"
                    )
        for v, c in size.items():
            for lab in ("BE*-B", "BE*"):
                if lab in c:
                    h[f"{dist}: {lab} build of {v}"] = (
                        f"{c[lab]['build_s']:.1f} s (paper: 1M in 2.30 / 2.45 s, C)"
                    )
    return h


def _top(cell: dict, k: int) -> float:
    t = cell["top_us"]  # int keys in memory, str keys after a JSON round trip
    return t[k] if k in t else t[str(k)]


def tables(res: dict) -> str:
    """Markdown tables of a full run, one per figure (µs per event; build s)."""
    out = []
    labs = list(res["structures"])
    for fig, per in res["figures"].items():
        axis = FULL_AXES.get(fig, (fig,))[0]
        out.append(f"**{fig}** ({axis}) — match µs/event (top-1 / top-5 µs); build s\n")
        head_ = ["dist", axis, "matches", *[f"{x} match (top1/top5)" for x in labs],
                 *[f"{x} build s" for x in labs]]  # fmt: skip
        out.append("| " + " | ".join(head_) + " |")
        out.append("|" + "---|" * len(head_))
        for dist, rows in per.items():
            for val, cell in rows.items():
                m = next(iter(cell.values()))["mean_matches"]
                r = [dist, val, f"{m:.1f}"]
                for x in labs:
                    c = cell.get(x)
                    r.append(
                        "-"
                        if c is None
                        else f"{c['match_us']:.0f} ({_top(c, 1):.0f}/{_top(c, 5):.0f})"
                    )
                for x in labs:
                    c = cell.get(x)
                    r.append("-" if c is None else f"{c['build_s']:.1f}")
                out.append("| " + " | ".join(r) + " |")
        out.append("")
    return "\n".join(out)


def _pct(a: float, b: float) -> str:
    return f"{(1 - a / b) * 100:.0f}%"


def headline(res: dict) -> dict:
    """The paper's ratios, measured at the largest size of the size figure (and the
    cluster figure for the clustering claim); missing structures are skipped."""
    h = {}
    fig = res["figures"]["fig8_size"]
    paper = {"uniform": ("60%", "35%", "23%"), "zipf": ("90%", "65%", "77%")}
    for dist in ("uniform", "zipf"):
        size = max(fig[dist], key=int)
        cell = fig[dist][size]
        star = cell["betree_star"]["match_us"]
        for other, pp in (("kindex", paper[dist][0]), ("betree", paper[dist][1])):
            if other in cell:
                h[f"{dist}: BE* faster than {other} by"] = (
                    f"{_pct(star, cell[other]['match_us'])} (paper {pp})"
                )
        for s in ("betree_star", "kindex", "betree"):
            if s in cell:
                one = cell[s]["top_us"][1]
                h[f"{dist}: top-1 faster than matching, {s}"] = (
                    f"{_pct(one, cell[s]['match_us'])} (paper: BE* up to {paper[dist][2]}, "
                    "k-index 1-9%)"
                )
        for n, row in res.get("build", {}).get(dist, {}).items():
            for label, r in row.items():
                h[f"{dist}: BE* {label} build of {n} subscriptions"] = (
                    f"{r['build_s']:.1f} s = {r['per_s']:,.0f}/s, matching {r['match_us']:.0f} µs "
                    "(paper: 1M in 2.3-2.5 s, C)"
                )
    cl = res["figures"]["fig7_clusters"]
    for dist in ("uniform", "zipf"):
        for s in ("kindex", "betree_star", "betree"):
            if s in cl[dist]["0"]:
                a, b = cl[dist]["0"][s]["match_us"], cl[dist]["2"][s]["match_us"]
                h[f"{dist}: {s} matching, no clusters -> 2 clusters"] = (
                    f"{b / a:.2f}x (paper: k-index ~20x, BE* flat)"
                )
    return h


def json_default(o):
    if isinstance(o, np.integer | np.floating):
        return o.item()
    raise TypeError(type(o))


# ------------------------------------------- the numba builds, and the run at 1M


def build_speedup(n: int = 30_000, seed: int = 0, dists=("uniform", "zipf")) -> dict:
    """The numba builds against their Python references, side by side in this process
    on the same workload: the dynamic BE* (``insert_many`` one by one:
    ``_insert.insert_many`` against ``_insert_at``) and the BE-tree's bulk load
    (``_build.build_tables`` with ``rigid`` against ``_bulk_partition``).  Each pair
    must build the same tree (node counts and every top-5 and match count equal)."""
    out: dict = {"n": n}
    for dist in dists:
        subs, events, w = workload(seed, 100, n=n, dist=dist)
        warm, _, _ = workload(seed + 1, 1, n=300, dist=dist)
        row = {}
        for label, name, bulk, flag in (("BE* one by one", "betree_star", False, "numba_insert"),
                                        ("BE bulk", "betree", True, "numba_bulk")):  # fmt: skip
            times, trees = {}, {}
            for impl in ("numba", "python"):
                for data in (warm, subs):  # the first pass compiles / loads the cache
                    ix = _make(name, w, bulk=bulk)
                    setattr(ix, flag, impl == "numba")
                    t = time.perf_counter()
                    ix.insert_many(data)
                    times[impl] = time.perf_counter() - t
                trees[impl] = ix
                _log(f"  speed-up n={n} {dist} {label} {impl}: {times[impl]:.1f} s")
            a, b = trees["numba"], trees["python"]
            same = (a.stats() == b.stats()
                    and np.array_equal(a.top_k_batch(events, 5), b.top_k_batch(events, 5))
                    and np.array_equal(a.count_batch(events), b.count_batch(events)))  # fmt: skip
            row[label] = {"numba_s": times["numba"], "python_s": times["python"],
                          "speedup": times["python"] / times["numba"], "same_tree": bool(same),
                          "stats": a.stats()}  # fmt: skip
            del trees, a, b
        out[dist] = row
    return out


#: the run at 1M (RESULTS "Full run, dynamic BE* and BE-tree at 1M"): Fig 8's sizes up
#: to 1M and Fig 9's match probabilities at 300,000 (scaled down from the paper's 1M to
#: fit ~30 min of one core), every structure at every point that fits 3 GB (below)
FULL_1M_N = 300_000
FULL_1M_AXES = {
    "fig8_size": ("n", [100_000, 300_000, 1_000_000]),
    "fig9_match_prob": ("match_prob", [0.0001, 0.001, 0.01, 0.09]),
}
#: all but BE*-B stop at 300,000: at 1M they do not fit the 3 GB a benchmark may take
#: here (RESULTS "Full run, dynamic BE* and BE-tree at 1M"): the one-by-one BE*'s and the
#: BE-tree's node tables hold a Python box array, frozenset and cell tuple per node
#: besides the flat columns (the first 1M attempt reached 3.17 GB inside the one-by-one
#: build), the k-index's posting-list build sorts ~10 entries per predicate (the second
#: reached 3.34 GB inside it); both attempts were stopped
#: The one-by-one BE* also skips match probability 9% (A = 20, groups of 27,000
#: expressions with one attribute set): its build grows faster than n there (30,000 in
#: 3 s, 100,000 in 52 s, measured alone) and a run at 300,000 ended without a result
FULL_1M_OTHERS_MAX = 300_000
FULL_1M_BESTAR_POINTS = ("fig8_size", *(("fig9_match_prob", p) for p in (0.0001, 0.001, 0.01)))
FULL_1M_STRUCTURES = {
    "BE*-B": ("betree_star", True, None, None),
    "BE*": ("betree_star", False, FULL_1M_OTHERS_MAX, FULL_1M_BESTAR_POINTS),
    "BE": ("betree", True, FULL_1M_OTHERS_MAX, None),
    "k-ind": ("kindex", False, FULL_1M_OTHERS_MAX, None),
}


def run_full_1m(on_point=None, speedup_n: int = 30_000, n: int = FULL_1M_N,
                axes=None, n_events: int = FULL_EVENTS, prior=None) -> dict:  # fmt: skip
    """The build speed-ups, then Fig 8 (both distributions, 1M last), then Fig 9 (both
    distributions); ``on_point(merged result so far)`` after every point.  ``prior`` (a
    partial result of this function) is resumed: nothing it holds is measured again.
    ``runs`` lists every process's wall time and peak memory (a resumed run adds one);
    ``wall_s`` is their sum, ``max_rss_mb`` their maximum."""
    import resource

    axes = FULL_1M_AXES if axes is None else axes
    t0 = time.perf_counter()
    prior = prior or {}
    earlier = list(prior.get("runs") or ())
    if not earlier and "wall_s" in prior and "max_rss_mb" in prior:  # written before ``runs``
        earlier = [{"wall_s": prior["wall_s"], "max_rss_mb": prior["max_rss_mb"]}]
    date = provenance("betree", False).get("date")
    speed = prior.get("build_speedup") or (build_speedup(speedup_n) if speedup_n else {})
    parts: dict = {}
    for dist in ("uniform", "zipf"):
        figs = {f: {dist: per[dist]} for f, per in prior.get("figures", {}).items()
                if f in axes and dist in per}  # fmt: skip
        if figs:
            parts[dist] = {**prior, "figures": figs}

    def merged() -> dict:
        res = merge_full(list(parts.values()))
        res["provenance"] = {**res["provenance"],
                             "command": "python -m cnsim.bench.betree full-1m"}  # fmt: skip
        res["build_speedup"] = speed
        now = {"wall_s": time.perf_counter() - t0, "date": date,
               "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}  # fmt: skip
        res["runs"] = [*earlier, now]
        res["wall_s"] = sum(r["wall_s"] for r in res["runs"])
        res["max_rss_mb"] = max(r["max_rss_mb"] for r in res["runs"])
        return res

    def save(dist):
        keep = dict(parts.get(dist, {"figures": {}})["figures"])  # other stages' figures

        def cb(res):
            parts[dist] = {**res, "figures": {**keep, **res["figures"]}}
            if on_point is not None:
                on_point(merged())

        return cb

    first = {f: axes[f] for f in axes if f == "fig8_size"} or axes
    for stage in (first, axes):
        for dist in ("uniform", "zipf"):
            before = parts.get(dist)
            if before is not None:  # only the figures of this stage
                before = {**before, "figures": {f: r for f, r in before["figures"].items()
                                                if f in stage}}  # fmt: skip
            done = run_full(
                (dist,), axes=stage, n=n, n_events=n_events, structures=FULL_1M_STRUCTURES,
                on_point=save(dist), prior=before,
            )  # fmt: skip
            keep = parts.get(dist, {"figures": {}})["figures"]
            parts[dist] = {**done, "figures": {**keep, **done["figures"]}}
    return merged()


def _main(argv: list[str] | None = None) -> None:
    """``python -m cnsim.bench.betree full-1m --json FILE``: :func:`run_full_1m`, the
    JSON rewritten after every point (a partial run is kept)."""
    import argparse
    from pathlib import Path

    ap = argparse.ArgumentParser(prog="python -m cnsim.bench.betree")
    ap.add_argument("plan", choices=["full-1m"])
    ap.add_argument("--json", required=True, type=Path)
    ap.add_argument("--resume", action="store_true",
                    help="keep what the --json file holds and measure only the rest")  # fmt: skip
    args = ap.parse_args(argv)
    if not args.json.parent.is_dir():
        ap.error(f"--json: directory {str(args.json.parent)!r} does not exist")
    prior = None
    if args.resume:
        try:
            prior = json.loads(args.json.read_text())
        except (OSError, ValueError) as e:
            ap.error(f"--resume: cannot read {str(args.json)!r}: {e}")

    def write(res):
        tmp = args.json.with_suffix(".tmp")
        tmp.write_text(json.dumps(res, indent=1, default=json_default) + "\n")
        tmp.replace(args.json)

    res = run_full_1m(on_point=write, prior=prior)
    write(res)
    print(json.dumps(res["headline"], indent=1))


if __name__ == "__main__":
    _main()
