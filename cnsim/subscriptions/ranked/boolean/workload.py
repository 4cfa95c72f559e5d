"""Seeded workloads after seed 002's Table III (BE*-tree, §VII): Boolean-expression
subscriptions and point events, synthetic (uniform or Zipf attribute choice, clustered
values, a set match probability) or from our DBLP-like strings (:mod:`.dblp_like`), and
:func:`make_index`, an index of :data:`REGISTRY` sized for a workload.  The BE*-tree
benchmark (``cnsim bench betree``) and the index tests draw from here."""

from __future__ import annotations

import numpy as np

from cnsim.errors import ConfigError, InputError
from cnsim.subscriptions.generators.checks import MAX_COUNT, check_int, check_product, check_seed
from cnsim.subscriptions.ranked.boolean import REGISTRY, dblp_like
from cnsim.subscriptions.ranked.boolean.expressions import BETWEEN, EQ, Expressions

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
#: Table III's DBLP-driven workloads (our DBLP-like stand-in, :mod:`.dblp_like`):
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


class WorkloadError(ConfigError, InputError):
    """A bad workload parameter: a ``ConfigError`` (the benchmark's configuration) and an
    ``InputError`` (an argument of :func:`workload`)."""


#: the largest cardinality: values are drawn as int64 and stored as float64, exact up
#: to 2**53
MAX_CARDINALITY = 2**53


def _int(key: str, v, lo: int, hi: int = MAX_COUNT) -> None:
    check_int(f"workload: {key}", v, lo, hi, error=WorkloadError)


def _product(keys: str, value: int) -> None:
    check_product(f"workload: {keys}", value, error=WorkloadError)


def check_workload(n_events, params: dict) -> dict:
    """The workload's parameters (``DEFAULTS``, a string dataset's fixed ones, then
    ``params``), checked: a bad one raises :class:`WorkloadError` (a ``ConfigError`` and
    an ``InputError``) naming the key, the value and what is allowed, before anything is
    generated (sizes: at most ``MAX_COUNT`` elements per array)."""
    bad = sorted(set(params) - set(DEFAULTS))
    if bad:
        raise WorkloadError(f"workload: unknown key {bad[0]!r}; allowed: {', '.join(DEFAULTS)}")
    ds = params.get("dataset", DEFAULTS["dataset"])
    if ds != "synthetic" and ds not in STRING_DATASETS:
        raise WorkloadError(
            f"workload: dataset = {ds!r}; allowed: 'synthetic', "
            + ", ".join(repr(d) for d in STRING_DATASETS)
        )
    w = {**DEFAULTS, **STRING_DATASETS.get(ds, {}), **params}
    _int("n_events", n_events, 1)
    for key in ("n", "dims"):
        _int(key, w[key], 1)
    _int("cardinality", w["cardinality"], 1, MAX_CARDINALITY)
    for key in ("clusters", "cluster_size"):
        _int(key, w[key], 0)
    ss, es = w["sub_size"], w["event_size"]
    _int("sub_size", ss, 1)
    if ss > w["dims"]:
        raise WorkloadError(
            f"workload: sub_size = {ss}; allowed: 1 <= sub_size <= dims = {w['dims']}"
        )
    _int("event_size", es, 1)
    # the largest arrays drawn: subscriptions' and events' predicates, cluster centres
    _product(f"n x sub_size ({w['n']} x {ss})", w["n"] * ss)
    _product(f"n_events x event_size ({n_events} x {es})", n_events * es)
    _product(f"dims x clusters ({w['dims']} x {w['clusters']})", w["dims"] * w["clusters"])
    if es < ss or es > w["dims"]:
        raise WorkloadError(
            f"workload: event_size = {es} with sub_size = {ss}, dims = {w['dims']}; allowed: "
            f"sub_size <= event_size <= dims (an event holds its group's core point on the "
            f"sub_size attributes of the group, plus event_size - sub_size others)"
        )
    mp = w["match_prob"]
    if isinstance(mp, bool) or not isinstance(mp, int | float) or not 0 < mp <= 1:
        raise WorkloadError(f"workload: match_prob = {mp!r}; allowed: a number in (0, 1]")
    dist = w["dist"]
    if dist not in DISTS:
        raise WorkloadError(f"workload: dist = {dist!r}; allowed: {', '.join(map(repr, DISTS))}")
    if ds in STRING_DATASETS:
        for key, fixed in STRING_DATASETS[ds].items():
            if w[key] != fixed:
                raise WorkloadError(
                    f"workload: {key} = {w[key]!r} with dataset = {ds!r}; allowed: {fixed!r} "
                    "(set by the DBLP-like strings, Table III)"
                )
    elif dist == "real":
        raise WorkloadError(
            "workload: dist = 'real' with dataset = 'synthetic'; allowed: 'uniform', 'zipf', "
            "'author', 'title' ('real' is the string datasets' own attribute distribution)"
        )
    elif dist in dblp_like.DATASETS and w["dims"] != dblp_like.DIMS:
        raise WorkloadError(
            f"workload: dims = {w['dims']} with dist = {dist!r}; allowed: {dblp_like.DIMS} "
            "(the DBLP-like strings' attributes, 26^2 + 1)"
        )
    elif dist in dblp_like.DATASETS:
        used = int((dblp_like.attribute_probs(dist) > 0).sum())
        if es > used:
            raise WorkloadError(
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
    used).  Bad parameters raise :class:`WorkloadError`, a ``ConfigError`` and an
    ``InputError`` (:func:`check_workload`), sizes too large to allocate included."""
    seed = check_seed("seed", seed)
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
    (:mod:`.dblp_like`, where every assumption is written down): ``n`` distinct
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


def make_index(name: str, w: dict, **kw):
    """The index ``name`` of :data:`REGISTRY` for workload ``w`` (its domain and match
    probability); ``kw`` goes to the trees (``bulk``, ``ranking``)."""
    if name == "betree":
        return REGISTRY[name](domain=(0.0, float(w["cardinality"])),
                              match_probability=w["match_prob"], **kw)  # fmt: skip
    if name == "betree_star":
        return REGISTRY[name](match_probability=w["match_prob"], **kw)
    if name == "kindex":
        return REGISTRY[name](domain=(0, int(w["cardinality"]) - 1))
    return REGISTRY[name]()

