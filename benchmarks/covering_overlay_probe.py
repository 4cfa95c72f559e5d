"""The content-based overlay on the paper's world at one size (issue 12; RESULTS.md,
"Covering overlay at paper scale ..."): N commands of seed 001's stream (p = 15%) over
D attributes, N // 10 events, the given coverings, through ``bench_overlay``; writes
the rows and the peak resident memory.

Usage: python benchmarks/covering_overlay_probe.py N D none,g1,poset OUT.json
"""

import json
import resource
import sys
import time

from cnsim.bench.covering import bench_overlay

if __name__ == "__main__":
    n, out = int(sys.argv[1]), sys.argv[4]
    dims = tuple(int(x) for x in sys.argv[2].split(","))
    coverings = tuple(sys.argv[3].split(","))
    res = bench_overlay(
        False,
        lambda m: print(time.strftime("%H:%M:%S"), m, flush=True),
        net={"ip_nodes": 20000, "brokers": 1000},
        commands=n,
        events=n // 10,
        dims=dims,
        coverings=coverings,
        engines=False,
        relax=False,
    )
    res["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print("peak MB", res["peak_rss_mb"])
    with open(out, "w") as f:
        json.dump(res, f, indent=1, default=float)
