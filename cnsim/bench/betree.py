"""BE*-tree benchmark (seed 002 §VII, Table III, Figures 6-9).

``cnsim bench betree [--quick] [--json FILE]``: build time, matching time and top-1 /
top-5 / top-k time of the BE*-tree, the BE-tree, the k-index and a sequential scan on
synthetic workloads after Table III, varying one parameter at a time (subscription
count, dimensions, cardinality, number of clusters, match probability), for uniform and
Zipf attribute choice.  Query times come from ``top_k_batch`` / ``count_batch`` (the
event loop runs in numba); the builds run in numba too (BE*-B and the BE-tree's bulk
load in ``_build.build_tables``, the one-by-one BE* in ``_insert.insert_many``), the
k-index's in numba (two passes, a counting sort).

``python -m cnsim.bench.betree full-1m --json FILE`` runs :func:`run_full_1m` (the
numba builds' speed-ups over their Python references, Fig 8 up to 1M and Fig 9 at 1M
with every structure, see :data:`FULL_1M_STRUCTURES`; RESULTS.md "Full run, dynamic BE*
and BE-tree at 1M").

``python -m cnsim.bench.betree table3 [--figures F,..] --json FILE [--resume]`` runs
:func:`run_table3`: Table III's "Sub/Event Size" column (a paired axis, sizes moving
together) and its DBLP-driven workloads, Fig 8's author and title panels and the "Match
Prob (Author / Title)" variants, on our DBLP-like stand-in for BEGen's DBLP data
(``workload(dataset="author" | "title")``, :mod:`cnsim.bench.dblp_like`, where every
assumption is written down); RESULTS.md "Table III's size sweep and DBLP-like workloads".
``python -m cnsim.bench.betree tables --json FILE`` prints the Markdown tables of such a
result (RESULTS' tables are its output).
The full run and ``--quick`` hold these figures too (new keys of the JSON; the quick run
tiny points of them, :data:`QUICK_TABLE3`).
"""

from __future__ import annotations

import json
import time

import numpy as np

from cnsim.bench import dblp_like, provenance
from cnsim.errors import ConfigError
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
    "dist": "uniform",  # attribute choice: uniform or zipf (or author / title, below)
    "dataset": "synthetic",  # or the DBLP-like strings: author, title (dblp_like.py)
}
#: Table III's DBLP-driven workloads (our DBLP-like stand-in, ``cnsim.bench.dblp_like``):
#: their fixed parameters (``dist = "real"``: the attributes follow the strings)
STRING_DATASETS = {
    "author": {"dims": dblp_like.DIMS, "cardinality": dblp_like.CARDINALITY, "sub_size": 8,
               "event_size": 8, "dist": "real"},
    "title": {"dims": dblp_like.DIMS, "cardinality": dblp_like.CARDINALITY, "sub_size": 35,
              "event_size": 35, "dist": "real"},
}  # fmt: skip
DISTS = ("uniform", "zipf", "author", "title", "real")
#: Table III's DBLP-driven workloads (``dataset``; our DBLP-like stand-in) and their
#: "Match Prob" variants (the synthetic groups with the strings' attribute choice)
AUTHOR = {"dataset": "author", **STRING_DATASETS["author"]}
TITLE = {"dataset": "title", **STRING_DATASETS["title"]}
MP_AUTHOR = {"n": 400_000, "dims": dblp_like.DIMS, "cardinality": dblp_like.CARDINALITY,
             "sub_size": 8, "event_size": 16, "dist": "author"}  # fmt: skip
MP_TITLE = {**MP_AUTHOR, "n": 150_000, "sub_size": 30, "event_size": 43, "dist": "title"}
STRUCTURES = tuple(s for s in ("betree_star", "betree", "kindex", "scan") if s in REGISTRY)
WIDTH = 4  # a subscription range is [core - u, core + v], u, v uniform in 0..WIDTH


def _attr_probs(dims: int, dist: str) -> np.ndarray:
    if dist in dblp_like.DATASETS:  # the DBLP-like strings' attribute frequencies
        return dblp_like.attribute_probs(dist)
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


def _int(key: str, v, lo: int, what: str = "") -> None:
    if isinstance(v, bool) or not isinstance(v, int | np.integer) or v < lo:
        raise ConfigError(f"workload: {key} = {v!r}; allowed: an integer >= {lo}{what}")


def check_workload(n_events, params: dict) -> dict:
    """The workload's parameters (``DEFAULTS``, a string dataset's fixed ones, then
    ``params``), checked: a bad one raises ``ConfigError`` naming the key, the value and
    what is allowed, before anything is generated."""
    bad = sorted(set(params) - set(DEFAULTS))
    if bad:
        raise ConfigError(f"workload: unknown key {bad[0]!r}; allowed: {', '.join(DEFAULTS)}")
    ds = params.get("dataset", DEFAULTS["dataset"])
    if ds != "synthetic" and ds not in STRING_DATASETS:
        raise ConfigError(
            f"workload: dataset = {ds!r}; allowed: 'synthetic', "
            + ", ".join(repr(d) for d in STRING_DATASETS)
        )
    w = {**DEFAULTS, **STRING_DATASETS.get(ds, {}), **params}
    _int("n_events", n_events, 1)
    for key in ("n", "dims", "cardinality"):
        _int(key, w[key], 1)
    for key in ("clusters", "cluster_size"):
        _int(key, w[key], 0)
    ss, es = w["sub_size"], w["event_size"]
    _int("sub_size", ss, 1, f" and <= dims = {w['dims']}")
    if ss > w["dims"]:
        raise ConfigError(
            f"workload: sub_size = {ss}; allowed: 1 <= sub_size <= dims = {w['dims']}"
        )
    _int("event_size", es, 1)
    if es < ss or es > w["dims"]:
        raise ConfigError(
            f"workload: event_size = {es} with sub_size = {ss}, dims = {w['dims']}; allowed: "
            f"sub_size <= event_size <= dims (an event holds its group's core point on the "
            f"sub_size attributes of the group, plus event_size - sub_size others)"
        )
    mp = w["match_prob"]
    if isinstance(mp, bool) or not isinstance(mp, int | float) or not 0 < mp <= 1:
        raise ConfigError(f"workload: match_prob = {mp!r}; allowed: a number in (0, 1]")
    dist = w["dist"]
    if dist not in DISTS:
        raise ConfigError(f"workload: dist = {dist!r}; allowed: {', '.join(map(repr, DISTS))}")
    if ds in STRING_DATASETS:
        for key, fixed in STRING_DATASETS[ds].items():
            if w[key] != fixed:
                raise ConfigError(
                    f"workload: {key} = {w[key]!r} with dataset = {ds!r}; allowed: {fixed!r} "
                    "(set by the DBLP-like strings, Table III)"
                )
    elif dist == "real":
        raise ConfigError(
            "workload: dist = 'real' with dataset = 'synthetic'; allowed: 'uniform', 'zipf', "
            "'author', 'title' ('real' is the string datasets' own attribute distribution)"
        )
    elif dist in dblp_like.DATASETS and w["dims"] != dblp_like.DIMS:
        raise ConfigError(
            f"workload: dims = {w['dims']} with dist = {dist!r}; allowed: {dblp_like.DIMS} "
            "(the DBLP-like strings' attributes, 26^2 + 1)"
        )
    elif dist in dblp_like.DATASETS:
        used = int((dblp_like.attribute_probs(dist) > 0).sum())
        if es > used:
            raise ConfigError(
                f"workload: event_size = {es} with dist = {dist!r}; allowed: at most {used} "
                "(the attributes the DBLP-like strings use)"
            )
    return w


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
    weight equal to inv(a)).

    Table III's "Sub/Event Size" column moves ``sub_size`` and ``event_size`` together
    (5-66 and 13-81); ``1 <= sub_size <= event_size <= dims`` is required, so an event
    always holds its group's whole core point.  ``dist = "author" | "title"`` draws the
    attributes with the DBLP-like strings' frequencies (Table III's "Match Prob (Author /
    Title)" workloads, with ``dims = 677``); ``dataset = "author" | "title"`` is the
    DBLP-like string workload itself (:func:`string_workload`; its dims, cardinality,
    sizes and dist are fixed, ``clusters``, ``cluster_size`` and ``match_prob`` are not
    used).  Bad parameters raise
    ``ConfigError`` (:func:`check_workload`)."""
    w = check_workload(n_events, params)
    if w["dataset"] != "synthetic":
        return string_workload(seed, n_events, w)
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
    weights = _inv_weights(rng, attr, dims)
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


def _inv_weights(rng, attr: np.ndarray, dims: int):
    """§VII's weight rule (see :func:`workload`) over the subscriptions' attributes."""
    freq = np.bincount(attr, minlength=dims).astype(float)
    inv = np.where(freq > 0, freq.max() / np.maximum(freq, 1), 1.0)
    inv = inv / inv.max()
    return lambda a: np.minimum(inv[a], np.abs(rng.normal(0.8 * inv[a], 0.05 * inv[a])))


def string_workload(seed: int, n_events: int, w: dict) -> tuple[Expressions, Expressions, dict]:
    """Table III's DBLP (Author) / (Title) workloads, after our DBLP-like stand-in
    (``cnsim.bench.dblp_like``, where every assumption is written down): ``n`` distinct
    strings, one subscription each (``between v - u and v + w`` on every window's
    attribute and on the length, u, w uniform in 0..``dblp_like.DBLP_WIDTH``); each event
    is the point expression of one of these strings, drawn by Zipf popularity.  So an
    event matches its own string's subscription (and any other that agrees with it
    within the ranges): ``match_prob`` is returned as 1 / n (it sets the leaf capacity),
    the measured mean is what the benchmark reports.  ``mean_sub_size`` and
    ``mean_event_size`` are the sizes the strings gave."""
    n = w["n"]
    card = w["cardinality"]
    sptr, attr, val = dblp_like.predicates(*dblp_like.strings(w["dataset"], seed, n))
    rng = np.random.default_rng(seed)
    m = len(attr)
    lo = np.maximum(val - rng.integers(0, dblp_like.DBLP_WIDTH + 1, m), 0)
    hi = np.minimum(val + rng.integers(0, dblp_like.DBLP_WIDTH + 1, m), card - 1)
    weights = _inv_weights(rng, attr, w["dims"])
    subs = Expressions.from_arrays(
        sptr, attr, np.full(m, BETWEEN, np.int8), weights(attr), np.arange(m + 1) * 2,
        np.stack([lo, hi], axis=1).ravel().astype(float),
    )  # fmt: skip
    q = dblp_like.popularity_ranks(seed, n, n_events)
    eptr, ea = dblp_like.gather(sptr, attr, q)
    _, ev = dblp_like.gather(sptr, val, q)
    events = Expressions.from_arrays(
        eptr, ea, np.full(len(ea), EQ, np.int8), weights(ea), np.arange(len(ea) + 1),
        ev.astype(float),
    )  # fmt: skip
    w = {**w, "match_prob": 1.0 / n, "mean_sub_size": m / n,
         "mean_event_size": len(ea) / n_events}  # fmt: skip
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


def sweep(axis, values, base: dict, n_events: int, structures=STRUCTURES, seed=0,
          dists=("uniform", "zipf")) -> dict:  # fmt: skip
    """Every structure one by one at every value of ``axis`` (a key, or a tuple of keys
    moved together), per distribution; a ``dist`` in ``base`` wins (label it "real")."""
    out = {}
    for dist in dists:
        rows = {}
        for val in values:
            params = {"dist": dist, **base, **axis_params(axis, val)}
            subs, events, w = workload(seed, n_events, **params)
            cell = {}
            for name in structures:
                _log(f"  {axis_name(axis)}={axis_label(val)} {dist} {name}")
                cell[name] = measure(name, subs, events, w)
            rows[axis_label(val)] = cell
        out[dist] = rows
    return out


#: the quick run's points of the figures of Table III's size column and DBLP workloads
QUICK_TABLE3 = {
    "table3_sub_event_size": (("sub_size", "event_size"), [(5, 13), (16, 26)], {"n": 2_000}),
    "fig8_author": ("n", [2_000], AUTHOR),
    "fig8_title": ("n", [1_000], TITLE),
    "fig9_author": ("match_prob", [0.01], {**MP_AUTHOR, "n": 2_000}),
}


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
    if quick:  # tiny points of Table III's size column and DBLP-like workloads
        for fig, (axis, values, b) in QUICK_TABLE3.items():
            figs[fig] = sweep(axis, values, b, n_ev, dists=("real",) if "dist" in b else
                              ("uniform", "zipf"))  # fmt: skip
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
#: Table III's "Sub/Event Size" column (5-66 / 13-81, 100K): the sizes move together;
#: the paper gives only the range, the three pairs between its ends are our choice
SUB_EVENT_SIZES = [(5, 13), (8, 15), (16, 26), (33, 48), (66, 81)]
FULL_AXES = {
    "fig6_cardinality": ("cardinality", [2_500, 250_000, 250_000_000]),
    "fig7_clusters": ("clusters", [0, 2, 4, 26]),
    "fig6_dims": ("dims", [50, 400, 1400]),
    "fig7_cluster_size": ("cluster_size", [25, 100, 800]),
    "fig9_match_prob": ("match_prob", [0.0001, 0.001, 0.01, 0.09]),
    # a figure is (axis, values[, base]): a paired axis names its keys in a tuple and
    # moves them together; ``base`` overrides the defaults (a ``dist`` in it is the
    # figure's only distribution, its rows labelled "real": measured when ``run_full``'s
    # ``dists`` hold "real")
    "table3_sub_event_size": (("sub_size", "event_size"), SUB_EVENT_SIZES),
    "fig8_author": ("n", [100_000, 300_000, 760_000], AUTHOR),
    "fig8_title": ("n", [50_000, 150_000, 250_000], TITLE),
    "fig9_author": ("match_prob", [0.0001, 0.001, 0.01, 0.09], MP_AUTHOR),
    "fig9_title": ("match_prob", [0.0001, 0.001, 0.01, 0.09], MP_TITLE),
    "fig8_size": ("n", [100_000, 300_000, 1_000_000]),
}
#: label -> (structure, bulk, largest n, only in these figures or (figure, value)
#: points (None: all); a row shows every structure measured at its point)
FULL_STRUCTURES = {
    "BE*-B": ("betree_star", True, None, None),
    "BE*": ("betree_star", False, None, (("fig8_size", 100_000), "table3_sub_event_size",
                                          "fig8_author", "fig8_title")),
    "BE": (
        "betree",
        True,
        None,
        (("fig8_size", 100_000), ("fig6_cardinality", 2_500), ("fig7_clusters", 0),
         ("fig7_clusters", 2), "table3_sub_event_size", ("fig8_author", 100_000),
         ("fig8_author", 300_000), "fig8_title"),
    ),
    "k-ind": ("kindex", False, None, None),
    "SCAN": ("scan", False, 300_000, ("fig8_size",)),
}


def axis_params(axis, val) -> dict:
    """The workload parameters a figure's axis sets: one key, or a paired axis' keys."""
    return dict(zip(axis, val, strict=True)) if isinstance(axis, tuple) else {axis: val}


def axis_label(val) -> str:
    """A value's row key (``"5/13"`` for a paired axis' ``(5, 13)``)."""
    return "/".join(map(str, val)) if isinstance(val, tuple | list) else str(val)


def axis_name(axis) -> str:
    return "/".join(axis) if isinstance(axis, tuple) else axis


def fig_base(spec) -> dict:
    """A figure's overrides of the defaults (its third element, if any)."""
    return spec[2] if len(spec) > 2 else {}


def fig_dists(spec, dists) -> list[str]:
    """The row labels a figure is measured under: "real" (if ``dists`` has it) when its
    base names its own ``dist`` (the DBLP-like strings' attributes), else ``dists`` but
    "real"."""
    if "dist" in fig_base(spec):
        return [d for d in dists if d == "real"]
    return [d for d in dists if d != "real"]


def full_plan(axes: dict) -> list[tuple[str, object]]:
    """``(figure, value)`` in the order a full run measures them: the headline figures
    (clusters, size) first, every figure's largest value last (the 1M point)."""
    firsts = [(f, v) for f in ("fig7_clusters", "fig8_size") if f in axes for v in axes[f][1][:-1]]
    rest = [(f, v) for f, spec in axes.items() for v in spec[1][:-1] if (f, v) not in firsts]
    return firsts + rest + [(f, spec[1][-1]) for f, spec in axes.items()]


def run_full(dists=("uniform", "zipf", "real"), axes=None, n=FULL_N, n_events=FULL_EVENTS,
             structures=None, seed=0, on_point=None, prior=None) -> dict:  # fmt: skip
    """Every figure's sweep, a point shared by several figures measured once; each
    point measures every structure in turn in this one process (ratios side by side).
    ``on_point(result so far)`` is called after every point (to save partial results);
    the cells of ``prior`` (such a partial result) are taken as measured."""
    axes = FULL_AXES if axes is None else axes
    structures = FULL_STRUCTURES if structures is None else structures
    t0 = time.perf_counter()
    figs: dict = {fig: {d: {} for d in fig_dists(axes[fig], dists)} for fig in axes}
    res = {"provenance": provenance("betree", False), "defaults": {**DEFAULTS, "n": n},
           "events": n_events, "scan_events": SCAN_EVENTS,
           "structures": {k: list(v[:3]) for k, v in structures.items()},
           "figures": figs}  # fmt: skip
    cache: dict = {}

    def params_of(dist, fig, val):
        spec = axes[fig]
        return {**DEFAULTS, "n": n, "dist": dist, **fig_base(spec), **axis_params(spec[0], val)}

    def key_of(dist, fig, val):
        return tuple(sorted(params_of(dist, fig, val).items()))

    for fig, per in (prior or {}).get("figures", {}).items():
        for dist, rows in per.items():
            for val, cell in rows.items():
                v = next(x for x in axes[fig][1] if axis_label(x) == val)
                cache.setdefault(key_of(dist, fig, v), {}).update(cell)
                if dist in figs[fig]:  # in every partial result from the start
                    figs[fig][dist][val] = dict(cell)
    warm_builds(structures, seed)
    for dist in dists:
        for fig, val in full_plan(axes):
            if dist not in figs[fig]:
                continue
            axis = axis_name(axes[fig][0])
            params = params_of(dist, fig, val)
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
                    _log(f"  {fig} {axis}={axis_label(val)} {dist} {lab}")
                    reps = 1 if name == "scan" else 2
                    cell[lab] = measure(name, subs, ev, w, ks=(1, 5), bulk=bulk, reps=reps)
                    cell[lab]["events"] = len(ev)
                del subs, events
            figs[fig][dist][axis_label(val)] = {lab: cell[lab] for lab in structures
                                                if lab in cell}  # fmt: skip
            res["wall_s"] = time.perf_counter() - t0
            if on_point is not None:
                on_point(res)
    for fig, spec in axes.items():  # rows in the axis' order
        for d, rows in figs[fig].items():
            figs[fig][d] = {axis_label(v): rows[axis_label(v)] for v in spec[1]
                            if axis_label(v) in rows}  # fmt: skip
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
        for v, c in figs.get("table3_sub_event_size", {}).get(dist, {}).items():
            for other in ("k-ind", "BE"):
                if "BE*-B" in c and other in c:
                    h[f"{dist}: sub/event size {v}, BE*-B faster than {other}"] = _pct(
                        c["BE*-B"]["match_us"], c[other]["match_us"]
                    )
    h.update(headline_dblp(figs))
    return h


#: the paper's DBLP figures: top-1 gains (Fig 8: BE*(1) over BE*, k-ind(1) over the
#: k-index, "up to") and construction times (Table II(b), the largest size)
DBLP_PAPER = {"fig8_author": ("author", "72%", "3.5%", "760K in 4.98 s"),
              "fig8_title": ("title", "71%", "8.5%", "250K in 2.83 s")}  # fmt: skip


def headline_dblp(figs: dict) -> dict:
    """The paper's claims on its DBLP panels beside ours (dist "real")."""
    h: dict = {}
    for fig, (name, star1, kind1, build) in DBLP_PAPER.items():
        rows = figs.get(fig, {}).get("real", {})
        if not rows:
            continue
        for lab in ("BE*", "BE*-B", "k-ind", "BE"):
            gains = {v: 1 - _top(c[lab], 1) / c[lab]["match_us"] for v, c in rows.items()
                     if lab in c}  # fmt: skip
            if gains:
                h[f"{name}: top-1 faster than matching, {lab} (n = {', '.join(gains)})"] = (
                    ", ".join(f"{g * 100:.0f}%" for g in gains.values())
                    + f" (paper: BE* up to {star1}, k-index up to {kind1})"
                )
        for lab in ("k-ind", "BE"):
            gains = {v: 1 - c["BE*-B"]["match_us"] / c[lab]["match_us"]
                     for v, c in rows.items() if "BE*-B" in c and lab in c}  # fmt: skip
            if gains:
                h[f"{name}: BE*-B faster than {lab} (n = {', '.join(gains)})"] = ", ".join(
                    f"{g * 100:.0f}%" for g in gains.values()
                )
        v, c = list(rows.items())[-1]
        for lab in ("BE*-B", "BE*"):
            if lab in c:
                h[f"{name}: {lab} build of {v}"] = (
                    f"{c[lab]['build_s']:.1f} s (paper, Table II(b): {build}, C)"
                )
    return h


def _top(cell: dict, k: int) -> float:
    t = cell["top_us"]  # int keys in memory, str keys after a JSON round trip
    return t[k] if k in t else t[str(k)]


def _value(fig: str, val: str) -> str:
    """An axis value as RESULTS prints it: counts with thousands, probabilities in %."""
    axis = FULL_AXES.get(fig, (fig,))[0]
    if axis == "n":
        return f"{int(val):,}"
    if axis == "match_prob":
        return f"{float(val) * 100:g}%"
    return val.replace("/", " / ")


def tables(res: dict) -> str:
    """Markdown tables of a run (the layout of RESULTS.md), one per figure: per point the
    mean matches, per structure matching µs/event (top-1 / top-5 µs), then every
    structure's build s and MB (``nbytes``); "-" where a structure was not measured."""
    out = []
    labs = list(res["structures"])

    def cell_us(c):
        return f"{c['match_us']:,.0f} ({_top(c, 1):,.0f} / {_top(c, 5):,.0f})"

    for fig, per in res["figures"].items():
        axis = axis_name(FULL_AXES.get(fig, (fig,))[0])
        out.append(f"**{fig}** ({axis}): matching µs/event (top-1 / top-5 µs); build s; MB\n")
        slash = " / ".join(labs)
        head_ = ["dist", axis, "matches", *labs, f"build s {slash}", f"MB {slash}"]
        out.append("| " + " | ".join(head_) + " |")
        out.append("|---|---:|---:|" + "---:|" * len(labs) + "---|---|")
        for dist, rows in per.items():
            for val, cell in rows.items():
                m = next(iter(cell.values()))["mean_matches"]
                r = [dist, _value(fig, val), f"{m:,.0f}"]
                r += ["-" if x not in cell else cell_us(cell[x]) for x in labs]
                for key, f in (("build_s", "{:.1f}"), ("mb", "{:.0f}")):
                    r.append(" / ".join("-" if x not in cell else f.format(cell[x][key])
                                        for x in labs))  # fmt: skip
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
#: to 1M and Fig 9's match probabilities at 1M, the paper's sizes, every structure at
#: every point (the node tables and the k-index's build are columnar: the BE-tree at 1M
#: peaks at ~4.4 GB, the one-by-one BE* at ~2.7 GB).  Before the atomic-bucket rule the
#: one-by-one BE* skipped 9% (its build at 300,000 took 239-274 s; 71 s after)
FULL_1M_N = 1_000_000
FULL_1M_AXES = {
    "fig8_size": ("n", [100_000, 300_000, 1_000_000]),
    "fig9_match_prob": ("match_prob", [0.0001, 0.001, 0.01, 0.09]),
}
FULL_1M_STRUCTURES = {
    "BE*-B": ("betree_star", True, None, None),
    "BE*": ("betree_star", False, None, None),
    "BE": ("betree", True, None, None),
    "k-ind": ("kindex", False, None, None),
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


# ------------------------------- Table III's size column and DBLP-like workloads

#: the figures of :func:`run_table3` (RESULTS "Table III's size sweep and DBLP-like
#: workloads"): the sub / event size sweep at 100,000 (both distributions), Fig 8's
#: author and title panels, the "Match Prob (Author / Title)" variants
TABLE3_FIGS = ("table3_sub_event_size", "fig8_author", "fig8_title", "fig9_author", "fig9_title")
#: figures measured otherwise than in :data:`FULL_AXES` (none now; a scaled-down
#: figure goes here, its reason beside it)
TABLE3_AXES: dict = {}
#: the structures of :func:`run_table3`: :data:`FULL_STRUCTURES`' but the scan, and in the
#: "Match Prob" figures also the one-by-one BE* and the BE-tree (the full run leaves both
#: out there, for time)
TABLE3_STRUCTURES = {k: v for k, v in FULL_STRUCTURES.items() if k != "SCAN"}
TABLE3_STRUCTURES["BE*"] = (*FULL_STRUCTURES["BE*"][:3],
                            (*FULL_STRUCTURES["BE*"][3], "fig9_author", "fig9_title"))  # fmt: skip
TABLE3_STRUCTURES["BE"] = (*FULL_STRUCTURES["BE"][:3],
                           (*FULL_STRUCTURES["BE"][3], "fig9_author", "fig9_title"))  # fmt: skip


def run_table3(figures=TABLE3_FIGS, on_point=None, prior=None, n_events: int = FULL_EVENTS,
               axes=None, structures=None) -> dict:  # fmt: skip
    """:func:`run_full` over ``figures`` of :data:`FULL_AXES` (:data:`TABLE3_AXES` where
    it has them; or ``axes``) with every structure of :data:`TABLE3_STRUCTURES` at the
    points :data:`FULL_STRUCTURES` allows; ``prior`` (a partial result, possibly of
    other figures: they are kept) is resumed; ``runs`` lists every process' figures,
    wall time and peak memory (max RSS)."""
    import resource

    axes = {f: TABLE3_AXES.get(f, FULL_AXES[f]) for f in figures} if axes is None else axes
    structures = TABLE3_STRUCTURES if structures is None else structures
    prior = prior or {}
    keep = {f: r for f, r in prior.get("figures", {}).items() if f not in axes}
    mine = {f: r for f, r in prior.get("figures", {}).items() if f in axes}
    t0 = time.perf_counter()

    def done(res):
        res = merge_full([{**res, "figures": {**keep, **res["figures"]}}])
        res["provenance"] = {**res["provenance"],
                             "command": "python -m cnsim.bench.betree table3"}  # fmt: skip
        now = {"figures": list(axes), "wall_s": time.perf_counter() - t0,
               "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}  # fmt: skip
        res["runs"] = [*prior.get("runs", ()), now]
        res["wall_s"] = sum(r["wall_s"] for r in res["runs"])
        res["max_rss_mb"] = max(r["max_rss_mb"] for r in res["runs"])
        return res

    def point(res):
        if on_point is not None:
            on_point(done(res))

    res = run_full(("uniform", "zipf", "real"), axes=axes, n=FULL_N, n_events=n_events,
                   structures=structures, prior={**prior, "figures": mine},
                   on_point=point)  # fmt: skip
    return done(res)


def _main(argv: list[str] | None = None) -> None:
    """``python -m cnsim.bench.betree full-1m --json FILE``: :func:`run_full_1m`, the
    JSON rewritten after every point (a partial run is kept); ``table3 [--figures F,..]``:
    :func:`run_table3`; ``tables``: print :func:`tables` of FILE (RESULTS' tables)."""
    import argparse
    from pathlib import Path

    ap = argparse.ArgumentParser(prog="python -m cnsim.bench.betree")
    ap.add_argument("plan", choices=["full-1m", "table3", "tables"],
                    help="tables: print the Markdown tables of --json (no run)")  # fmt: skip
    ap.add_argument("--figures", default=",".join(TABLE3_FIGS),
                    help="table3: comma-separated figures of FULL_AXES")  # fmt: skip
    ap.add_argument("--json", required=True, type=Path)
    ap.add_argument("--resume", action="store_true",
                    help="keep what the --json file holds and measure only the rest")  # fmt: skip
    args = ap.parse_args(argv)
    if not args.json.parent.is_dir():
        ap.error(f"--json: directory {str(args.json.parent)!r} does not exist")
    prior = None
    if args.resume or args.plan == "tables":
        try:
            prior = json.loads(args.json.read_text())
        except (OSError, ValueError) as e:
            ap.error(f"--json: cannot read {str(args.json)!r}: {e}")
        if not isinstance(prior, dict) or not all(
            isinstance(prior.get(k), dict) for k in ("figures", "structures")):
            ap.error(f"--json: {str(args.json)!r} holds no 'figures' and 'structures' (not"
                     " a result of this module)")  # fmt: skip
    if args.plan == "tables":
        print(tables(prior))
        return

    def write(res):
        tmp = args.json.with_suffix(".tmp")
        tmp.write_text(json.dumps(res, indent=1, default=json_default) + "\n")
        tmp.replace(args.json)

    if args.plan == "table3":
        figures = [f for f in args.figures.split(",") if f]
        bad = [f for f in figures if f not in FULL_AXES]
        if bad or not figures:
            ap.error(f"--figures: {bad[0] if bad else ''!r} is not a figure; allowed: "
                     + ", ".join(FULL_AXES))  # fmt: skip
        res = run_table3(figures, on_point=write, prior=prior)
    else:
        res = run_full_1m(on_point=write, prior=prior)
    write(res)
    print(json.dumps(res["headline"], indent=1))


if __name__ == "__main__":
    _main()
