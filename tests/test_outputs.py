"""Output folders (``cnsim.outputs``): a command owns its folder, replaces an earlier
result of its own kind whole, refuses another kind unless told ``--overwrite``, and a
sweep exits non-zero when runs failed and says how to resume when interrupted."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pandas as pd
import pytest

import cnsim
from cnsim import outputs
from cnsim.cli import main
from cnsim.errors import InputError
from cnsim.simulations.sweep import read_results

SCENARIO = """seed = 5
[objects]
count = 40
[subscriptions]
count = 300
k = 2
[events]
count = 6
[network]
ip_nodes = 80
brokers = 4
[algorithm]
approaches = ["paint-dense", "cn-relax"]
[run]
progress = false
"""
SWEEP = """base = "scenario.toml"
[overlay]
kind = "ideal"
[sweep]
name = "ks"
grid = { "subscriptions.k" = [1, 2] }
"""


@pytest.fixture
def d(tmp_path: Path, monkeypatch) -> Path:
    (tmp_path / "scenario.toml").write_text(SCENARIO)
    (tmp_path / "sweep.toml").write_text(SWEEP)
    monkeypatch.setenv("CNSIM_CACHE", str(tmp_path / "cache"))
    return tmp_path


def _cli(monkeypatch, capsys, *argv: str) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "argv", ["cnsim", *argv])
    with pytest.raises(SystemExit) as info:
        main()
    captured = capsys.readouterr()
    return info.value.code, captured.out, captured.err


def _sweep_args(d: Path) -> list[str]:
    return ["sweep", str(d / "sweep.toml"), "--out", str(d / "ds"), "--serial"]


def test_a_run_replaces_an_earlier_run_whole(d: Path) -> None:
    out = d / "run"
    meghdoot = cnsim.Scenario.from_toml(d / "scenario.toml")
    cnsim.run(meghdoot, out)
    assert (out / "brokers.parquet").is_file()
    (out / "stray.tmp").write_text("left by hand")  # not ours, but inside our folder
    ideal = cnsim.Scenario.from_toml(d / "scenario.toml", overlay={"kind": "ideal"})
    cnsim.run(ideal, out)
    # The ideal run has no brokers: the earlier run's broker load must not survive.
    assert sorted(p.name for p in out.iterdir()) == [
        ".cnsim.json",
        "events.parquet",
        "summary.json",
    ]
    assert json.loads((out / "summary.json").read_text())["overlay"] == "ideal"
    assert json.loads((out / ".cnsim.json").read_text())["kind"] == "run"
    assert not [p for p in d.iterdir() if ".cnsim-" in p.name]  # no staging left


def test_overwrite_turns_a_sweep_dataset_into_a_run_folder(d: Path) -> None:
    cnsim.sweep(d / "sweep.toml", d / "ds", serial=True)
    scenario = cnsim.Scenario.from_toml(d / "scenario.toml")
    with pytest.raises(InputError, match="holds a cnsim sweep"):
        cnsim.run(scenario, d / "ds")
    cnsim.run(scenario, d / "ds", overwrite=True)
    assert not list((d / "ds").glob("run-*.parquet")) and not (d / "ds" / "_sweep.json").exists()


def test_a_sweep_resumes_extends_and_refuses_to_mix(d: Path) -> None:
    first = cnsim.sweep(d / "sweep.toml", d / "ds", serial=True)
    assert len(first) == 2 * 2
    # Extended (another k): the same sweep, the earlier runs are kept.
    (d / "more.toml").write_text(SWEEP.replace("[1, 2]", "[1, 2, 3]"))
    more = cnsim.sweep(d / "more.toml", d / "ds", serial=True)
    assert len(more) == 3 * 2 and set(first.run_id) <= set(more.run_id)
    # Fewer runs than the dataset holds, or another sweep: refused, the dataset intact.
    with pytest.raises(InputError, match="that this version of it does not have"):
        cnsim.sweep(d / "sweep.toml", d / "ds", serial=True)
    (d / "other.toml").write_text(SWEEP.replace('"ks"', '"other"'))
    with pytest.raises(InputError, match="not of 'other'"):
        cnsim.sweep(d / "other.toml", d / "ds", serial=True)
    assert len(read_results(d / "ds")) == 3 * 2
    # --overwrite replaces it by the other sweep alone.
    rows = cnsim.sweep(d / "other.toml", d / "ds", serial=True, overwrite=True)
    assert set(rows.sweep) == {"other"} and len(rows) == 2 * 2
    assert len(pd.read_parquet(d / "ds")) == 2 * 2  # the documented read still works


def test_a_report_replaces_an_earlier_report(d: Path) -> None:
    cnsim.run(cnsim.Scenario.from_toml(d / "scenario.toml"), d / "run")
    index = cnsim.report(d / "run", d / "rep")
    (d / "rep" / "old.png").write_bytes(b"an earlier figure")
    again = cnsim.report(d / "run", d / "rep")
    assert index == again and again.is_file() and not (d / "rep" / "old.png").exists()


def test_staging_folders_of_dead_processes_are_removed(d: Path) -> None:
    dead = d / ".run.cnsim-999999999-deadbeef"
    dead.mkdir()
    (dead / "events.parquet").write_bytes(b"half")
    alive = d / f".run.cnsim-{os.getpid()}-cafecafe"
    alive.mkdir()
    outputs.claim(d / "run", "run")
    assert not dead.exists() and alive.exists()


def test_without_an_atomic_exchange_two_renames_do(d: Path, monkeypatch) -> None:
    monkeypatch.setattr(outputs, "_exchange", lambda a, b: False)
    scenario = cnsim.Scenario.from_toml(d / "scenario.toml", overlay={"kind": "ideal"})
    cnsim.run(scenario, d / "run")
    cnsim.run(scenario, d / "run", events=3)
    assert json.loads((d / "run" / "summary.json").read_text())["events"] == 3
    assert not [p for p in d.iterdir() if ".cnsim-" in p.name]


def test_a_sweep_with_failed_runs_exits_1_and_says_where(d, monkeypatch, capsys) -> None:
    from cnsim.simulations.sweep import executors

    real = executors._run_rows

    def failing(task):
        if task["params"]["subscriptions.k"] == 2:
            raise RuntimeError("boom")
        return real(task)

    monkeypatch.setattr(executors, "_run_rows", failing)
    code, _, err = _cli(monkeypatch, capsys, *_sweep_args(d))
    assert code == 1
    assert "1 of 2 runs failed" in err and "status 'error'" in err and "again to retry" in err
    monkeypatch.setattr(executors, "_run_rows", real)  # the retry succeeds
    code, out, _ = _cli(monkeypatch, capsys, *_sweep_args(d))
    assert code == 0 and "1 already in" in out and "0 failed" in out


def test_ctrl_c_in_a_sweep_says_how_to_resume(d, monkeypatch, capsys) -> None:
    from cnsim.simulations.sweep import executors

    def interrupted(tasks, progress):
        raise KeyboardInterrupt

    monkeypatch.setattr(executors, "_run_serial", interrupted)
    code, _, err = _cli(monkeypatch, capsys, *_sweep_args(d))
    assert code == 130
    assert "interrupted" in err and "run the same command again to resume" in err


def test_dry_run_prints_the_memory_estimate_and_writes_nothing(d, monkeypatch, capsys) -> None:
    code, out, _ = _cli(
        monkeypatch, capsys, "run", str(d / "scenario.toml"), "--out", str(d / "o"), "--dry-run"
    )
    assert code == 0 and "estimated peak memory" in out and "available" in out
    assert not (d / "o").exists()


def test_forced_inserts_are_reported(d: Path) -> None:
    scenario = cnsim.Scenario.from_toml(
        d / "scenario.toml", events={"count": 60, "deletes": 1.0}, overlay={"kind": "ideal"}
    )
    summary = cnsim.run(scenario).summary
    # 40 objects, every event drawn as a delete: after 40 deletes none is left, and from
    # then on every other event must insert the object the next one deletes.
    assert summary["forced_inserts"] == 10


def test_overwrite_of_another_version_of_a_sweep_keeps_none_of_its_runs(d: Path) -> None:
    (d / "more.toml").write_text(SWEEP.replace("[1, 2]", "[1, 2, 3]"))
    cnsim.sweep(d / "more.toml", d / "ds", serial=True)
    rows = cnsim.sweep(d / "sweep.toml", d / "ds", serial=True, overwrite=True)
    assert len(rows) == 2 * 2 and sorted(set(rows["subscriptions.k"])) == [1, 2]


def test_a_folder_in_place_of_an_output_file_does_not_half_write_a_run(d: Path) -> None:
    """An ``events.parquet`` that is a folder inside an earlier run's folder: the run is
    written whole beside it and swapped in, so it never fails half-way."""
    out = d / "run"
    scenario = cnsim.Scenario.from_toml(d / "scenario.toml", overlay={"kind": "ideal"})
    cnsim.run(scenario, out)
    (out / "events.parquet").unlink()
    (out / "events.parquet").mkdir()
    (out / "events.parquet" / "part").write_bytes(b"x")
    cnsim.run(scenario, out)
    assert (out / "events.parquet").is_file() and len(pd.read_parquet(out / "events.parquet"))
