"""Covering detection benchmark: seed 001 §V-B (Tables I-II, Figure 9) and §V-C
(Figures 10-12).

``cnsim bench covering [--quick | --full] [--json FILE]`` (the full form is also the
default).  Every run feeds one seed-001 command stream
(``cnsim.subscriptions.covering.workload``) through one relation graph's Python API
(``subscribe`` / ``unsubscribe``, as the overlay will call it), so the times include the
graph's bookkeeping, not only the index.  The sweeps are :mod:`.streams`', the paper's
tables and targets :mod:`.paper`'s, the overlay's :mod:`.overlay`, the k-d tree's
breakdown :mod:`.speed`'s; ``covering_overlay`` (:mod:`.overlay_probe`) and
``covering_speed`` (:mod:`.speed_ab`) are entries of their own.  Two sections ask what
the §V-B / §V-C comparisons rest on: ``table_sensitivity``, Tables I-II against the
k-d tree's bucket limits, the attribute domain and the Z-order resolution, with the
setting nearest the paper's figures (:func:`.streams.bench_table_sensitivity`; the
paper's 60,000 commands in the full form, 6,000 and a smaller grid in --quick); and
``layout``, the k-d tree with and without point copies in its buckets beside Z-order,
CPU time per command and counted work at 6, 10 and 16 dimensions
(:func:`.streams.bench_layout`).
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
    SENS_QUICK,
    bench_graph_kinds,
    bench_indexes,
    bench_layout,
    bench_reporting_mode,
    bench_table_sensitivity,
    index_params,
    run_stream,
)
from cnsim.subscriptions.covering.kdtree import OVERFLOW, UNDERFLOW
from cnsim.subscriptions.covering.workload import command_stream

LAYOUT_DIMS = (6, 10, 16)  # bench_layout's dimensions


def run_bench(quick: bool = False, full: bool = False, overlay: bool = True) -> dict:
    """Every section at the size form's sizes (``overlay``: with the overlay's)."""
    t0 = time.perf_counter()

    def log(msg: str) -> None:
        print(f"[{time.perf_counter() - t0:7.1f}s] {msg}", flush=True)

    if quick:
        n_vb, ks, sizes, dims, n_graphs = 6000, (1, 2, 6), (2000, 10000), (6, 16), 3000
        sens = SENS_QUICK
        layout = {"sizes": (5000,), "dims": LAYOUT_DIMS, "repeats": 2}
    else:
        sizes, dims = (10000, 50000, 100000), (6, 8, 10, 12, 14, 16)  # §V-C's range
        n_vb, ks, n_graphs = 60000, KS, 20000
        sens = {}
        layout = {"sizes": (10000, 100000), "dims": LAYOUT_DIMS, "repeats": 3}
    res = {
        **provenance("covering", quick, full),
        "cpus": os.cpu_count(),
        "numpy": np.__version__,
        "settings": {
            "attribute_domain": f"integers 0..{2**BITS - 1}",
            "kdtree_overflow": OVERFLOW,
            "kdtree_underflow": UNDERFLOW,
            "kdtree_point_copies": True,
            "zorder_bits": "60 // D per coordinate (10 dims: 6; 16 dims: 3)",
            "zorder_scan_limit": 8,
        },
    }
    vb = bench_reporting_mode(n_vb, (0.05, 0.4), ks, log)
    res["reporting_mode"] = vb
    res["paper_tables"] = {str(p): rows for p, rows in PAPER.items()}
    # Tables I-II against the settings seed 001 leaves open, every k (supersedes the
    # one-at-a-time "sensitivity" of earlier runs: its settings are in this grid)
    res["table_sensitivity"] = bench_table_sensitivity(n_vb, KS, log, **sens)
    res["graphs"] = bench_graph_kinds(n_graphs, log)
    vc = bench_indexes(sizes, dims, log, naive_max=None if quick else 50000, naive_dims=(16,))
    res["indexes"] = vc
    # the same G_1 stream one Python call per command (the overlay's way), k-d tree
    cs = command_stream(sizes[0], max(dims) // 2, 0.15, seed=2, bits=BITS)
    r = run_stream(cs, "kdtree", "gk", 1, per_command=True, **index_params("kdtree"))
    res["per_command_kdtree"] = {"dims": max(dims), "commands": sizes[0], **r}
    log(f"per-command k-d tree D={max(dims)} n={sizes[0]}: {r['commands_per_s']:.0f}/s")
    res["targets"] = targets(vb, vc, res["graphs"], dims, sizes)
    # §V-C with the same data layout for both indexes: k-d tree with / without copies
    res["layout"] = bench_layout(log=log, **layout)
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
