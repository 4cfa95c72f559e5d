"""The covering benchmark's harness over seed 001's command streams
(:mod:`cnsim.subscriptions.covering.workload`): one stream through one relation graph
(:func:`run_stream`), and the §V-B / §V-C sweeps built on it — among them how Tables
I-II (§V-B) move with the settings seed 001 leaves open (:func:`bench_table_sensitivity`)
and §V-C's k-d tree against Z-order with the same data layout (:func:`bench_layout`)."""

from __future__ import annotations

import math
import numbers
import statistics
import time

from cnsim.bench.covering.paper import KS, PAPER, table_row
from cnsim.errors import InputError
from cnsim.subscriptions.covering import make_graph
from cnsim.subscriptions.covering.kdtree import OVERFLOW
from cnsim.subscriptions.covering.workload import UNSUBSCRIBE, command_stream
from cnsim.subscriptions.covering.zorder import KEY_BITS

BITS = 10  # attribute domain [0, 2**BITS - 1]


def index_params(
    index: str,
    bits: int = BITS,
    overflow: int = OVERFLOW,
    underflow: int | None = None,
    zorder_bits: int | None = None,
    point_copies: bool = True,
) -> dict:
    """The index's parameters for a stream over ``[0, 2**bits - 1]``: the k-d tree's
    bucket limits (``underflow`` default ``max(1, overflow // 4)``) and point copies,
    the Z-order's domain and resolution (``zorder_bits`` per coordinate, default the
    index's own ``min(16, 60 // D)``)."""
    if index == "kdtree":
        out = {
            "overflow": overflow,
            "underflow": max(1, overflow // 4) if underflow is None else underflow,
        }
        if not point_copies:
            out["point_copies"] = False
        return out
    if index == "zorder":
        out = {"low": 0.0, "high": float(2**bits - 1)}
        if zorder_bits is not None:
            out["bits"] = zorder_bits
        return out
    return {}


def run_stream(
    cs, index: str, kind: str = "gk", k: int = 1, per_command: bool = False, **params
) -> dict:
    """Feed a command stream through a graph; time and covering statistics.  ``G_k``
    runs the whole stream in one call of the numba command loop
    (``GkGraph.run_commands``) unless ``per_command``: then, like G and the poset,
    one Python call per command (as the overlay calls it)."""
    g = make_graph(kind, cs.d, index, k=k, **params)
    forwarded = reforwarded = 0
    batch = hasattr(g, "run_commands") and not per_command
    t0 = time.perf_counter()
    if batch:
        fwd, _, rsid = g.run_commands(cs.op, cs.sid, cs.lo, cs.hi)
        forwarded, reforwarded = int(fwd.sum()), len(rsid)
    else:
        op, sid, lo, hi = cs.op.tolist(), cs.sid.tolist(), cs.lo, cs.hi
        for i in range(len(op)):
            if op[i] == UNSUBSCRIBE:
                reforwarded += len(g.unsubscribe(sid[i]))
            else:
                forwarded += g.subscribe(i, lo[i], hi[i])
    dt = time.perf_counter() - t0
    st = g.stats()
    out = {
        "mode": "one call (numba command loop)" if batch else "one Python call per command",
        "time_s": dt,
        "commands_per_s": len(cs) / dt,
        "live_at_end": len(g),
        "forwarded_subscriptions": forwarded,
        "reforwarded_on_unsubscribe": reforwarded,
        "stats": st,
        "total_queries": st["subscribe"]["queries"] + st["unsubscribe"]["queries"],
        "total_nodes_visited": st["subscribe"]["nodes_visited"]
        + st["unsubscribe"]["nodes_visited"],
        "total_point_comparisons": st["subscribe"]["point_comparisons"]
        + st["unsubscribe"]["point_comparisons"],
    }
    ix = g.index
    if index == "kdtree":
        out["tree"] = {
            "depth": ix.depth,
            "leaves": ix.leaves,
            "splits": ix.splits,
            "merges": ix.merges,
        }
    return out


def bench_reporting_mode(n: int, ps, ks, log, seed: int = 1) -> dict:
    """§V-B: G_1..G_6 on k-d tree and Z-order, 5 attributes (10 dimensions)."""
    res = {}
    for p in ps:
        cs = command_stream(n, 5, p, seed=seed, bits=BITS)
        for index in ("kdtree", "zorder"):
            for k in ks:
                r = run_stream(cs, index, "gk", k, **index_params(index))
                r["table"] = table_row(r)
                res[f"p={p}/{index}/k={k}"] = r
                log(f"V-B p={p} {index} k={k}: {r['time_s']:.1f}s {r['table']}")
    return res


#: the grid of :func:`bench_table_sensitivity` (seed 001 states none of these): k-d tree
#: bucket overflow limits, attribute domains (bits of the command stream), underflow
#: limits as fractions of the overflow beside the default 1/4, Z-order bits per coordinate
SENS_OVERFLOWS = (8, 16, 32, 64, 128)
SENS_BITS = (2, 3, 4, 6, 10, 16)
SENS_UNDERFLOWS = (0.0, 0.5)
SENS_ZORDER_BITS = (1, 2, 3, 4, 5, 6)
#: the --quick grid
SENS_QUICK = {
    "overflows": (16, 32, 64),
    "bits": (3, 10),
    "underflows": (0.0, 0.5),
    "underflow_overflows": (32,),
    "zorder_bits": (3, 6),
}
#: a cell's |ours / paper - 1| is floored here before its logarithm is taken
DEV_FLOOR = 1e-3
#: the columns of Tables I-II, and their dimensions (5 attributes)
COLUMNS = ("nv", "nvs", "nvu", "pc", "pcs", "pcu")
TABLE_DIMS = 10


def _underflow(overflow: int, fraction: float) -> int:
    """The underflow limit at ``fraction`` of ``overflow`` (1/4: the default's rule)."""
    if fraction == 0.25:
        return max(1, overflow // 4)
    return min(overflow - 1, int(fraction * overflow))


def vs_paper(rows: dict, p: float) -> dict:
    """How far a setting's rows ``{k: table_row}`` lie from seed 001's table at ``p``
    over the cells present (the six columns of Tables I-II, every k given):
    ``gm_dev`` the geometric mean of ``|ours / paper - 1|`` (each floored at
    ``DEV_FLOOR``), ``factor`` the geometric mean of the factor each cell is off by
    (``exp(mean |ln(ours / paper)|)``, 1 = equal), ``ratio_min`` / ``ratio_max`` the
    range of ``ours / paper``."""
    if p not in PAPER:
        raise InputError(f"p must be one of the tables' loads {sorted(PAPER)}, got {p!r}")
    if not rows:
        raise InputError("rows must hold the table row of at least one k, got none")
    devs, logs, ratios = [], [], []
    for k, row in rows.items():
        paper = dict(zip(COLUMNS, PAPER[p][int(k)], strict=True))
        for c in COLUMNS:
            r = row[c] / paper[c]
            ratios.append(r)
            devs.append(math.log(max(abs(r - 1), DEV_FLOOR)))
            logs.append(abs(math.log(r)) if r > 0 else math.inf)
    return {
        "cells": len(ratios),
        "gm_dev": math.exp(sum(devs) / len(devs)),
        "factor": math.exp(sum(logs) / len(logs)),
        "ratio_min": min(ratios),
        "ratio_max": max(ratios),
    }


def _check_ints(name: str, values, low: int, high: int | None = None) -> tuple:
    """``values`` as a tuple of ints in ``[low, high]``, else an ``InputError``."""
    allowed = f"integers in [{low}, {high}]" if high is not None else f"integers >= {low}"
    out = []
    for v in values:
        ok = isinstance(v, numbers.Real) and not isinstance(v, bool) and int(v) == v
        if not ok or v < low or (high is not None and v > high):
            raise InputError(f"{name} must be {allowed}, got {v!r}")
        out.append(int(v))
    return tuple(out)


def bench_table_sensitivity(
    n: int,
    ks=KS,
    log=print,
    seed: int = 1,
    overflows=SENS_OVERFLOWS,
    bits=SENS_BITS,
    underflows=SENS_UNDERFLOWS,
    underflow_overflows=None,
    zorder_bits=SENS_ZORDER_BITS,
    domains=None,
) -> dict:
    """How seed 001's Tables I (p = 5%) and II (p = 40%) — nodes visited and point
    comparisons of G_1..G_6 over 5 attributes (10 dimensions), §V-B — move with what the
    paper leaves open, and which setting comes nearest to its figures.  Three stages,
    every setting at both loads and every ``k`` of ``ks`` on ``n`` commands (seed 001's
    size is 60,000):

    1. the k-d tree's bucket overflow limit x the attribute domain ``[0, 2**bits - 1]``
       (underflow ``max(1, overflow // 4)``, the default's rule);
    2. the underflow limit at the ``underflows`` fractions of the overflow (for every
       ``underflow_overflows``, default all ``overflows``) in the ``domains`` (default:
       ``BITS`` and the domain of stage 1's nearest setting for each table);
    3. the Z-order resolution, ``zorder_bits`` bits per coordinate, in the same domains.

    An empty ``bits`` skips stage 1 (then ``domains`` must be given).  Seed 001's
    tables are the k-d tree's: the Z-order rows say how its counts move and how far they
    lie from those tables, not a like-for-like fit.  Returns ``rows`` (by key
    ``kdtree/p=/overflow=/underflow=/bits=`` or ``zorder/p=/zbits=/bits=``: the setting,
    its Table I/II rows by ``k`` in thousands, and :func:`vs_paper`) and ``nearest``
    (:func:`sensitivity_nearest`)."""
    if isinstance(n, bool) or int(n) != n or n < 1:
        raise InputError(f"n must be an integer >= 1, got {n!r}")
    ks = _check_ints("ks", ks, 1, max(KS))
    if not ks:
        raise InputError("ks must name at least one k in 1..6, got none")
    overflows = _check_ints("overflows", overflows, 2)
    bits = _check_ints("bits", bits, 1, 52)
    zorder_bits = _check_ints("zorder_bits", zorder_bits, 1, KEY_BITS // TABLE_DIMS)
    for f in underflows:
        if not 0 <= f < 1:
            raise InputError(f"underflows must be fractions in [0, 1), got {f!r}")
    uo = overflows if underflow_overflows is None else underflow_overflows
    uo = _check_ints("underflow_overflows", uo, 2)
    if bits and not overflows:
        raise InputError("overflows must name at least one limit when bits are given")
    if domains is None and not bits:
        raise InputError("domains must be given when bits is empty (no stage 1)")
    t0 = time.process_time()
    streams: dict = {}
    rows: dict = {}

    def stream(p, b):
        if (p, b) not in streams:
            streams[(p, b)] = command_stream(n, TABLE_DIMS // 2, p, seed=seed, bits=b)
        return streams[(p, b)]

    def run(key, p, b, index, setting, params):
        if key in rows:
            return
        cs = stream(p, b)
        t = time.process_time()
        by_k = {}
        for k in ks:
            r = run_stream(cs, index, "gk", k, **params)
            by_k[str(k)] = {**table_row(r), "unsub_queries": r["stats"]["unsubscribe"]["queries"]}
        rows[key] = {
            "index": index,
            "p": p,
            "bits": b,
            **setting,
            "commands": n,
            "cpu_s": time.process_time() - t,
            "k": by_k,
            "vs_paper": vs_paper(by_k, p),
        }
        v = rows[key]["vs_paper"]
        log(
            f"table sensitivity {key}: off by x{v['factor']:.2f} (ours/paper "
            f"{v['ratio_min']:.2f}-{v['ratio_max']:.2f}), gm|ours/paper-1| {v['gm_dev']:.2f}"
        )

    def kd(p, b, o, u):
        key = f"kdtree/p={p}/overflow={o}/underflow={u}/bits={b}"
        params = index_params("kdtree", bits=b, overflow=o, underflow=u)
        run(key, p, b, "kdtree", {"overflow": o, "underflow": u}, params)

    loads = tuple(PAPER)
    for p in loads:  # stage 1
        for b in bits:
            for o in overflows:
                kd(p, b, o, _underflow(o, 0.25))
    if domains is None:
        near = [_nearest(rows, "kdtree", p, "factor") for p in loads]
        domains = sorted({BITS, *(rows[key]["bits"] for key in near)})
    domains = _check_ints("domains", domains, 1, 52)
    for p in loads:  # stage 2
        for b in domains:
            for o in uo:
                for f in underflows:
                    kd(p, b, o, _underflow(o, f))
    for p in loads:  # stage 3
        for b in domains:
            for z in zorder_bits:
                key = f"zorder/p={p}/zbits={z}/bits={b}"
                params = index_params("zorder", bits=b, zorder_bits=z)
                run(key, p, b, "zorder", {"zorder_bits": z}, params)
    return {
        "commands": n,
        "ks": list(ks),
        "seed": seed,
        "paper_commands": 60000,
        "comparable_to_paper": n == 60000,
        "grid": {
            "overflows": list(overflows),
            "bits": list(bits),
            "underflows": [0.25, *underflows],
            "underflow_overflows": list(uo),
            "zorder_bits": list(zorder_bits),
            "domains_of_stages_2_3": list(domains),
        },
        "distance": DISTANCE,
        "rows": rows,
        "nearest": sensitivity_nearest(rows),
        "cpu_s": time.process_time() - t0,
    }


DISTANCE = (
    "nearest by factor = exp(mean over the cells (6 columns x every k) of |ln(ours / "
    "paper)|), the factor a cell is typically off by (1 = equal); also given: gm_dev, "
    f"the geometric mean of |ours / paper - 1| (each floored at {DEV_FLOOR}), which "
    "counts a cell 30x too small (0.97) as nearer than one 2x too large (1.0)"
)


def sensitivity_nearest(rows: dict) -> dict:
    """For each table (p) and index, the setting of ``rows`` (as
    :func:`bench_table_sensitivity` returns them) nearest seed 001's figures by
    ``factor``, with its :func:`vs_paper` figures and the nearest by ``gm_dev``; under
    ``both``, the k-d tree setting nearest both tables at once."""
    nearest: dict = {}
    for p in PAPER:
        nearest[str(p)] = {}
        for index in ("kdtree", "zorder"):
            key = _nearest(rows, index, p, "factor")
            if key is None:
                continue
            nearest[str(p)][index] = {
                "key": key,
                **rows[key]["vs_paper"],
                "key_by_gm_dev": _nearest(rows, index, p, "gm_dev"),
            }
    nearest["both"] = _nearest_both(rows, tuple(PAPER))
    return nearest


def _nearest(rows: dict, index: str, p: float, metric: str) -> str | None:
    keys = [k for k, r in rows.items() if r["index"] == index and r["p"] == p]
    return min(keys, key=lambda k: rows[k]["vs_paper"][metric]) if keys else None


def _nearest_both(rows: dict, loads) -> dict:
    """The k-d tree setting nearest both tables: the least geometric mean of its two
    ``factor`` (equal cell counts: the factor over all cells of both)."""
    by: dict = {}
    for r in rows.values():
        if r["index"] == "kdtree":
            s = (r["bits"], r["overflow"], r["underflow"])
            by.setdefault(s, {})[r["p"]] = r["vs_paper"]
    both = {s: v for s, v in by.items() if len(v) == len(loads)}
    if not both:
        return {}

    def mean(s, metric):
        return math.prod(v[metric] for v in both[s].values()) ** (1 / len(loads))

    s = min(both, key=lambda s: mean(s, "factor"))
    return {
        "bits": s[0],
        "overflow": s[1],
        "underflow": s[2],
        "factor": mean(s, "factor"),
        "gm_dev": mean(s, "gm_dev"),
        "per_table": {str(p): both[s][p] for p in loads},
    }


#: §V-C's three layouts side by side: the k-d tree with its buckets' point copies,
#: without (leaf scans read rows of P, as the Z-order does), and the Z-order index
LAYOUTS = {
    "kdtree_copies": ("kdtree", {}),
    "kdtree_no_copies": ("kdtree", {"point_copies": False}),
    "zorder": ("zorder", {}),
}


def bench_layout(sizes, dims, log=print, seed: int = 2, repeats: int = 3) -> dict:
    """§V-C's k-d tree against Z-order with the same data layout: G_1 at p = 15% (as
    :func:`bench_indexes`) through the numba command loop over the k-d tree with point
    copies in its buckets, the k-d tree without them (leaf scans read rows of ``P``, as
    the Z-order's do) and the Z-order index, in one process, alternating (the order
    rotates every repeat), after a compiling run of each.  Per stream and layout:
    least and median CPU time (``time.process_time``) of ``repeats`` runs, microseconds
    of CPU per command (least), nodes visited and point comparisons (the same in every
    run, and the same for both k-d trees); and the ratios of least CPU."""
    sizes = _check_ints("sizes", sizes, 1)
    dims = _check_ints("dims", dims, 2, 16)
    if any(D % 2 for D in dims):
        raise InputError(f"dims must be even (2 coordinates per attribute), got {list(dims)}")
    if isinstance(repeats, bool) or int(repeats) != repeats or repeats < 1:
        raise InputError(f"repeats must be an integer >= 1, got {repeats!r}")
    warm = command_stream(300, 2, 0.15, seed=seed, bits=BITS)
    for index, extra in LAYOUTS.values():  # compile (or load) each layout's kernels
        make_graph("gk", 2, index, k=1, **index_params(index), **extra).run_commands(
            warm.op, warm.sid, warm.lo, warm.hi
        )
    names = list(LAYOUTS)
    res: dict = {"p": 0.15, "graph": "G_1", "seed": seed, "repeats": int(repeats), "runs": {}}
    for D in dims:
        for n in sizes:
            cs = command_stream(n, D // 2, 0.15, seed=seed, bits=BITS)
            cpu: dict = {v: [] for v in names}
            work: dict = {}
            for rep in range(int(repeats)):
                for v in names[rep % len(names) :] + names[: rep % len(names)]:
                    index, extra = LAYOUTS[v]
                    g = make_graph("gk", cs.d, index, k=1, **index_params(index), **extra)
                    c = time.process_time()
                    g.run_commands(cs.op, cs.sid, cs.lo, cs.hi)
                    cpu[v].append(time.process_time() - c)
                    st = g.stats()
                    w = tuple(
                        sum(st[o][f] for o in st)
                        for f in ("queries", "nodes_visited", "point_comparisons")
                    )
                    if work.setdefault(v, w) != w:
                        raise AssertionError(f"{v}: counts differ between runs: {w} {work[v]}")
            if work["kdtree_copies"] != work["kdtree_no_copies"]:
                raise AssertionError(f"k-d tree counts differ with and without copies: {work}")
            row: dict = {"D": D, "commands": n}
            for v in names:
                row[v] = {
                    "cpu_s": min(cpu[v]),
                    "cpu_s_median": statistics.median(cpu[v]),
                    "cpu_s_runs": cpu[v],
                    "us_per_command": min(cpu[v]) * 1e6 / n,
                    "queries": work[v][0],
                    "nodes_visited": work[v][1],
                    "point_comparisons": work[v][2],
                }
            least = {v: row[v]["cpu_s"] for v in names}
            row["zorder_over_kdtree_copies"] = least["zorder"] / least["kdtree_copies"]
            row["zorder_over_kdtree_no_copies"] = least["zorder"] / least["kdtree_no_copies"]
            row["no_copies_over_copies"] = least["kdtree_no_copies"] / least["kdtree_copies"]
            res["runs"][f"D={D}/n={n}"] = row
            us = [row[v]["us_per_command"] for v in names]
            log(
                f"layout D={D} n={n}: us/command k-d copies {us[0]:.2f}, no copies "
                f"{us[1]:.2f}, Z-order {us[2]:.2f}; Z-order / k-d "
                f"{row['zorder_over_kdtree_copies']:.2f} (copies), "
                f"{row['zorder_over_kdtree_no_copies']:.2f} (none)"
            )
    return res


def bench_indexes(
    sizes, dims, log, seed: int = 2, naive_max: int | None = None, naive_dims=()
) -> dict:
    """§V-C: p = 15%, run time of naive, k-d tree, Z-order under G_1, each stream in
    one call of the numba command loop.  The naive scan runs up to ``naive_max``
    commands, and at every size for the dimensions in ``naive_dims``."""
    res = {}
    warm = command_stream(200, 1, 0.15, seed=seed, bits=BITS)
    for index in ("naive", "kdtree", "zorder"):  # compile (or load) the kernels first
        run_stream(warm, index, "gk", 1, **index_params(index))
    for D in dims:
        for n in sizes:
            cs = command_stream(n, D // 2, 0.15, seed=seed, bits=BITS)
            for index in ("naive", "kdtree", "zorder"):
                if (
                    index == "naive"
                    and naive_max is not None
                    and n > naive_max
                    and D not in naive_dims
                ):
                    continue
                r = run_stream(cs, index, "gk", 1, **index_params(index))
                res[f"D={D}/n={n}/{index}"] = r
                log(
                    f"V-C D={D} n={n} {index}: {r['time_s']:.2f}s "
                    f"{r['commands_per_s']:.0f}/s nv={r['total_nodes_visited']} "
                    f"pc={r['total_point_comparisons']}"
                )
    return res


def bench_graph_kinds(n: int, log, seed: int = 3) -> dict:
    """G_1..G_6, G and the poset on one stream: total covering work (the 2-approx claim)."""
    res = {}
    for p in (0.05, 0.15, 0.4):
        cs = command_stream(n, 4, p, seed=seed, bits=BITS)
        for kind, k in [("gk", k) for k in KS] + [("full", 1), ("poset", 1)]:
            r = run_stream(cs, "kdtree", kind, k, **index_params("kdtree"))
            name = f"G_{k}" if kind == "gk" else kind
            res[f"p={p}/{name}"] = r
            log(
                f"graphs p={p} {name}: q={r['total_queries']} nv={r['total_nodes_visited']} "
                f"pc={r['total_point_comparisons']} {r['time_s']:.1f}s"
            )
    return res
