"""``cnsim bench covering_overlay``: the content-based overlay on the paper's world at
one size (RESULTS.md, "Covering overlay at paper scale ..."): N commands of seed 001's
stream (p = 15%) over D attributes, N // 10 events, the given coverings, through
:func:`.overlay.bench_overlay`; the rows and the peak resident memory.  The published
runs: ``--commands 30000 --dims 4 --coverings none,g1,poset``
(benchmarks/covering_overlay_d4.json, ``commands_30000``), and at the paper's size
``--commands 100000 --dims 4`` with ``--coverings none,g1`` then ``poset`` in a second
process (``commands_100000``).
"""

from __future__ import annotations

import resource
import time

from cnsim.bench import provenance
from cnsim.bench.covering.overlay import bench_overlay

#: the paper's world
NETWORK = {"ip_nodes": 20000, "brokers": 1000}
#: the size forms: ``--full`` (also the default; the paper's size) and ``--quick``
FULL = {"commands": 100_000, "dims": [4], "coverings": ["none", "g1", "poset"]}
QUICK = {"commands": 1_000, "dims": [2], "coverings": ["none", "g1"]}
QUICK_NETWORK = {"ip_nodes": 2000, "brokers": 100}


def run_bench(
    quick: bool = False,
    full: bool = False,
    commands: int | None = None,
    dims: list[int] | None = None,
    coverings: list[str] | None = None,
) -> dict:
    """One overlay run per (dims, covering) at the size form's sizes (or those given)."""
    form = QUICK if quick else FULL
    n = form["commands"] if commands is None else commands
    res = bench_overlay(
        False,
        lambda m: print(time.strftime("%H:%M:%S"), m, flush=True),
        net=QUICK_NETWORK if quick else NETWORK,
        commands=n,
        events=n // 10,
        dims=tuple(form["dims"] if dims is None else dims),
        coverings=tuple(form["coverings"] if coverings is None else coverings),
        engines=False,
        relax=False,
    )
    res["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    given = {"commands": commands, "dims": dims, "coverings": coverings}
    res["provenance"] = provenance("covering_overlay", quick, full, given)
    res["headline"] = {
        key: {k: row[k] for k in ("sub_msgs", "unsub_msgs", "routing_entries_mean", "time_s")}
        for key, row in res.items()
        if key.startswith("d=")
    } | {"peak_rss_mb": res["peak_rss_mb"]}
    return res
