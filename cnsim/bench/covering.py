"""Covering detection benchmark: seed 001 §V-B (Tables I-II, Figure 9) and §V-C
(Figures 10-12).

``cnsim bench covering [--quick] [--json FILE]``.  Every run feeds one seed-001 command
stream (``cnsim.subscriptions.covering.workload``) through one relation graph's Python
API (``subscribe`` / ``unsubscribe``, as the overlay will call it), so the times
include the graph's bookkeeping, not only the index.
"""

from __future__ import annotations

import os
import time

import numba
import numpy as np

from cnsim.bench import provenance
from cnsim.subscriptions.covering import make_graph
from cnsim.subscriptions.covering.base import qualifies
from cnsim.subscriptions.covering.kdtree import (
    BUCKET,
    DIM,
    LEFT,
    OVERFLOW,
    RIGHT,
    UNDERFLOW,
    _qualifies_row,
)
from cnsim.subscriptions.covering.workload import UNSUBSCRIBE, command_stream

BITS = 10  # attribute domain [0, 2**BITS - 1]
KS = (1, 2, 3, 4, 5, 6)
# seed 001 Tables I and II (k-d tree, thousands): k -> (nv, nvs, nvu, pc, pcs, pcu)
PAPER = {
    0.05: {
        1: (813, 782, 31, 6147, 5993, 154),
        2: (983, 974, 9, 9967, 9852, 115),
        3: (1140, 1131, 9, 13111, 12973, 138),
        4: (1275, 1266, 9, 15816, 15663, 153),
        5: (1400, 1390, 10, 18274, 18111, 163),
        6: (1508, 1498, 10, 20407, 20237, 170),
    },
    0.4: {
        1: (556, 415, 141, 6192, 4684, 1508),
        2: (634, 529, 105, 8952, 7376, 1576),
        3: (714, 615, 99, 11026, 9365, 1661),
        4: (780, 683, 97, 12661, 10936, 1725),
        5: (839, 740, 99, 14050, 12260, 1790),
        6: (889, 789, 100, 15233, 13389, 1844),
    },
}


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


def table_row(r: dict) -> dict:
    """nv, nvs, nvu, pc, pcs, pcu in thousands (the layout of seed 001 Tables I, II)."""
    s, u = r["stats"]["subscribe"], r["stats"]["unsubscribe"]
    vals = (
        s["nodes_visited"] + u["nodes_visited"],
        s["nodes_visited"],
        u["nodes_visited"],
        s["point_comparisons"] + u["point_comparisons"],
        s["point_comparisons"],
        u["point_comparisons"],
    )
    names = ("nv", "nvs", "nvu", "pc", "pcs", "pcu")
    return dict(zip(names, (v / 1000 for v in vals), strict=True))


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


def targets(vb: dict, vc: dict, graphs: dict, dims, sizes) -> dict:
    D, n = max(dims), max(sizes)
    t = {i: vc.get(f"D={D}/n={n}/{i}", {}).get("time_s") for i in ("naive", "kdtree", "zorder")}
    out = {"dims": D, "commands": n, "time_s": t}
    if t["naive"] and t["kdtree"]:
        out["kdtree_vs_naive"] = t["naive"] / t["kdtree"]
        out["kdtree_vs_naive_met (>= 10)"] = out["kdtree_vs_naive"] >= 10
    if t["zorder"] and t["kdtree"]:
        out["kdtree_vs_zorder"] = t["zorder"] / t["kdtree"]
        out["kdtree_vs_zorder_met (>= 2)"] = out["kdtree_vs_zorder"] >= 2
    kd = vc.get(f"D={D}/n={n}/kdtree")
    if kd:
        out["kdtree_commands_per_s"] = kd["commands_per_s"]
        out["kdtree_rate_met (>= 100000)"] = kd["commands_per_s"] >= 100_000
    # G_1 the least total covering work among G_k, for every stream and both indexes
    least = {}
    for key in {k.rsplit("/k=", 1)[0] for k in vb}:
        work = {
            k: vb[f"{key}/k={k}"]["total_point_comparisons"] for k in KS if f"{key}/k={k}" in vb
        }
        least[key] = min(work, key=work.get) == 1
    for p in (0.05, 0.15, 0.4):
        work = {
            k: graphs[f"p={p}/G_{k}"]["total_point_comparisons"]
            for k in KS
            if f"p={p}/G_{k}" in graphs
        }
        if work:
            least[f"p={p}/graphs"] = min(work, key=work.get) == 1
    out["g1_least_work"] = least
    out["g1_least_work_met"] = all(least.values())
    return out


def bench_overlay(quick: bool, log, **sizes) -> dict:
    """The content-based overlay: seed 001's command stream on box
    subscriptions with churn, interleaved with events, covering off and on:
    subscription messages, routing-table entries and covering work; then CN-Relax's
    per-event traffic over the content-based overlay against Meghdoot (seed 003 ranges)."""
    from cnsim.simulations.churn import simulate_churn
    from cnsim.simulations.config import from_dict
    from cnsim.simulations.runner import simulate

    if quick:
        net, commands, events, dims, m = {"ip_nodes": 2000, "brokers": 100}, 3000, 500, (2, 4), 5000
        coverings = ("none", "g1", "poset", "full")
    else:  # the paper's world, 100,000 boxes with churn, 10,000 events
        net, commands, events, dims = {"ip_nodes": 20000, "brokers": 1000}, 100_000, 10_000, (2, 3)
        m = 100_000
        coverings = ("none", "g1", "gk", "full", "poset")  # all in the batch replay
    # explicit sizes (the paper-scale run in RESULTS.md): any of these keys
    net = sizes.get("net", net)
    commands = sizes.get("commands", commands)
    events = sizes.get("events", events)
    dims = sizes.get("dims", dims)
    m = sizes.get("m", m)
    coverings = sizes.get("coverings", coverings)
    relax_covering = sizes.get("relax_covering", "g1")  # event traffic: the same for all
    covering_k = sizes.get("covering_k", 3)  # G_k's k when "gk" is among the coverings
    res: dict = {"network": net, "commands": commands, "events": events, "churn": 0.15}
    if sizes.get("engines", True):
        res["engines"] = bench_engines(net, log, **sizes.get("engine_sizes", {}))
    # worlds come from (and go to) the user's cache (CNSIM_CACHE)
    for d in dims:
        for covering in coverings:
            sc = from_dict(
                {
                    "seed": 1,
                    "subscriptions": {"count": commands, "churn": 0.15, "attributes": d},
                    "events": {"count": events},
                    "network": net,
                    "overlay": {
                        "kind": "content-based",
                        "covering": covering,
                        "covering_k": covering_k if covering == "gk" else 1,
                    },
                    "algorithm": {"approaches": ["cn-relax"]},
                    "run": {"progress": False},
                }
            )
            t, cpu = time.perf_counter(), time.process_time()
            r = simulate_churn(sc)
            tot, ev = r.summary["totals"], r.events
            row = {
                **{k: tot[k] for k in ("sub_msgs", "unsub_msgs", "withdrawals")},
                "routing_entries_mean": r.summary["routing_entries_per_broker_mean"],
                "routing_entries_max": tot["routing_entries_max"],
                "covering_queries": tot["covering_sub_queries"] + tot["covering_unsub_queries"],
                "covering_point_comparisons": tot["covering_sub_point_comparisons"]
                + tot["covering_unsub_point_comparisons"],
                "event_overlay_bytes_mean": float(ev["overlay_bytes"].mean()),
                "delivered_mean": float(ev["delivered_msgs"].mean()),
                "time_s": time.perf_counter() - t,
                "cpu_s": time.process_time() - cpu,
            }
            res[f"d={d}/{covering}"] = row
            log(
                f"overlay d={d} {covering}: sub={row['sub_msgs']} unsub={row['unsub_msgs']} "
                f"entries mean={row['routing_entries_mean']:.1f} "
                f"max={row['routing_entries_max']} {row['time_s']:.1f}s"
            )
    for kind in ("content-based", "meghdoot") if sizes.get("relax", True) else ():
        sc = from_dict(
            {
                "seed": 1,
                "objects": {"count": 10_000},
                "subscriptions": {"count": m, "k": 10},
                "events": {"count": events},
                "network": net,
                "overlay": {"kind": kind, "covering": relax_covering},
                "algorithm": {"approaches": ["cn-relax"]},
                "run": {"progress": False},
            }
        )
        t = time.perf_counter()
        frame = simulate(sc).events
        cols = ("delivered_msgs", "overlay_bytes", "ip_bytes", "last_hop_ip_bytes")
        row = {c: float(frame[c].mean()) for c in cols}
        row["time_s"] = time.perf_counter() - t
        res[f"cn-relax/{kind}"] = row
        log(f"cn-relax over {kind}: {row}")
    return res


def bench_engines(
    net: dict, log, commands: int = 2000, events: int = 200, d: int = 2, covering: str = "g1"
) -> dict:
    """Churn replay by the reference brokers (one message at a time) and by the batch
    replay, side by side on one scenario (G_1, k-d tree): seconds each, their ratio,
    and whether every row (``match_*`` aside) is the same."""
    from cnsim.simulations.churn import ChurnRun
    from cnsim.simulations.config import from_dict

    sc = from_dict(
        {
            "seed": 1,
            "subscriptions": {"count": commands, "churn": 0.15, "attributes": d},
            "events": {"count": events},
            "network": net,
            "overlay": {"kind": "content-based", "covering": covering},
            "algorithm": {"approaches": ["cn-relax"]},
            "run": {"progress": False},
        }
    )
    list(ChurnRun(churn_warmup(net), engine="batch").rows())  # load the world, compile
    out: dict = {"commands": commands, "events": events, "d": d, "covering": covering}
    rows = {}
    for engine in ("batch", "reference", "batch"):
        t = time.perf_counter()
        run = ChurnRun(sc, engine=engine)
        rows[engine] = [{k: v for k, v in r.items() if not k.startswith("match_")}
                        for r in run.rows()]  # fmt: skip
        out[f"{engine}_s"] = time.perf_counter() - t  # the second batch run counts
    out["speedup"] = out["reference_s"] / out["batch_s"]
    out["rows_equal"] = rows["batch"] == rows["reference"]
    log(f"engines: reference {out['reference_s']:.1f}s batch {out['batch_s']:.2f}s "
        f"({out['speedup']:.0f}x), rows equal: {out['rows_equal']}")  # fmt: skip
    return out


def churn_warmup(net: dict):
    """A tiny churn scenario on ``net`` (compiles the kernels, loads the world)."""
    from cnsim.simulations.config import from_dict

    return from_dict(
        {
            "seed": 1,
            "subscriptions": {"count": 50, "churn": 0.2, "attributes": 2},
            "events": {"count": 5},
            "network": net,
            "overlay": {"kind": "content-based", "covering": "g1"},
            "algorithm": {"approaches": ["cn-relax"]},
            "run": {"progress": False},
        }
    )


def run_bench(quick: bool = False, overlay: bool = True) -> dict:
    t0 = time.perf_counter()

    def log(msg: str) -> None:
        print(f"[{time.perf_counter() - t0:7.1f}s] {msg}", flush=True)

    if quick:
        n_vb, ks, sizes, dims, n_graphs = 6000, (1, 2, 6), (2000, 10000), (6, 16), 3000
    else:
        sizes, dims = (10000, 50000, 100000), (6, 8, 10, 12, 14, 16)  # §V-C's range
        n_vb, ks, n_graphs = 60000, KS, 20000
    res = {
        **provenance("covering", quick),
        "cpus": os.cpu_count(),
        "numpy": np.__version__,
        "settings": {
            "attribute_domain": f"integers 0..{2**BITS - 1}",
            "kdtree_overflow": OVERFLOW,
            "kdtree_underflow": UNDERFLOW,
            "zorder_bits": "60 // D per coordinate (10 dims: 6; 16 dims: 3)",
            "zorder_scan_limit": 8,
        },
    }
    vb = bench_reporting_mode(n_vb, (0.05, 0.4), ks, log)
    res["reporting_mode"] = vb
    res["paper_tables"] = {str(p): rows for p, rows in PAPER.items()}
    res["sensitivity"] = bench_sensitivity(n_vb, (1, 6) if not quick else (1,), log)
    res["graphs"] = bench_graph_kinds(n_graphs, log)
    vc = bench_indexes(sizes, dims, log, naive_max=None if quick else 50000, naive_dims=(16,))
    res["indexes"] = vc
    # the same G_1 stream one Python call per command (the overlay's way), k-d tree
    cs = command_stream(sizes[0], max(dims) // 2, 0.15, seed=2, bits=BITS)
    r = run_stream(cs, "kdtree", "gk", 1, per_command=True, **index_params("kdtree"))
    res["per_command_kdtree"] = {"dims": max(dims), "commands": sizes[0], **r}
    log(f"per-command k-d tree D={max(dims)} n={sizes[0]}: {r['commands_per_s']:.0f}/s")
    res["targets"] = targets(vb, vc, res["graphs"], dims, sizes)
    # the absolute rate at the largest size and dimension, and where the k-d tree's time goes
    res["speed"] = bench_speed(sizes[-1], max(dims), log)
    if overlay:
        res["overlay"] = bench_overlay(quick, log)
    res["wall_s"] = time.perf_counter() - t0
    res["headline"] = res["targets"]
    return res


def json_default(o):
    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return float(o)
    if isinstance(o, np.bool_):
        return bool(o)
    raise TypeError(type(o))


def bench_speed(n: int = 100_000, D: int = 16, log=print, repeats: int = 2, seed: int = 2) -> dict:
    """§V-C's absolute rate at ``D`` dimensions: G_1 through
    the numba command loop over the k-d tree and the Z-order index, side by side in one
    process (alternating, best of ``repeats``), then where the k-d tree's time goes —
    its counted work (queries, nodes visited, point comparisons) times the cost of one
    node and one comparison measured on this machine:

    * ``ns_per_node`` and ``ns_per_comparison``: every subscribe point of the stream
      queried against the final tree without the early stop (``_walk``: kd_query's
      search for all coverers), once with the leaf tests and once with the tests left
      out; the second is the nodes' time, the difference the comparisons' (process
      time, in place: the same buckets in the same order as the real queries);
    * ``ns_per_comparison_scan`` / ``_gathered``: the leaf test over every bucket of
      the final tree in its stored layout (``bpt``) and reading each point's row of
      ``P`` by slot instead (the layout without points in the buckets, and Z-order's);
    * the run's time left over (insert with splits, delete with merges, the graph)."""
    from cnsim.subscriptions.covering.kdtree import kd_query

    cs = command_stream(n, D // 2, 0.15, seed=seed, bits=BITS)
    res: dict = {"commands": n, "D": D, "p": 0.15, "seed": seed, "runs": {}}
    best: dict = {}
    for rep in range(repeats):
        for index in ("kdtree", "zorder"):
            g = make_graph("gk", cs.d, index, k=1, **index_params(index))
            t, cpu = time.perf_counter(), time.process_time()
            g.run_commands(cs.op, cs.sid, cs.lo, cs.hi)
            dt, cpu = time.perf_counter() - t, time.process_time() - cpu
            s = g.stats()
            work = [sum(s[o][c] for o in s) for c in ("queries", "nodes_visited",
                                                       "point_comparisons")]  # fmt: skip
            res["runs"][f"{index}/{rep}"] = {"time_s": dt, "cpu_s": cpu, "commands_per_s": n / dt}
            log(f"speed D={D} n={n} {index} run {rep}: {dt:.2f}s {n / dt:.0f}/s")
            if index not in best or dt < best[index]["time_s"]:
                best[index] = {"time_s": dt, "cpu_s": cpu, "commands_per_s": n / dt,
                               "commands_per_cpu_s": n / cpu, "queries": work[0],
                               "nodes_visited": work[1], "point_comparisons": work[2]}  # fmt: skip
                if index == "kdtree":
                    tree = g.index
    res["best"] = best
    res["kdtree_over_zorder"] = best["zorder"]["time_s"] / best["kdtree"]["time_s"]
    # ---- where the k-d tree's time goes
    sub = cs.op != UNSUBSCRIBE
    qs = np.empty((int(sub.sum()), D))
    qs[:, 0::2] = -cs.lo[cs.sid[sub]]
    qs[:, 1::2] = cs.hi[cs.sid[sub]]
    live = np.flatnonzero(tree.alive)
    buckets = np.array(_leaf_buckets(tree.nodes), np.int64)
    n_q = min(len(qs), 2000)  # 2,000 queries x every live point
    st = tree.st
    _scan(st, tree.seq, qs[:1], buckets[:1], False, tree.P)  # compile
    _scan(st, tree.seq, qs[:1], buckets[:1], True, tree.P)
    t = time.process_time()
    c1, h1 = _scan(st, tree.seq, qs[:n_q], buckets, False, tree.P)
    ns_pc_scan = (time.process_time() - t) * 1e9 / c1
    t = time.process_time()
    c2, h2 = _scan(st, tree.seq, qs[:n_q], buckets, True, tree.P)
    ns_pc_g = (time.process_time() - t) * 1e9 / c2
    assert c1 == c2 == n_q * len(live) and h1 == h2, (c1, c2, h1, h2)
    out = np.empty(tree.capacity + 1, np.int64)
    _replay(kd_query, st, tree.P, tree.seq, qs[:2], out, tree.capacity)  # compile
    nq, nv_all, pc_all = _replay(kd_query, st, tree.P, tree.seq, qs, out, tree.capacity)
    _walk(st, tree.seq, qs[:2], True)
    _walk(st, tree.seq, qs[:2], False)
    t = time.process_time()
    nv1, pc1, hits = _walk(st, tree.seq, qs, True)
    t_with = time.process_time() - t
    t = time.process_time()
    nv0, pc0, _ = _walk(st, tree.seq, qs, False)
    t_without = time.process_time() - t
    # the walk is kd_query's search: the same counts as kd_query asked for every coverer
    assert (nv0, pc0) == (nv1, pc1) == (nv_all, pc_all), (nv0, pc0, nv1, pc1, nv_all, pc_all)
    ns_nv = t_without * 1e9 / nv1
    ns_pc = max(t_with - t_without, 0.0) * 1e9 / pc1
    kb = best["kdtree"]
    t_cmp = kb["point_comparisons"] * ns_pc * 1e-9
    t_nodes = kb["nodes_visited"] * ns_nv * 1e-9
    res["where"] = {
        "ns_per_comparison": ns_pc,
        "ns_per_node": ns_nv,
        "ns_per_comparison_scan": ns_pc_scan,
        "ns_per_comparison_gathered": ns_pc_g,
        "walk": {
            "queries": nq,
            "nodes_visited": nv1,
            "point_comparisons": pc1,
            "coverers_found": hits,
            "cpu_s_with_tests": t_with,
            "cpu_s_without_tests": t_without,
        },  # fmt: skip
        "comparisons_per_command": kb["point_comparisons"] / n,
        "nodes_per_command": kb["nodes_visited"] / n,
        "comparisons_s": t_cmp,
        "nodes_s": t_nodes,
        "rest_s": kb["cpu_s"] - t_cmp - t_nodes,
        "live_at_end": len(live),
    }
    log(f"where: {res['where']}")
    return res


def _leaf_buckets(nodes) -> list[int]:
    """The buckets of the tree's leaves, depth first from the root (right child first)."""
    out, stack = [], [0]
    while stack:
        v = stack.pop()
        if nodes[v, BUCKET] >= 0:
            out.append(int(nodes[v, BUCKET]))
        else:
            stack += [int(nodes[v, LEFT]), int(nodes[v, RIGHT])]
    return out


@numba.njit(cache=True)
def _scan(st, seq, qs, buckets, gathered, P):
    """Every query against every point of ``buckets`` with the leaf scan's test
    (``covering``, ties included), reading the bucket's copy or, if ``gathered``, the
    slot's row of ``P``; (comparisons, matches)."""
    bkt, bsize, bpt = st[2], st[3], st[11]
    c = 0
    hits = 0
    for i in range(qs.shape[0]):
        q = qs[i]
        for b in buckets:
            for j in range(bsize[b]):
                s = bkt[b, j]
                c += 1
                if gathered:
                    ok = qualifies(P, s, q, seq, 2**62, True)
                else:
                    ok = _qualifies_row(bpt, b, j, s, q, seq, 2**62, True)
                if ok:
                    hits += 1
    return c, hits


@numba.njit(cache=True)
def _replay(query, st, P, seq, qs, out, k=1):
    """Every point of ``qs`` as a ``cov_k`` query (ties included); counted work."""
    nv = 0
    pc = 0
    for i in range(qs.shape[0]):
        _, a, b = query(st, P, seq, qs[i], 2**62, k, True, out)
        nv += a
        pc += b
    return qs.shape[0], nv, pc


@numba.njit(cache=True)
def _walk(st, seq, qs, tests):
    """``kd_query``'s covering search (``up``, every coverer: no early stop) for every
    point of ``qs``, with the leaf tests or, if not ``tests``, without them (the same
    nodes and the same points counted); (nodes visited, point comparisons, found)."""
    nodes, sval, bkt, bsize, stack, masks, bpt = st[0], st[1], st[2], st[3], st[9], st[10], st[11]
    nv = 0
    pc = 0
    found = 0
    for r in range(qs.shape[0]):
        q = qs[r]
        full = (1 << q.shape[0]) - 1
        top = 1
        stack[0] = 0
        masks[0] = 0
        while top > 0:
            top -= 1
            v = stack[top]
            m = masks[top]
            nv += 1
            b = nodes[v, BUCKET]
            if b >= 0:
                n = bsize[b]
                if m == full:
                    found += n
                elif tests:
                    for i in range(n):
                        pc += 1
                        if _qualifies_row(bpt, b, i, bkt[b, i], q, seq, 2**62, True):
                            found += 1
                else:
                    pc += n
                continue
            j = nodes[v, DIM]
            x = sval[v]
            if x >= q[j]:
                stack[top] = nodes[v, LEFT]
                masks[top] = m
                top += 1
                masks[top] = m | (1 << j)
            else:
                masks[top] = m
            stack[top] = nodes[v, RIGHT]
            top += 1
    return nv, pc, found
