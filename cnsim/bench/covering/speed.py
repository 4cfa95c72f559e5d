"""Where the k-d tree's time goes: §V-C's absolute rate at one size, G_1 over the
k-d tree and Z-order side by side, then its counted work times the measured cost of a
node and of a comparison (:func:`bench_speed`)."""

from __future__ import annotations

import time

import numba
import numpy as np

from cnsim.bench.covering.speed_ab import run_g1
from cnsim.bench.covering.streams import BITS
from cnsim.subscriptions.covering.base import qualifies
from cnsim.subscriptions.covering.kdtree import (
    BUCKET,
    LEFT,
    RIGHT,
    _qualifies_row,
    kd_descend,
)
from cnsim.subscriptions.covering.workload import UNSUBSCRIBE, command_stream


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
            dt, cpu, work, g = run_g1(cs, index)
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
            top = kd_descend(nodes, sval, stack, masks, top, v, m, q, True)
    return nv, pc, found
