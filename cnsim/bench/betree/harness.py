"""The BE*-tree benchmark's timing harness: build and query every structure on a
workload (:func:`measure`), one-at-a-time sweeps (:func:`sweep`), the full runs
(:func:`run_full`, :func:`run_full_1m`, :func:`run_table3`; a point shared by figures
measured once, partial results resumable) and the numba builds against their Python
references (:func:`build_speedup`)."""

from __future__ import annotations

import time

import numpy as np

from cnsim.bench import provenance
from cnsim.bench.betree.paper import headline_full
from cnsim.bench.betree.plans import (
    FULL_1M_AXES,
    FULL_1M_N,
    FULL_1M_STRUCTURES,
    FULL_AXES,
    FULL_EVENTS,
    FULL_N,
    FULL_STRUCTURES,
    SCAN_EVENTS,
    STRUCTURES,
    TABLE3_AXES,
    TABLE3_FIGS,
    TABLE3_STRUCTURES,
)
from cnsim.bench.betree.results import axis_label, axis_name, axis_params, fig_base, fig_dists
from cnsim.subscriptions.ranked.boolean import Expressions
from cnsim.subscriptions.ranked.boolean.workload import DEFAULTS, workload
from cnsim.subscriptions.ranked.boolean.workload import make_index as _make


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


def head(events: Expressions, m: int) -> Expressions:
    """The first ``m`` expressions of a collection (the scan's shorter event list)."""
    m = min(m, len(events))
    b = int(events.indptr[m])
    vb = int(events.vptr[b])
    return Expressions(events.indptr[: m + 1], events.attr[:b], events.op[:b],
                       events.weight[:b], events.lo[:b], events.hi[:b],
                       events.vptr[: b + 1], events.values[:vb])  # fmt: skip


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


def build_speedup(n: int = 30_000, seed: int = 0, dists=("uniform", "zipf")) -> dict:
    """The numba builds against their Python references, side by side in this process
    on the same workload: the dynamic BE* (``insert_many`` one by one:
    ``_insert.insert_many`` against ``_insert_at``) and the BE-tree's bulk load
    (``_build.build_main`` with ``rigid`` against ``_bulk_partition``).  Each pair
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
                             "command": "cnsim bench betree --full"}  # fmt: skip
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
                             "command": "cnsim bench betree --table 3"}  # fmt: skip
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
