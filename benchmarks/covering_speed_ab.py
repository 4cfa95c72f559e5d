"""G_1's command loop at D dimensions, k-d tree then Z-order in one process (issue 12;
RESULTS.md, "where the k-d tree's time goes"): three runs each, the first (compiling)
dropped, the least CPU kept; prints one JSON line.  Run it alternately from two copies
of the code (PYTHONPATH) to compare them side by side.

Usage: python benchmarks/covering_speed_ab.py N D LABEL [INDEXES]  (default kdtree,zorder;
naive too: kdtree,zorder,naive)
"""

import json
import sys
import time

from cnsim.bench.covering import index_params
from cnsim.subscriptions.covering import make_graph
from cnsim.subscriptions.covering.workload import command_stream


def main(n: int, D: int, label: str, indexes=("kdtree", "zorder")) -> dict:
    """Time G_1 over the k-d tree and Z-order on seed 001's stream (p = 15%, seed 2)."""
    cs = command_stream(n, D // 2, 0.15, seed=2, bits=10)
    out: dict = {"label": label, "n": n, "D": D}
    for rep in range(3):
        for index in indexes:
            g = make_graph("gk", cs.d, index, k=1, **index_params(index))
            t, c = time.perf_counter(), time.process_time()
            g.run_commands(cs.op, cs.sid, cs.lo, cs.hi)
            dt, dc = time.perf_counter() - t, time.process_time() - c
            s = g.stats()
            work = [
                sum(s[o][k] for o in s) for k in ("queries", "nodes_visited", "point_comparisons")
            ]
            if rep == 0:
                continue  # compiling (or loading the cache)
            if index not in out or dc < out[index]["cpu_s"]:
                out[index] = {"time_s": dt, "cpu_s": dc, "work": work}
    return out


if __name__ == "__main__":
    idx = tuple(sys.argv[4].split(",")) if len(sys.argv) > 4 else ("kdtree", "zorder")
    print(json.dumps(main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], idx)), flush=True)
