"""The covering benchmark's harness over seed 001's command streams
(:mod:`cnsim.subscriptions.covering.workload`): one stream through one relation graph
(:func:`run_stream`), and the §V-B / §V-C sweeps built on it."""

from __future__ import annotations

import time

from cnsim.bench.covering.paper import KS, table_row
from cnsim.subscriptions.covering import make_graph
from cnsim.subscriptions.covering.kdtree import OVERFLOW
from cnsim.subscriptions.covering.workload import UNSUBSCRIBE, command_stream

BITS = 10  # attribute domain [0, 2**BITS - 1]


def index_params(index: str, bits: int = BITS, overflow: int = OVERFLOW) -> dict:
    if index == "kdtree":
        return {"overflow": overflow, "underflow": max(1, overflow // 4)}
    if index == "zorder":
        return {"low": 0.0, "high": float(2**bits - 1)}
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


def bench_sensitivity(n: int, ks, log, seed: int = 1) -> dict:
    """How Table I moves with the bucket limits and the attribute domain (k-d tree)."""
    res = {}
    for p in (0.05, 0.4):
        for overflow in (16, 32, 64, 128):
            cs = command_stream(n, 5, p, seed=seed, bits=BITS)
            for k in ks:
                r = run_stream(cs, "kdtree", "gk", k, **index_params("kdtree", overflow=overflow))
                r["table"] = table_row(r)
                res[f"p={p}/overflow={overflow}/bits={BITS}/k={k}"] = r
                log(f"sens p={p} overflow={overflow} k={k}: {r['table']}")
        for bits in (4, 6, 16):
            cs = command_stream(n, 5, p, seed=seed, bits=bits)
            for k in ks:
                r = run_stream(cs, "kdtree", "gk", k, **index_params("kdtree"))
                r["table"] = table_row(r)
                res[f"p={p}/overflow={OVERFLOW}/bits={bits}/k={k}"] = r
                log(f"sens p={p} bits={bits} k={k}: {r['table']}")
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
