"""``cnsim bench sweep``: the same 16-run sweep serially and on Spark ``local[2]``.

Reports the serial wall time, the Spark session start-up, the Spark sweep wall time
(worker start-up, imports and numba cache loads included) and the speed-ups with and
without the session start-up; checks that both give identical rows (timing columns
aside). Target: a speed-up of at least 1.6x on 2 cores. The serial side is warmed up
first (imports, numba caches), so the comparison does not flatter Spark.
"""

from __future__ import annotations

import os
import platform
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from cnsim.bench import provenance
from cnsim.simulations.sweep import expand, read_results, run_sweep, spark_session, stop_spark

TARGET = 1.6
MASTER = "local[2]"


def sweep_document(quick: bool) -> dict[str, Any]:
    """The benchmark sweep: 4 subscription counts × 4 values of k = 16 runs."""
    counts = [20_000, 40_000, 60_000, 80_000] if quick else [100_000, 200_000, 300_000, 400_000]
    return {
        "seed": 1,
        "objects": {"count": 2_000 if quick else 10_000},
        "subscriptions": {"count": counts[0], "k": 10},
        "events": {"count": 200 if quick else 1_000},
        "algorithm": {"approaches": ["paint-dense", "paint-sparse", "unicast"]},
        "overlay": {"kind": "ideal"},
        "sweep": {
            "name": "bench-quick" if quick else "bench",
            "seed": 7,
            "grid": {"subscriptions.count": counts, "subscriptions.k": [1, 5, 10, 20]},
        },
    }


def _warm_up() -> None:
    """Imports and numba caches loaded in this process before the serial timing."""
    doc = sweep_document(quick=True)
    doc["subscriptions"]["count"], doc["events"]["count"] = 1_000, 10
    doc["sweep"]["grid"] = {"subscriptions.k": [2]}
    with tempfile.TemporaryDirectory() as tmp:
        run_sweep(expand(doc, "<warm-up>"), tmp, serial=True, progress=False)


def _identical(a: pd.DataFrame, b: pd.DataFrame) -> bool:
    cols = [c for c in a.columns if not c.endswith("time_s")]
    try:
        pd.testing.assert_frame_equal(a[cols], b[cols])
    except AssertionError:
        return False
    return True


def run_bench(quick: bool = False, full: bool = False) -> dict[str, Any]:
    """Time the benchmark sweep serially and on Spark ``local[2]``; the results dict."""
    sweep = expand(sweep_document(quick), "<bench>")
    _warm_up()
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        serial = run_sweep(sweep, Path(tmp) / "serial", serial=True, progress=False)
        serial_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        spark = spark_session(MASTER, app_name="cnsim-bench-sweep")
        start_s = time.perf_counter() - t0
        try:
            t0 = time.perf_counter()
            on_spark = run_sweep(sweep, Path(tmp) / "spark", spark=spark, progress=False)
            spark_s = time.perf_counter() - t0
        finally:
            stop_spark(spark)
        rows_serial = read_results(Path(tmp) / "serial")
        rows_spark = read_results(Path(tmp) / "spark")
    # Sum of the runs' own wall times: if Spark's is much larger than serial's, the
    # workers were starved of CPU (a shared machine), not slowed by Spark overheads.
    per_run = {
        name: float(rows.drop_duplicates("run_id")["total_time_s"].sum())
        for name, rows in (("serial", rows_serial), ("spark", rows_spark))
    }
    speedup = serial_s / spark_s
    headline = {
        "runs": len(sweep.runs),
        "serial_s": round(serial_s, 2),
        "spark_start_s": round(start_s, 2),
        "spark_sweep_s": round(spark_s, 2),
        "speedup": round(speedup, 2),
        "speedup_with_start": round(serial_s / (spark_s + start_s), 2),
        "target": TARGET,
        "target_met": speedup >= TARGET,
        "identical_rows": _identical(rows_serial, rows_spark),
        "sum_run_s_serial": round(per_run["serial"], 2),
        "sum_run_s_spark": round(per_run["spark"], 2),
        "load_avg_1min_before_after": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "failed_runs": len(serial.failed) + len(on_spark.failed),
    }
    return {
        "provenance": provenance("sweep", quick, full),
        "headline": headline,
        "quick": quick,
        "master": MASTER,
        "sweep": sweep_document(quick),
        "machine": {"platform": platform.platform(), "python": platform.python_version()},
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
    }
