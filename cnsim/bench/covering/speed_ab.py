"""``cnsim bench covering_speed``: G_1's command loop at D dimensions, k-d tree then
Z-order (and the naive scan if asked) in one process (RESULTS.md, "where the k-d tree's
time goes"): three runs each, the first (compiling) dropped, the least CPU kept.  Run it
alternately from two copies of the code (``PYTHONPATH``) to compare them side by side;
the published comparison is ``--n 100000 --dims 16`` (benchmarks/covering_speed.json).
"""

from __future__ import annotations

import time

from cnsim.bench import provenance
from cnsim.bench.covering.streams import index_params
from cnsim.subscriptions.covering import make_graph
from cnsim.subscriptions.covering.workload import command_stream

#: the size forms: ``--full`` (also the default) and ``--quick``
FULL = {"n": 100_000, "dims": 16}
QUICK = {"n": 2_000, "dims": 8}
INDEXES = ("kdtree", "zorder")


def run_g1(cs, index: str):
    """G_1 over ``index`` runs the command stream ``cs`` through its numba command loop:
    ``(wall s, CPU s, [queries, nodes visited, point comparisons], the graph)``."""
    g = make_graph("gk", cs.d, index, k=1, **index_params(index))
    t, c = time.perf_counter(), time.process_time()
    g.run_commands(cs.op, cs.sid, cs.lo, cs.hi)
    dt, dc = time.perf_counter() - t, time.process_time() - c
    s = g.stats()
    work = [sum(s[o][k] for o in s) for k in ("queries", "nodes_visited", "point_comparisons")]
    return dt, dc, work, g


def measure(n: int, D: int, indexes=INDEXES) -> dict:
    """Time G_1 over the given indexes on seed 001's stream (p = 15%, seed 2)."""
    cs = command_stream(n, D // 2, 0.15, seed=2, bits=10)
    out: dict = {"n": n, "D": D}
    for rep in range(3):
        for index in indexes:
            dt, dc, work, _ = run_g1(cs, index)
            if rep == 0:
                continue  # compiling (or loading the cache)
            if index not in out or dc < out[index]["cpu_s"]:
                out[index] = {"time_s": dt, "cpu_s": dc, "work": work}
    return out


def run_bench(
    quick: bool = False,
    full: bool = False,
    n: int | None = None,
    dims: int | None = None,
    indexes: list[str] | None = None,
) -> dict:
    """:func:`measure` at the size form's sizes (or those given)."""
    form = QUICK if quick else FULL
    res = measure(form["n"] if n is None else n, form["dims"] if dims is None else dims,
                  tuple(INDEXES if indexes is None else indexes))  # fmt: skip
    given = {"n": n, "dims": dims, "indexes": indexes}
    res["provenance"] = provenance("covering_speed", quick, full, given)
    res["headline"] = {f"{index} cpu_s": res[index]["cpu_s"] for index in res if index in INDEXES
                       or index == "naive"}  # fmt: skip
    return res
