"""BE*-tree benchmark (seed 002 §VII, Table III, Figures 6-9).

``cnsim bench betree [--quick] [--json FILE]``: build time, matching time and top-1 /
top-5 / top-k time of the BE*-tree, the BE-tree, the k-index and a sequential scan on
synthetic workloads after Table III, varying one parameter at a time (subscription
count, dimensions, cardinality, number of clusters, match probability), for uniform and
Zipf attribute choice.  Query times come from ``top_k_batch`` / ``count_batch`` (the
event loop runs in numba; build runs in Python and is reported as such).
"""

from __future__ import annotations

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


def measure(name: str, subs: Expressions, events: Expressions, w: dict, ks=(1, 5, 10)) -> dict:
    """Build (the trees one by one, as the paper's dynamic BE*; the k-index's posting
    lists), then time matching and top-k over the events (µs per event)."""
    # the trees insert one by one (the paper's dynamic BE*; build_rates has BE*-B)
    ix = _make(name, w, bulk=False) if name in ("betree", "betree_star") else _make(name, w)
    t = time.perf_counter()
    ix.insert_many(subs)
    if name == "kindex":
        ix.count_batch(events[0])  # the k-index builds its lists lazily
    build = time.perf_counter() - t
    ix.count_batch(events[0])  # compile / warm up
    ix.top_k_batch(events[0], 1)
    t = time.perf_counter()
    counts = ix.count_batch(events)
    row = {
        "build_s": build,
        "match_us": (time.perf_counter() - t) / len(events) * 1e6,
        "mean_matches": float(counts.mean()),
        "top_us": {},
        "mb": ix.nbytes() / 2**20,
    }
    for k in ks:
        t = time.perf_counter()
        ix.top_k_batch(events, k)
        row["top_us"][k] = (time.perf_counter() - t) / len(events) * 1e6
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
