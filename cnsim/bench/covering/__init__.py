"""Covering detection benchmark: seed 001 §V-B (Tables I-II, Figure 9) and §V-C
(Figures 10-12).

``cnsim bench covering [--quick | --full] [--json FILE]`` (the full form is also the
default).  Every run feeds one seed-001 command stream
(``cnsim.subscriptions.covering.workload``) through one relation graph's Python API
(``subscribe`` / ``unsubscribe``, as the overlay will call it), so the times include the
graph's bookkeeping, not only the index.  The sweeps are :mod:`.streams`', the paper's
tables and targets :mod:`.paper`'s, the overlay's :mod:`.overlay`, the k-d tree's
breakdown :mod:`.speed`'s; ``covering_overlay`` (:mod:`.overlay_probe`) and
``covering_speed`` (:mod:`.speed_ab`) are entries of their own.
"""

from __future__ import annotations

import os
import time

import numpy as np

from cnsim.bench import provenance
from cnsim.bench.covering.overlay import bench_overlay
from cnsim.bench.covering.paper import KS, PAPER, targets
from cnsim.bench.covering.speed import bench_speed
from cnsim.bench.covering.streams import (
    BITS,
    bench_graph_kinds,
    bench_indexes,
    bench_reporting_mode,
    bench_sensitivity,
    index_params,
    run_stream,
)
from cnsim.subscriptions.covering.kdtree import OVERFLOW, UNDERFLOW
from cnsim.subscriptions.covering.workload import command_stream


def run_bench(quick: bool = False, full: bool = False, overlay: bool = True) -> dict:
    """Every section at the size form's sizes (``overlay``: with the overlay's)."""
    t0 = time.perf_counter()

    def log(msg: str) -> None:
        print(f"[{time.perf_counter() - t0:7.1f}s] {msg}", flush=True)

    if quick:
        n_vb, ks, sizes, dims, n_graphs = 6000, (1, 2, 6), (2000, 10000), (6, 16), 3000
    else:
        sizes, dims = (10000, 50000, 100000), (6, 8, 10, 12, 14, 16)  # §V-C's range
        n_vb, ks, n_graphs = 60000, KS, 20000
    res = {
        **provenance("covering", quick, full),
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
