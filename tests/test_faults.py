"""Fault test: ``cnsim run`` and ``cnsim sweep`` killed with SIGKILL at random points
leave every output folder either as it was or complete and readable, and running the
command again completes with no lost or duplicated rows.

Kill times are drawn (seeded) over the measured duration of an uninterrupted command,
so kills land in start-up, in the work and in the writing of the outputs.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cnsim.simulations.sweep import read_results

RUN_KILLS = 6
SWEEP_KILLS = 4
SCENARIO = """seed = 9
[objects]
count = 300
[subscriptions]
count = 20000
k = 5
[events]
count = 300
[network]
ip_nodes = 200
brokers = 10
[algorithm]
approaches = ["paint-dense", "paint-sparse", "unicast", "cn-relax"]
[run]
progress = false
"""
SWEEP = """base = "scenario.toml"
[overlay]
kind = "ideal"
[events]
count = 40
[sweep]
name = "faults"
grid = { "subscriptions.k" = [1, 2, 3, 4, 5, 6] }
"""


@pytest.fixture
def d(tmp_path: Path) -> Path:
    (tmp_path / "scenario.toml").write_text(SCENARIO)
    (tmp_path / "sweep.toml").write_text(SWEEP)
    return tmp_path


def _start(d: Path, *args: str) -> subprocess.Popen:
    env = {**os.environ, "CNSIM_CACHE": str(d / "cache")}
    cmd = [sys.executable, "-c", "from cnsim.cli import main; main()", *args]
    return subprocess.Popen(cmd, cwd=d, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _timed(d: Path, *args: str) -> float:
    started = time.perf_counter()
    proc = _start(d, *args)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err.decode()
    return time.perf_counter() - started


def _kill_at(d: Path, delay: float, *args: str) -> None:
    proc = _start(d, *args)
    try:
        proc.wait(timeout=delay)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)


def _digest(folder: Path) -> dict[str, str]:
    if not folder.exists():
        return {}
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _complete_run(folder: Path, events: int, approaches: int) -> bool:
    marker = json.loads((folder / ".cnsim.json").read_text())
    summary = json.loads((folder / "summary.json").read_text())
    frame = pd.read_parquet(folder / "events.parquet")
    brokers = pd.read_parquet(folder / "brokers.parquet")
    return (
        marker["kind"] == "run"
        and summary["events"] == events
        and len(frame) == events * approaches
        and len(brokers) > 0
    )


@pytest.mark.slow
def test_run_killed_at_random_points_leaves_the_folder_before_or_complete(d: Path) -> None:
    out = d / "run"
    args = ("run", "scenario.toml", "--out", str(out))
    full = _timed(d, *args, "--events", "200")  # an earlier result in the folder
    rng = np.random.default_rng(2026)
    outcomes = {"before": 0, "complete": 0}
    for i in range(RUN_KILLS):
        before = _digest(out)
        events = 300 if i % 2 else 200  # an earlier result that differs from the new one
        _kill_at(d, float(rng.uniform(0.2, 1.3 * full)), *args, "--events", str(events))
        after = _digest(out)
        if after == before:
            outcomes["before"] += 1
        else:
            assert _complete_run(out, events, 4), f"kill {i}: folder neither before nor complete"
            outcomes["complete"] += 1
        assert not [p for p in out.iterdir() if p.name.startswith(".") and p.name != ".cnsim.json"]
    _timed(d, *args)  # running again completes
    assert _complete_run(out, 300, 4)
    assert not [p for p in d.iterdir() if ".cnsim-" in p.name]  # dead staging removed
    assert outcomes["before"] > 0  # the kills did interrupt runs


@pytest.mark.slow
def test_sweep_killed_at_random_points_resumes_without_lost_or_duplicated_rows(
    d: Path,
) -> None:
    out = d / "ds"
    args = ("sweep", "sweep.toml", "--out", str(out), "--serial")
    reference = d / "reference"
    full = _timed(d, "sweep", "sweep.toml", "--out", str(reference), "--serial")
    want = read_results(reference)
    rng = np.random.default_rng(7)
    for i in range(SWEEP_KILLS):
        _kill_at(d, float(rng.uniform(0.2, 0.9 * full)), *args)
        if out.exists():  # every row file present is whole and readable
            rows = read_results(out)
            assert not rows.duplicated(["run_id", "approach"]).any(), f"kill {i}"
            assert rows.empty or set(rows.status) <= {"ok"}
    _timed(d, *args)
    got = read_results(out)
    assert len(got) == len(want) == 6 * 4
    assert not got.duplicated(["run_id", "approach"]).any()
    keep = ["run_id", "approach", "mean_delivered_msgs", "mean_calls_min_y"]
    pd.testing.assert_frame_equal(got[keep], want[keep])
