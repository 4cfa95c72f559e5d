"""``cnsim bench partitions``: one run spread over Spark tasks (``run.partitions``)
against the same run in one process — the same outputs, and what it costs.

The paper's world (seed 003 §V: 10,000 uniform objects, m uniform ranges, k = 10, the
Meghdoot overlay over 1,000 brokers on 20,000 IP nodes, 2,000 events). Every run is
``cnsim run`` in a process of its own (``--master URL`` for the partitioned ones), so
each is measured alone:

* **exactness**: its ``events.parquet``, ``brokers.parquet`` and ``summary.json``
  against the one-process run's, but for wall times (and ``summary.json``'s
  ``execution``);
* **cost**: wall seconds; the one-process run's peak memory; a partitioned run's
  driver (its Python process) and each partition's task, as its ``summary.json``
  records them (``execution``: the server task's and the apart task's too), and the
  bytes of the server logs the partitions read.

Default: m = 2,000,000, the six approaches of ``examples/default.toml``, P = 1, 2, 4,
8 on ``local[2]``. ``--quick``: m = 100,000 on a 2,000-node network, 200 events, P =
1, 2. ``--full``: the scaling table, m = 2, 10, 50 million, Paint-Dense and
Paint-Sparse, P = 1, 2, 4, 8, the one-process run where it fits. ``--m``,
``--partitions``, ``--approaches``, ``--events``, ``--overlay`` and ``--master`` (e.g. a
standalone ``spark://`` master) choose otherwise.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd

from cnsim.bench import provenance
from cnsim.simulations.config import from_dict
from cnsim.simulations.sizes import estimate

SIX = ["paint-dense", "paint-sparse", "paint-dense(1)", "paint-sparse(1)", "unicast", "cn-relax"]
TWO = ["paint-dense", "paint-sparse"]
# what may differ: wall times, how the run was spread, the scenario file's path
APART = ("setup_time_s", "total_time_s", "cpu_time_s", "execution", "source")


def _toml(
    m: int, events: int, approaches: list[str], partitions: int, quick: bool,
    overlay: str = "meghdoot",
) -> str:  # fmt: skip
    network = '[network]\nip_nodes = 2000\nbrokers = 100\n' if quick else ""
    names = ", ".join(f'"{a}"' for a in approaches)
    return (
        f"seed = 1\n[objects]\ncount = 10000\n[subscriptions]\ncount = {m}\nk = 10\n"
        f"[events]\ncount = {events}\n[algorithm]\napproaches = [{names}]\n{network}"
        f'[overlay]\nkind = "{overlay}"\n'
        f"[run]\nprogress = false\npartitions = {partitions}\n"
    )


def _run(folder: Path, text: str, master: str | None) -> dict:
    """``cnsim run`` of scenario ``text`` in a process of its own: wall seconds, its
    peak memory (the Python process: a partitioned run's driver), its outputs."""
    folder.mkdir(parents=True)
    (folder / "scenario.toml").write_text(text)
    out = folder / "out"
    command = [sys.executable, "-m", "cnsim", "run", str(folder / "scenario.toml"),
               "--out", str(out), *(["--master", master] if master else [])]  # fmt: skip
    started = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    if status != 0:
        err = child.stderr.read().decode(errors="replace").strip().splitlines()
        raise RuntimeError(f"{' '.join(command)} failed: {err[-1] if err else status}")
    return {"wall_s": wall, "peak_rss_bytes": usage.ru_maxrss * 1024, "out": out}


def _same(one: Path, spread: Path) -> dict[str, bool]:
    """Whether the partitioned run's outputs are the one-process run's (but for
    :data:`APART`)."""
    a, b = (pd.read_parquet(p / "events.parquet") for p in (one, spread))
    wall = [c for c in a.columns if c.endswith("time_s")]
    same = {"events": a.drop(columns=wall).equals(b.drop(columns=wall))}
    brokers = [p / "brokers.parquet" for p in (one, spread)]
    same["brokers"] = all(p.exists() for p in brokers) and pd.read_parquet(brokers[0]).equals(
        pd.read_parquet(brokers[1])
    )
    s = [_unwalled(json.loads((p / "summary.json").read_text())) for p in (one, spread)]
    same["summary"] = s[0] == s[1]
    return same


def _unwalled(summary: dict) -> dict:
    out = {k: v for k, v in summary.items() if k not in APART}
    out["approaches"] = {
        name: {k: v for k, v in s.items() if not k.endswith("time_s")}
        for name, s in summary["approaches"].items()
    }
    return out


def measure(
    sizes: list[int],
    partitions: list[int],
    approaches: list[str],
    events: int,
    master: str,
    quick: bool,
    work: Path,
    overlay: str = "meghdoot",
) -> list[dict]:
    """Per size: the one-process run (where its estimate fits this machine), then each
    partition count; their costs and whether their outputs agree."""
    rows = []
    for m in sizes:
        one_text = _toml(m, events, approaches, 1, quick, overlay)
        need = estimate(from_dict(tomllib.loads(one_text)))
        one = _run(work / f"m{m}-one", one_text, None) if need.total < need.available else None
        if one is None:
            refused = f"needs about {need.total / 1e9:.1f} GB of {need.available / 1e9:.1f} GB"
            rows.append({"m": m, "partitions": 0, "refused": refused})
        else:
            rows.append({"m": m, "partitions": 0, "wall_s": one["wall_s"],
                         "peak_rss_bytes": one["peak_rss_bytes"]})  # fmt: skip
        for p in partitions:
            try:
                text = _toml(m, events, approaches, p, quick, overlay)
                got = _run(work / f"m{m}-p{p}", text, master)
            except RuntimeError as exc:  # refused: a task would not fit (said before work)
                rows.append({"m": m, "partitions": p, "master": master, "refused": str(exc)})
                continue
            summary = json.loads((got["out"] / "summary.json").read_text())
            execution = summary["execution"]
            row = {"m": m, "partitions": p, "master": master, "wall_s": got["wall_s"],
                   "driver_setup_s": summary["setup_time_s"],
                   "driver_peak_rss_bytes": execution["driver_peak_rss_bytes"],
                   "partition_peak_rss_bytes": execution["peak_rss_bytes"],
                   "partition_subscriptions": execution["subscriptions"],
                   "partition_wall_s": execution["wall_s"],
                   "partition_setup_s": execution["setup_s"],
                   "partition_server_s": execution["server_s"],
                   "partition_delivery_s": execution["delivery_s"],
                   "partition_cpu_s": execution["cpu_s"],
                   "server_task": execution["server_task"],
                   "apart_task": execution["apart_task"],
                   "server_log_bytes": execution["server_log_bytes"]}  # fmt: skip
            if one is not None:
                row["same_as_one_process"] = _same(one["out"], got["out"])
                row["speedup"] = one["wall_s"] / got["wall_s"]
            rows.append(row)
    return rows


def draw_bytes(m: int = 10_000_000) -> float:
    """Bytes a subscription costs every task while it draws the whole workload and its
    plan (:meth:`Plan.draw`), measured in this process at ``m``, plus the 8 bytes of
    each subscriber's IP node the network draws for all: the transient each task pays
    before its own structures, whatever P is."""
    from cnsim.simulations.partitioned import Plan, _peak_rss, _reset_peak
    from cnsim.simulations.seeds import Seeds
    from cnsim.simulations.world import build_workload

    scenario = from_dict(tomllib.loads(_toml(m, 10, TWO, 2, False)))
    _reset_peak()
    before = _peak_rss()
    w = build_workload(scenario, Seeds(scenario.seed))
    Plan.draw(scenario, w)
    return (_peak_rss() - before) / m + 8.0


def project(rows: list[dict], drawn: float, sizes=(10**8, 10**9), counts=(16, 64, 256)) -> dict:
    """Each task's memory and CPU seconds at ``sizes`` x ``counts`` from the measured
    partitioned runs: peak memory ``a + b * m / P`` for its part's structures (least
    squares), beside the transient ``drawn * m`` of drawing every subscription (its
    peak is about the larger); CPU ``a + b * m / P + c * m`` (least squares: its part,
    and the draw and plan over all); the server task's ``d * m`` (Paint-Sparse's index
    of every subscription) where measured."""
    spread = [r for r in rows if r.get("partition_peak_rss_bytes")]
    if len({(r["m"], r["partitions"]) for r in spread}) < 3:
        return {}
    held, peak, cpu = [], [], []
    for r in spread:
        for size, rss, spent in zip(r["partition_subscriptions"], r["partition_peak_rss_bytes"],
                                    r["partition_cpu_s"], strict=True):  # fmt: skip
            held.append([1.0, size, r["m"]])
            peak.append(rss)
            cpu.append(spent)
    held = np.array(held)
    fit_peak = np.linalg.lstsq(held[:, :2], np.array(peak, float), rcond=None)[0]
    fit_cpu = np.linalg.lstsq(held, np.array(cpu, float), rcond=None)[0]
    servers = [(r["m"], r["server_task"]) for r in spread if r.get("server_task")]
    per_sub = {
        "peak_bytes": max((s["peak_rss_bytes"] / m for m, s in servers), default=None),
        "wall_s": max((s["wall_s"] / m for m, s in servers), default=None),
    }
    table = []
    for m in sizes:
        for p in counts:
            row = {"m": m, "partitions": p,
                   "task_structures_bytes": float(fit_peak @ [1.0, m / p]),
                   "task_draw_bytes": drawn * m,
                   "task_cpu_s": float(fit_cpu @ [1.0, m / p, m]),
                   "task_cpu_draw_s": float(fit_cpu[2] * m)}  # fmt: skip
            if per_sub["peak_bytes"] is not None:
                row["server_task_peak_bytes"] = per_sub["peak_bytes"] * m
                row["server_task_wall_s"] = per_sub["wall_s"] * m
            table.append(row)
    return {
        "fit": {"structures_bytes": dict(zip(("base", "per_held"), fit_peak.tolist(), strict=True)),
                "draw_bytes_per_subscription": drawn,
                "cpu_s": dict(zip(("base", "per_held", "per_drawn"), fit_cpu.tolist(),
                                  strict=True)),
                "server_task_per_subscription": per_sub},  # fmt: skip
        "table": table,
    }


def run_bench(
    quick: bool = False,
    full: bool = False,
    m: list[int] | None = None,
    partitions: list[int] | None = None,
    approaches: list[str] | None = None,
    events: int | None = None,
    master: str | None = None,
    overlay: str | None = None,
) -> dict:
    """The measurement (see the module docstring for the defaults)."""
    if quick:
        sizes, counts, names, n_events = [100_000], [1, 2], SIX, 200
    elif full:
        sizes, counts, names, n_events = [2 * 10**6, 10**7, 5 * 10**7], [1, 2, 4, 8], TWO, 2000
    else:
        sizes, counts, names, n_events = [2_000_000], [1, 2, 4, 8], SIX, 2000
    sizes, counts = m or sizes, partitions or counts
    names, n_events, master = approaches or names, events or n_events, master or "local[2]"
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="cnsim-bench-partitions-") as work:
        rows = measure(sizes, counts, names, n_events, master, quick, Path(work),
                       overlay or "meghdoot")  # fmt: skip
    options = {"m": m, "partitions": partitions, "approaches": approaches, "events": events,
               "master": master if master != "local[2]" else None, "overlay": overlay}  # fmt: skip
    agree = [all(r["same_as_one_process"].values()) for r in rows if "same_as_one_process" in r]
    return {
        **provenance("partitions", quick, full, options),
        "approaches": names,
        "events": n_events,
        "cores": os.cpu_count(),
        "rows": rows,
        "projection": project(rows, draw_bytes()) if full else {},
        "headline": {"runs_compared": len(agree), "all_identical": all(agree)},
        "wall_s": time.perf_counter() - started,
    }
