"""Output folders (``cnsim.outputs``): a command owns its folder, replaces an earlier
result of its own kind whole, refuses another kind unless told ``--overwrite``, and a
sweep exits non-zero when runs failed and says how to resume when interrupted; places
that are not usable, and results that would mix, refused with a clear one-line answer
(harness: tests/refusals.py)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from refusals import Case, assert_refused, sweep_run, table

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
    ideal = cnsim.Scenario.from_toml(d / "scenario.toml", overlay={"kind": "ideal"})
    cnsim.run(ideal, out)
    # The ideal run has no brokers: the earlier run's broker load must not survive.
    assert sorted(p.name for p in out.iterdir()) == [
        ".cnsim.json",
        "events.parquet",
        "summary.json",
    ]
    assert json.loads((out / "summary.json").read_text())["overlay"] == "ideal"
    held = json.loads((out / ".cnsim.json").read_text())
    assert held["kind"] == "run" and sorted(held["files"]) == ["events.parquet", "summary.json"]
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
    first = index.stat().st_ino
    again = cnsim.report(d / "run", d / "rep")
    assert index == again and again.stat().st_ino != first  # swapped in anew
    held = json.loads((d / "rep" / ".cnsim.json").read_text())["files"]
    on_disk = {str(p.relative_to(d / "rep")) for p in (d / "rep").rglob("*") if p.is_file()}
    assert set(k for k in held if not k.endswith("/")) == on_disk - {".cnsim.json"}


def _staging(path: Path, pid: int, target: str | None) -> Path:
    """A staging folder of cnsim's as a process ``pid`` left it (its inner marker)."""
    path.mkdir()
    info = {"pid": pid, "host": socket.gethostname(), "for": target}
    (path / outputs.STAGING).write_text(json.dumps(info))
    (path / "events.parquet").write_bytes(b"half")
    return path


def test_staging_folders_of_dead_processes_are_removed(d: Path) -> None:
    dead = _staging(d / ".run.cnsim-999999999-deadbeef", 999999999, "run")
    alive = _staging(d / f".run.cnsim-{os.getpid()}-cafecafe", os.getpid(), "run")
    other = _staging(d / ".run.cnsim-999999998-0badf00d", 999999998, "elsewhere")
    # A kill between making a staging folder and marking it, or around the exchange,
    # leaves it empty, or holding a whole result of cnsim's: both go.
    empty = d / ".run.cnsim-999999996-00000000"
    empty.mkdir()
    whole = _cnsim_folder(d / ".run.cnsim-999999995-11111111", "run", RUN_FILES)
    mine = _cnsim_folder(d / ".run.cnsim-999999994-22222222", "run", RUN_FILES)
    (mine / "notes.txt").write_text("mine")  # not all cnsim's: stays
    outputs.claim(d / "run", "run")
    assert not dead.exists() and alive.exists() and other.exists()
    assert not empty.exists() and not whole.exists() and (mine / "notes.txt").is_file()


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


def test_a_folder_in_place_of_an_output_file_is_refused_before_any_work(d: Path) -> None:
    """An ``events.parquet`` that is a folder of the user's inside an earlier run's
    folder: not cnsim's, so the folder is refused whole and nothing in it changes."""
    out = d / "run"
    scenario = cnsim.Scenario.from_toml(d / "scenario.toml", overlay={"kind": "ideal"})
    cnsim.run(scenario, out)
    (out / "events.parquet").unlink()
    (out / "events.parquet").mkdir()
    (out / "events.parquet" / "part").write_bytes(b"x")
    for overwrite in (False, True):
        with pytest.raises(InputError, match=r"holds 'events\.parquet', which cnsim did not"):
            cnsim.run(scenario, out, overwrite=overwrite)
    assert (out / "events.parquet" / "part").read_bytes() == b"x"


BAD_PLACES: list[Case] = [
    # -- places that are not usable
    Case("run-out-empty", ["run", "{d}/good.toml", "--out", ""], r"--out ''.*empty"),
    Case(
        "run-out-file",
        ["run", "{d}/good.toml", "--out", "{d}/a_file"],
        r"--out .*a_file.*is a file",
    ),
    Case(
        "run-out-under-file",
        ["run", "{d}/good.toml", "--out", "{d}/a_file/x"],
        r"a_file.*is a file",
    ),
    Case(
        "run-out-foreign",
        ["run", "{d}/good.toml", "--out", "{d}/foreign"],
        r"foreign.*notes\.txt.*did not write",
    ),
    Case(
        "run-out-bad-marker",
        ["run", "{d}/good.toml", "--out", "{d}/bad_marker"],
        r"bad_marker.*\.cnsim\.json",
    ),
    Case("sweep-out-empty", ["sweep", "{d}/sweep.toml", "--out", "", "--serial"], r"--out ''"),
    Case(
        "sweep-out-file",
        ["sweep", "{d}/sweep.toml", "--out", "{d}/a_file", "--serial"],
        r"a_file.*is a file",
    ),
    Case(
        "sweep-out-foreign",
        ["sweep", "{d}/sweep.toml", "--out", "{d}/foreign", "--serial"],
        r"notes\.txt",
    ),
    Case("report-out-empty", ["report", "{d}/earlier_run", "--out", ""], r"--out ''"),
    Case(
        "report-out-file",
        ["report", "{d}/earlier_run", "--out", "{d}/a_file"],
        r"a_file.*is a file",
    ),
    Case(
        "report-out-foreign", ["report", "{d}/earlier_run", "--out", "{d}/foreign"], r"notes\.txt"
    ),
    Case(
        "api-run-out-file",
        api=lambda d: cnsim.run(cnsim.Scenario.from_toml(d / "good.toml"), out=d / "a_file"),
        raises=InputError,
        message=r"a_file.*is a file",
    ),
    Case(
        "api-run-out-foreign",
        api=lambda d: cnsim.run(cnsim.Scenario.from_toml(d / "good.toml"), out=d / "foreign"),
        raises=InputError,
        message=r"notes\.txt",
    ),
    Case(
        "api-run-out-empty",
        api=lambda d: cnsim.run(cnsim.Scenario.from_toml(d / "good.toml"), out=""),
        raises=InputError,
        message=r"''",
    ),
    Case(
        "api-result-write-foreign",
        api=lambda d: cnsim.Result(None, None, {}).write(d / "foreign"),
        raises=InputError,
        message=r"notes\.txt",
    ),
    # -- results that would mix
    Case(
        "run-into-sweep",
        ["run", "{d}/good.toml", "--out", "{d}/earlier_sweep"],
        r"earlier_sweep.*holds a cnsim sweep.*--overwrite",
    ),
    Case(
        "run-into-report",
        ["run", "{d}/good.toml", "--out", "{d}/earlier_report"],
        r"holds a cnsim report",
    ),
    Case(
        "sweep-into-run",
        ["sweep", "{d}/sweep.toml", "--out", "{d}/earlier_run", "--serial"],
        r"holds a cnsim run",
    ),
    Case(
        "sweep-into-other-sweep",
        ["sweep", "{d}/sweep_other.toml", "--out", "{d}/earlier_sweep", "--serial"],
        r"sweep 's1', not of 's2'",
    ),
    Case(
        "sweep-into-other-version",
        ["sweep", "{d}/sweep.toml", "--out", "{d}/earlier_sweep", "--serial"],
        r"runs of sweep 's1' that this version",
    ),
    Case(
        "sweep-into-report",
        ["sweep", "{d}/sweep.toml", "--out", "{d}/earlier_report", "--serial"],
        r"holds a cnsim report",
    ),
    Case(
        "report-into-run",
        ["report", "{d}/earlier_run", "--out", "{d}/earlier_run"],
        r"holds a cnsim run",
    ),
    Case(
        "report-into-sweep",
        ["report", "{d}/earlier_run", "--out", "{d}/earlier_sweep"],
        r"holds a cnsim sweep",
    ),
    Case(
        "api-sweep-into-run",
        api=lambda d: sweep_run(d, "sweep.toml", "earlier_run"),
        raises=InputError,
        message=r"holds a cnsim run",
    ),
    Case(
        "api-report-into-run",
        api=lambda d: cnsim.report(d / "earlier_run", d / "earlier_run"),
        raises=InputError,
        message=r"holds a cnsim run",
    ),
    Case(
        "api-run-into-sweep",
        api=lambda d: cnsim.run(cnsim.Scenario.from_toml(d / "good.toml"), out=d / "earlier_sweep"),
        raises=InputError,
        message=r"holds a cnsim sweep",
    ),
]


@pytest.fixture
def places(bad_inputs: Path) -> Path:
    """The bad-input folder, its earlier results made as cnsim makes them: each marker
    lists the files beside it (their signatures as written here)."""
    for name in ("earlier_run", "earlier_sweep", "earlier_report"):
        folder = bad_inputs / name
        held = json.loads((folder / outputs.MARKER).read_text())
        outputs.write_marker(folder, {**held, "files": outputs.listing(folder)})
    return bad_inputs


@table(BAD_PLACES)
def test_a_bad_output_place_is_refused_clearly(case: Case, places, capsys, monkeypatch) -> None:
    assert_refused(case, places, capsys, monkeypatch)


# -- nothing of the user's is ever deleted ---------------------------------------------
#
# Each case lays out a folder mixing what cnsim wrote with what it did not (user files,
# user files named like cnsim's staging folders or outputs, a user's own site), then
# runs a writer into it: refused, exit status 2 or InputError, one line naming the
# option, the folder and the first entry cnsim did not write, every file unchanged.


def _cnsim_folder(path: Path, kind: str, files: dict[str, bytes], **extra) -> Path:
    """A folder as cnsim's writers leave it: written aside by :func:`outputs.replacing`,
    its marker listing every file."""
    with outputs.replacing(path, outputs.marker(kind, "earlier", **extra)) as stage:
        for name, data in files.items():
            (stage / name).parent.mkdir(parents=True, exist_ok=True)
            (stage / name).write_bytes(data)
    return path


RUN_FILES = {"events.parquet": b"PAR1 events", "summary.json": b'{"earlier": 1}\n'}
REPORT_FILES = {"index.html": b"<html>report</html>", "figures/a.png": b"\x89PNG", "t.csv": b"a\n"}


def _user_site(d: Path) -> None:
    """A site of the user's that looks like a report of cnsim's (no marker)."""
    site = d / "site"
    site.mkdir()
    (site / "index.html").write_text("<html>my site</html>")
    (site / "data.csv").write_text("x,y\n1,2\n")
    (site / "figure.png").write_bytes(b"\x89PNG mine")


def _earlier_run_with(d: Path, name: str, user: str, data: bytes = b"mine") -> None:
    _cnsim_folder(d / name, "run", RUN_FILES)
    (d / name / user).parent.mkdir(parents=True, exist_ok=True)
    (d / name / user).write_bytes(data)


def _edited_run(d: Path) -> None:
    _cnsim_folder(d / "edited", "run", RUN_FILES)
    (d / "edited" / "summary.json").write_bytes(b'{"earlier": 2}\n')  # same size, changed


def _unlisted_marker(d: Path) -> None:
    """A marker without a listing (as an older cnsim wrote) beside files."""
    (d / "old").mkdir()
    (d / "old" / ".cnsim.json").write_text('{"kind": "run", "name": "old"}\n')
    (d / "old" / "events.parquet").write_bytes(b"PAR1")


def _lone_index(d: Path) -> None:
    (d / "lone").mkdir()
    (d / "lone" / "index.html").write_text("<html>mine</html>")


def _staging_named_user_file(d: Path) -> None:
    """User entries named like cnsim's staging folders, inside an empty folder and
    inside an earlier run (no staging marker inside: not cnsim's)."""
    (d / "stagey").mkdir()
    (d / "stagey" / ".cnsim-tmp-999999999-deadbeef").write_text("mine")
    _cnsim_folder(d / "run_stagey", "run", RUN_FILES)
    folder = d / "run_stagey" / ".run_stagey.cnsim-999999999-deadbeef"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine")


def _sweep_with_user_file(d: Path) -> None:
    manifest = json.dumps({"name": "s1", "runs": [{"run_id": "zz"}]}).encode()
    files = {"_sweep.json": manifest, "run-zz.parquet": b"PAR1 rows"}
    _cnsim_folder(d / "ds_mixed", "sweep", files)
    (d / "ds_mixed" / "analysis.ipynb").write_text("{}")


def _report_with_user_file(d: Path) -> None:
    _cnsim_folder(d / "rep_mixed", "report", REPORT_FILES)
    (d / "rep_mixed" / "figures" / "mine.png").write_bytes(b"\x89PNG mine")


def _reproduction_with_user_file(d: Path) -> None:
    from cnsim.simulations.reproduce import reproduction

    parts = [f"sweeps/{n}" for n in reproduction("seed003").sweeps] + ["report"]
    root = d / "repro"
    root.mkdir()
    outputs.mark(root, outputs.marker("reproduction", "seed003", quick=True, parts=parts))
    _cnsim_folder(root / "report", "report", REPORT_FILES)
    (root / "report" / "notes.md").write_text("mine")


def _stamped_then_edited(d: Path) -> None:
    outputs.write_file(d / "bench.json", json.dumps({"a": 1}, indent=2) + "\n", "--json")
    text = (d / "bench.json").read_text().replace('"a": 1', '"a": 2')
    (d / "bench.json").write_text(text)


def _user_json(d: Path) -> None:
    (d / "results.json").write_text('{\n  "mine": true\n}\n')


MINE = r"which cnsim did not write.*new or empty folder"
OWNED: list[tuple[Case, Callable[[Path], None]]] = [
    # a cnsim run mixed with a user file, with and without --overwrite
    *[
        (
            Case(
                f"run-mixed{flag}",
                ["run", "{d}/good.toml", "--out", "{d}/mixed", *([flag] if flag else [])],
                r"--out .*mixed.*: holds 'notes\.txt', " + MINE,
            ),
            lambda d: _earlier_run_with(d, "mixed", "notes.txt"),
        )
        for flag in ("", "--overwrite")
    ],
    (
        Case(
            "api-run-mixed-overwrite",
            api=lambda d: cnsim.run(
                cnsim.Scenario.from_toml(d / "good.toml"), out=d / "mixed", overwrite=True
            ),
            raises=InputError,
            message=r"mixed.*holds 'sub', " + MINE,
        ),
        lambda d: _earlier_run_with(d, "mixed", "sub/deep.txt"),
    ),
    (
        Case(
            "api-result-write-mixed",
            api=lambda d: cnsim.Result(pd.DataFrame(), None, {}).write(d / "mixed", True),
            raises=InputError,
            message=r"holds 'zz\.parquet', " + MINE,
        ),
        lambda d: _earlier_run_with(d, "mixed", "zz.parquet"),
    ),
    # a user file named like one of cnsim's outputs, beside a run that has no such file
    (
        Case(
            "run-user-brokers-parquet",
            ["run", "{d}/good.toml", "--out", "{d}/mixed", "--overwrite"],
            r"holds 'brokers\.parquet', " + MINE,
        ),
        lambda d: _earlier_run_with(d, "mixed", "brokers.parquet", b"PAR1 mine"),
    ),
    (
        Case(
            "run-edited-output",
            ["run", "{d}/good.toml", "--out", "{d}/edited", "--overwrite"],
            r"holds 'summary\.json', which cnsim did not write \(or which changed since\)",
        ),
        _edited_run,
    ),
    (
        Case(
            "run-unlisted-marker",
            ["run", "{d}/good.toml", "--out", "{d}/old", "--overwrite"],
            r"--out .*old.*holds 'events\.parquet', " + MINE,
        ),
        _unlisted_marker,
    ),
    # user files named like cnsim's staging folders
    (
        Case(
            "run-user-file-named-staging",
            ["run", "{d}/good.toml", "--out", "{d}/stagey", "--overwrite"],
            r"holds '\.cnsim-tmp-999999999-deadbeef', " + MINE,
        ),
        _staging_named_user_file,
    ),
    (
        Case(
            "run-user-folder-named-staging",
            ["run", "{d}/good.toml", "--out", "{d}/run_stagey"],
            r"holds '\.run_stagey\.cnsim-999999999-deadbeef', " + MINE,
        ),
        _staging_named_user_file,
    ),
    # user sites that look like a report
    *[
        (
            Case(
                f"report-into-user-site{flag}",
                ["report", "{d}/earlier_run", "--out", "{d}/site", *([flag] if flag else [])],
                r"--out .*site.*: holds 'data\.csv', " + MINE,
            ),
            _user_site,
        )
        for flag in ("", "--overwrite")
    ],
    (
        Case(
            "api-report-into-user-site",
            api=lambda d: cnsim.report(d / "earlier_run", d / "site", overwrite=True),
            raises=InputError,
            message=r"holds 'data\.csv', " + MINE,
        ),
        _user_site,
    ),
    (
        Case(
            "report-mixed",
            ["report", "{d}/earlier_run", "--out", "{d}/rep_mixed"],
            r"holds 'figures/mine\.png', " + MINE,
        ),
        _report_with_user_file,
    ),
    # a lone index.html of the user's, and --overwrite
    *[
        (
            Case(
                f"{cmd}-lone-index-overwrite",
                [*argv, "--out", "{d}/lone", "--overwrite"],
                r"--out .*lone.*: holds 'index\.html', " + MINE,
            ),
            _lone_index,
        )
        for cmd, argv in (
            ("run", ["run", "{d}/good.toml"]),
            ("report", ["report", "{d}/earlier_run"]),
        )
    ],
    # a sweep dataset and a reproduction holding a user file
    *[
        (
            Case(
                f"sweep-mixed{flag}",
                ["sweep", "{d}/sweep.toml", "--out", "{d}/ds_mixed", "--serial"]
                + ([flag] if flag else []),
                r"holds 'analysis\.ipynb', " + MINE,
            ),
            _sweep_with_user_file,
        )
        for flag in ("", "--overwrite")
    ],
    (
        Case(
            "reproduce-report-mixed",
            ["reproduce", "seed003", "--out", "{d}/repro", "--serial", "--quick", "--overwrite"],
            r"--out .*repro.*: holds 'report/notes\.md', " + MINE,
        ),
        _reproduction_with_user_file,
    ),
    # the bench's --json file
    (
        Case(
            "bench-json-user-file",
            ["bench", "paint", "--quick", "--json", "{d}/results.json"],
            r"--json .*results\.json.*a file cnsim did not write.*new file name",
        ),
        _user_json,
    ),
    (
        Case(
            "bench-json-edited",
            ["bench", "paint", "--quick", "--json", "{d}/bench.json"],
            r"--json .*bench\.json.*changed since",
        ),
        _stamped_then_edited,
    ),
]


@pytest.mark.parametrize(("case", "setup"), OWNED, ids=[c.id for c, _ in OWNED])
def test_what_cnsim_did_not_write_is_refused_and_kept(
    case: Case, setup, places: Path, capsys, monkeypatch
) -> None:
    setup(places)
    assert_refused(case, places, capsys, monkeypatch)


def test_user_entries_named_like_staging_beside_the_target_are_kept(d: Path) -> None:
    """Beside a new run folder: a user's folder and file named like cnsim's staging
    folders stay, a staging folder cnsim left (its marker inside) goes."""
    mine = d / ".run.cnsim-999999999-deadbeef"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine")
    (d / ".run.cnsim-999999998-cafecafe").write_text("mine too")
    dead = _staging(d / ".run.cnsim-999999997-0badf00d", 999999997, "run")
    cnsim.Result(pd.DataFrame({"a": [1]}), None, {"source": "t"}).write(d / "run")
    assert (mine / "notes.txt").read_text() == "mine"
    assert (d / ".run.cnsim-999999998-cafecafe").read_text() == "mine too"
    assert not dead.exists() and (d / "run" / "events.parquet").is_file()


def test_a_reproduction_cleans_the_staging_a_kill_left_for_its_report(tmp_path: Path) -> None:
    """A reproduction killed while writing its report leaves ``OUT/.report.cnsim-…``:
    the next one removes it (recognised by its marker) when it writes the report."""
    from cnsim.simulations.reproduce import _open, reproduction, write_report

    repro = reproduction("seed003")
    root = tmp_path / "repro"
    _open(root, repro.name, True, repro.sweeps)
    dead = _staging(root / ".report.cnsim-999999999-deadbeef", 999999999, "report")
    assert outputs.owner(root)["kind"] == "reproduction"  # the leftover is not foreign
    index = write_report(repro, root, True, [])
    assert index.is_file() and not dead.exists()
    assert outputs.foreign_entry(root) is None
    assert sorted(p.name for p in root.iterdir()) == [".cnsim.json", "report"]


def test_a_resumed_sweep_keeps_its_files_listed(d: Path) -> None:
    """Every file a sweep adds is listed as it lands: the dataset stays cnsim's, so it
    can be resumed and replaced, and a file added by hand still stops both."""
    cnsim.sweep(d / "sweep.toml", d / "ds", serial=True)
    assert outputs.foreign_entry(d / "ds") is None
    held = json.loads((d / "ds" / ".cnsim.json").read_text())["files"]
    assert {"_sweep.json", *(p.name for p in (d / "ds").glob("run-*.parquet"))} == set(held)
    cnsim.sweep(d / "sweep.toml", d / "ds", serial=True)  # resumed: nothing to run
    (d / "ds" / "notes.txt").write_text("mine")
    for overwrite in (False, True):
        with pytest.raises(InputError, match=r"holds 'notes\.txt'"):
            cnsim.sweep(d / "sweep.toml", d / "ds", serial=True, overwrite=overwrite)
    assert (d / "ds" / "notes.txt").read_text() == "mine"


def test_the_bench_json_file_cnsim_wrote_is_replaced(tmp_path: Path) -> None:
    target = tmp_path / "b.json"
    outputs.write_file(target, json.dumps({"a": 1}, indent=2) + "\n", "--json")
    assert json.loads(target.read_text())["a"] == 1 and outputs.stamped(target)
    assert outputs.check_file_target(target, "--json") == target
    outputs.write_file(target, json.dumps({"a": 2}, indent=2) + "\n", "--json")
    assert json.loads(target.read_text())["a"] == 2
    target.write_text('{\n  "mine": 1\n}\n')
    with pytest.raises(InputError, match="did not write"):
        outputs.check_file_target(target, "--json")
    assert outputs.check_file_target(target, "--json", keep=True) == target  # --resume


# -- the property: no writer removes or changes a file it did not write ---------------

_LIKE_CNSIM = [
    "events.parquet",
    "summary.json",
    "brokers.parquet",
    "index.html",
    "_sweep.json",
    "run-a.parquet",
    ".cnsim.json",
    ".cnsim-staging.json",
    ".cnsim-tmp-999999999-deadbeef",
    ".out.cnsim-999999999-deadbeef",
    f".out.cnsim-{os.getpid()}-cafecafe",
    "out.json",
    "_events",
]
_NAME = st.sampled_from(_LIKE_CNSIM) | st.text("abcz._-", min_size=1, max_size=6).filter(
    lambda n: n not in (".", "..")
)
_ENTRY = st.tuples(
    st.sampled_from(["in", "beside"]), _NAME, st.booleans(), st.binary(min_size=0, max_size=12)
)


@pytest.fixture(scope="module")
def sweep_spec(tmp_path_factory):
    from cnsim.simulations.sweep import load_sweep

    d = tmp_path_factory.mktemp("spec")
    (d / "scenario.toml").write_text(SCENARIO)
    (d / "sweep.toml").write_text(SWEEP)
    return load_sweep(d / "sweep.toml")


def _write(writer: str, out: Path, overwrite: bool, spec) -> None:
    """One of cnsim's writers, as its command calls it, into ``out``."""
    from cnsim.simulations.reproduce import _open, _same
    from cnsim.simulations.sweep.dataset import (
        claim_dataset,
        open_dataset,
        run_file,
        write_rows,
    )

    if writer == "run":
        cnsim.Result(pd.DataFrame({"a": [1]}), None, {"source": "t"}).write(out, overwrite)
    elif writer == "sweep":
        path = claim_dataset(out, spec, overwrite)
        open_dataset(path, spec)
        write_rows(run_file(path, spec.runs[0].run_id), [{"run_id": "x", "status": "ok"}])
    elif writer == "report":
        outputs.claim(out, "report", overwrite=overwrite)
        _cnsim_folder(out, "report", REPORT_FILES)
    elif writer == "reproduction":
        root = outputs.claim(out, "reproduction", overwrite=overwrite, same=_same("p", True))
        _open(root, "p", True, ["s"])
    else:  # the bench's --json file, beside the folder
        target = outputs.check_file_target(out.with_suffix(".json"), "--json")
        outputs.write_file(target, json.dumps({"a": 1}, indent=2) + "\n", "--json")


@given(
    earlier=st.sampled_from([None, "run", "sweep", "report", "reproduction"]),
    entries=st.lists(_ENTRY, max_size=4),
    writer=st.sampled_from(["run", "sweep", "report", "reproduction", "bench"]),
    overwrite=st.booleans(),
)
def test_no_writer_removes_or_changes_a_file_it_did_not_write(
    sweep_spec, earlier, entries, writer, overwrite
) -> None:
    base = Path(tempfile.mkdtemp(prefix="own-"))
    try:
        out = base / "out"
        if earlier is not None:
            _write(earlier, out, False, sweep_spec)
        mine: dict[Path, bytes] = {}
        for where, name, is_dir, data in entries:
            folder = out if where == "in" else base
            folder.mkdir(exist_ok=True)
            path = folder / name
            if path == out or (path.exists() and (is_dir or path.is_dir())):
                continue  # the target itself, or a folder already there
            if is_dir:
                path.mkdir()
                path = path / "f"
            path.write_bytes(data)
            mine[path] = data
        try:
            _write(writer, out, overwrite, sweep_spec)
        except InputError as exc:
            assert "\n" not in str(exc)
        for path, data in mine.items():
            assert path.is_file() and path.read_bytes() == data, path
    finally:
        shutil.rmtree(base, ignore_errors=True)
