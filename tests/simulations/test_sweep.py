"""Parameter sweeps: validation, seeds, expansion, resume, failures, serial vs Spark."""

from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from cnsim.cli import app
from cnsim.errors import ConfigError
from cnsim.simulations import runner
from cnsim.simulations.sweep import (
    derive_seed,
    expand,
    load_sweep,
    read_results,
    run_file,
    run_sweep,
)

ROOT = Path(__file__).resolve().parents[2]
SMALL = {
    "seed": 3,
    "objects": {"count": 150},
    "subscriptions": {"count": 600, "k": 2},
    "events": {"count": 20},
    "algorithm": {"approaches": ["paint-dense", "paint-sparse(0.5)", "unicast", "cn-relax"]},
    "overlay": {"kind": "ideal"},
}


def sweep_doc(**sweep) -> dict:
    doc = copy.deepcopy(SMALL)
    doc["sweep"] = {"name": "t", "seed": 5, **sweep}
    return doc


def no_time(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[[c for c in frame.columns if not c.endswith("time_s")]]


# ------------------------------------------------------------------ validation


@pytest.mark.parametrize(
    ("sweep", "needles"),
    [
        ({"grids": {}}, ["sweep.grids", "allowed", "grid"]),
        ({"grid": {"subscriptions.k": 3}}, ["subscriptions.k", "3", "non-empty array"]),
        ({"grid": {"subscriptions.k": []}}, ["subscriptions.k", "non-empty array"]),
        ({"grid": {"k": [1, 2]}}, ["'k'", "section.key"]),
        ({"grid": {"seed": [1, 2]}}, ["seed", "repeat"]),
        ({"grid": {"subscriptions.k": [1, 0]}}, ["subscriptions.k = 0", "out of range", "1 .. "]),
        ({"grid": {"subscription.k": [1]}}, ["[subscription]", "allowed", "[subscriptions]"]),
        ({"grid": {"objects.distribution": ["zipf"]}}, ["'zipf'", "'uniform'", "'clustered'"]),
        ({"grid": {"algorithm.approaches": [["paint-foo"]]}}, ["paint-foo", "allowed"]),
        (
            {"zip": {"subscriptions.k": [1, 2], "events.count": [5]}},
            ["sweep.zip", "same length", "subscriptions.k"],
        ),
        (
            {"grid": {"subscriptions.k": [1]}, "zip": {"subscriptions.k": [2]}},
            ["subscriptions.k", "sweep.grid", "sweep.zip"],
        ),
        ({"grid": {"subscriptions.k": [1, 1]}}, ["identical", "subscriptions.k=1"]),
        ({"grid": {"subscriptions.k": [1]}, "seed_ignore": ["events.count"]}, ["events.count"]),
        ({"repeat": 0}, ["repeat = 0", ">= 1"]),
        ({"seed": -1}, ["sweep.seed = -1", ">= 0"]),
        ({"keep_events": "yes"}, ["sweep.keep_events", "'yes'", "true or false"]),
        ({"grid": {"run.partitions": [1, 2]}}, ["run.partitions = 2", "sweep", "cnsim run"]),
    ],
)
def test_bad_sweeps_name_key_value_and_allowed(sweep, needles):
    with pytest.raises(ConfigError) as err:
        expand(sweep_doc(**sweep), "bad.toml")
    message = str(err.value)
    assert message.startswith("bad.toml")
    for needle in needles:
        assert needle in message, (needle, message)


@pytest.mark.parametrize(
    ("values", "needle"),
    [([0.5, float("nan")], "NaN"), ([[1.0, float("inf")]], "inf"), ([0.5, 1], None)],
)
def test_axis_values_must_be_plain_data(values, needle):
    doc = sweep_doc(grid={"subscriptions.spread": values})
    if needle is None:  # finite numbers are fine (1 becomes 1.0)
        assert [r.params["subscriptions.spread"] for r in expand(doc).runs] == [0.5, 1.0]
        return
    with pytest.raises(ConfigError) as err:
        expand(doc, "bad.toml")
    message = str(err.value)
    assert message.startswith("bad.toml: sweep.grid.'subscriptions.spread' = ")
    assert f"holds {needle}" in message and "which is not allowed" in message
    assert "not plain data" not in message and "allowed: numbers (no NaN or infinity)" in message


def test_quick_table_is_validated_even_when_not_asked_for():
    doc = sweep_doc(grid={"subscriptions.k": [1, 2]})
    doc["quick"] = {"events": {"count": -4}}
    with pytest.raises(ConfigError, match=r"with \[quick\].*events.count = -4"):
        expand(doc, "q.toml")
    with pytest.raises(ConfigError, match="no \\[quick\\] table"):
        expand(sweep_doc(), "q.toml", quick=True)


def test_base_file_relative_to_sweep_file_and_errors(tmp_path):
    (tmp_path / "base.toml").write_text(
        'seed = 1\n[objects]\ncount = 99\n[overlay]\nkind = "ideal"\n'
    )
    (tmp_path / "s.toml").write_text(
        'base = "base.toml"\n[subscriptions]\ncount = 500\n'
        '[sweep]\ngrid = {"subscriptions.k" = [1, 2]}\n'
    )
    sweep = load_sweep(tmp_path / "s.toml")
    assert [r.scenario["objects"]["count"] for r in sweep.runs] == [99, 99]
    assert [r.scenario["subscriptions"]["count"] for r in sweep.runs] == [500, 500]
    assert sweep.name == "s" and sweep.seed == 1
    (tmp_path / "s.toml").write_text('base = "nope.toml"\n')
    with pytest.raises(ConfigError, match="cannot read base scenario.*nope.toml"):
        load_sweep(tmp_path / "s.toml")
    with pytest.raises(ConfigError, match="cannot read sweep file"):
        load_sweep(tmp_path / "missing.toml")


# --------------------------------------------------------------- seeds and grid


def test_seed_derivation_is_stable():
    # A fixed value: seeds must not change across machines, Python versions or runs.
    assert derive_seed(5, {"subscriptions.k": 2}, 0) == derive_seed(5, {"subscriptions.k": 2}, 0)
    assert derive_seed(5, {"subscriptions.k": 2}, 0) == 7956603470911041321
    seeds = {
        derive_seed(s, {"subscriptions.k": k}, r) for s in (0, 1) for k in (1, 2) for r in (0, 1)
    }
    assert len(seeds) == 8
    assert all(0 <= s < 2**63 for s in seeds)


def test_adding_axis_values_keeps_other_runs_seeds_and_ids():
    small = expand(sweep_doc(grid={"subscriptions.k": [1, 2], "events.count": [10, 20]}))
    large = expand(sweep_doc(grid={"subscriptions.k": [1, 2, 5], "events.count": [10, 20, 30]}))
    by_params = {str(r.params): (r.seed, r.run_id) for r in large.runs}
    for run in small.runs:
        assert by_params[str(run.params)] == (run.seed, run.run_id)
    assert len({r.seed for r in large.runs}) == 9


def test_seed_ignore_shares_seeds_across_that_axis():
    sweep = expand(
        sweep_doc(
            grid={"subscriptions.k": [1, 2], "events.count": [10, 20]},
            seed_ignore=["subscriptions.k"],
        )
    )
    seeds = {(r.params["subscriptions.k"], r.params["events.count"]): r.seed for r in sweep.runs}
    assert seeds[1, 10] == seeds[2, 10] != seeds[1, 20] == seeds[2, 20]
    assert len({r.run_id for r in sweep.runs}) == 4  # still four distinct runs


def test_grid_crossed_with_zip_and_repeats():
    sweep = expand(
        sweep_doc(
            grid={"subscriptions.k": [1, 2, 3]},
            zip={
                "objects.distribution": ["uniform", "clustered"],
                "subscriptions.spread": [1, 0.5],
            },
            repeat=2,
        )
    )
    assert len(sweep.runs) == 3 * 2 * 2
    assert sweep.axes == [["subscriptions.k"], ["objects.distribution", "subscriptions.spread"]]
    combos = [
        (
            r.params["subscriptions.k"],
            r.params["objects.distribution"],
            r.params["subscriptions.spread"],
            r.repeat,
        )
        for r in sweep.runs
    ]
    assert combos[:4] == [
        (1, "uniform", 1.0, 0),
        (1, "uniform", 1.0, 1),
        (1, "clustered", 0.5, 0),
        (1, "clustered", 0.5, 1),
    ]
    assert {c[1:3] for c in combos} == {("uniform", 1.0), ("clustered", 0.5)}  # zipped
    assert len({r.seed for r in sweep.runs}) == 12
    run = sweep.runs[2]
    assert run.scenario["seed"] == run.seed and run.scenario["run"]["progress"] is False
    assert run.scenario["objects"]["distribution"] == "clustered"
    assert expand(sweep_doc(grid={"subscriptions.k": [1]}), repeat=3).repeat == 3


def test_several_zip_groups_and_list_valued_axes():
    sweep = expand(
        sweep_doc(
            zip=[{"subscriptions.k": [1, 2]}, {"events.count": [5, 6, 7]}],
            grid={"algorithm.approaches": [["paint-dense"], ["unicast"]]},
        )
    )
    assert len(sweep.runs) == 2 * 2 * 3
    assert sweep.runs[0].params["algorithm.approaches"] == ["paint-dense"]


# -------------------------------------------------------- running and resuming


def test_resume_skips_done_runs_and_reruns_a_deleted_one(tmp_path):
    sweep = expand(sweep_doc(grid={"subscriptions.k": [1, 2, 3]}))
    first = run_sweep(sweep, tmp_path, serial=True, progress=False)
    assert (first.total, first.skipped, first.ran, first.failed) == (3, 0, 3, [])
    rows = read_results(tmp_path)
    assert len(rows) == 3 * 4 and set(rows.status) == {"ok"}
    assert set(rows["subscriptions.k"]) == {1, 2, 3} and set(rows.k) == {1, 2, 3}
    assert (tmp_path / "_sweep.json").exists()

    again = run_sweep(sweep, tmp_path, serial=True, progress=False)
    assert (again.skipped, again.ran) == (3, 0)
    pd.testing.assert_frame_equal(read_results(tmp_path), rows)

    victim = sweep.runs[1].run_id
    kept = {r.run_id: run_file(tmp_path, r.run_id).stat().st_mtime_ns for r in sweep.runs}
    run_file(tmp_path, victim).unlink()
    third = run_sweep(sweep, tmp_path, serial=True, progress=False)
    assert (third.skipped, third.ran) == (2, 1)
    for run_id, mtime in kept.items():
        if run_id != victim:
            assert run_file(tmp_path, run_id).stat().st_mtime_ns == mtime
    pd.testing.assert_frame_equal(no_time(read_results(tmp_path)), no_time(rows))
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_failing_run_is_recorded_and_retried(tmp_path, monkeypatch):
    real = runner.run

    def flaky(scenario, *args, **kwargs):
        if scenario["subscriptions"]["k"] == 2:
            raise RuntimeError("boom at k=2")
        return real(scenario, *args, **kwargs)

    monkeypatch.setattr(runner, "run", flaky)
    sweep = expand(sweep_doc(grid={"subscriptions.k": [1, 2, 3]}))
    report = run_sweep(sweep, tmp_path, serial=True, progress=False)
    assert report.ran == 3 and len(report.failed) == 1
    assert report.failed[0][1] == "RuntimeError: boom at k=2"
    rows = read_results(tmp_path)
    bad = rows[rows.status == "error"]
    assert len(bad) == 1 and bad.iloc[0]["subscriptions.k"] == 2 and pd.isna(bad.iloc[0].approach)
    assert "boom at k=2" in bad.iloc[0].traceback
    assert len(rows[rows.status == "ok"]) == 2 * 4

    monkeypatch.setattr(runner, "run", real)
    retry = run_sweep(sweep, tmp_path, serial=True, progress=False)
    assert (retry.skipped, retry.ran, retry.failed) == (2, 1, [])
    rows = read_results(tmp_path)
    assert len(rows) == 3 * 4 and set(rows.status) == {"ok"}


def test_keep_events_writes_per_event_frames(tmp_path):
    sweep = expand(sweep_doc(grid={"subscriptions.k": [1]}, keep_events=True))
    run_sweep(sweep, tmp_path, serial=True, progress=False)
    events = pd.read_parquet(tmp_path / "_events" / f"run-{sweep.runs[0].run_id}.parquet")
    assert len(events) == 4 * 20  # approaches × events
    assert len(read_results(tmp_path)) == 4  # the events directory is not read as results


@pytest.fixture(scope="module")
def spark():
    from cnsim.simulations.sweep import spark_session, stop_spark

    session = spark_session("local[2]", app_name="cnsim-test-sweep")
    yield session
    stop_spark(session)


@pytest.mark.slow
def test_serial_and_spark_give_identical_rows(tmp_path, spark):
    doc = sweep_doc(
        grid={"subscriptions.k": [1, 3]},
        zip={"objects.distribution": ["uniform", "clustered"], "events.count": [15, 25]},
    )
    sweep = expand(doc)
    serial = run_sweep(sweep, tmp_path / "serial", serial=True, progress=False)
    on_spark = run_sweep(sweep, tmp_path / "spark", spark=spark, progress=False)
    assert serial.ran == on_spark.ran == 4 and not on_spark.failed
    a, b = read_results(tmp_path / "serial"), read_results(tmp_path / "spark")
    assert len(a) == 4 * 4
    pd.testing.assert_frame_equal(no_time(a), no_time(b))
    assert run_sweep(sweep, tmp_path / "spark", spark=spark, progress=False).ran == 0


@pytest.mark.slow
def test_churn_and_faults_are_the_same_serially_and_on_spark(tmp_path, spark):
    doc = sweep_doc(
        grid={"faults.replication": [0, 1]},
        zip={"churn.joins": [1.0, 3.0], "churn.lifetime": ["exponential", "pareto"]},
    )
    doc["overlay"] = {"kind": "meghdoot"}
    doc["network"] = {"ip_nodes": 200, "brokers": 16}
    doc["faults"] = {"rate": 0.1, "repair_time": 5.0}
    doc["churn"] = {"lifetime": "exponential", "mean_lifetime": 30.0}
    sweep = expand(doc)
    serial = run_sweep(sweep, tmp_path / "serial", serial=True, progress=False)
    on_spark = run_sweep(sweep, tmp_path / "spark", spark=spark, progress=False)
    assert serial.ran == on_spark.ran == 4 and not on_spark.failed and not serial.failed
    a, b = read_results(tmp_path / "serial"), read_results(tmp_path / "spark")
    pd.testing.assert_frame_equal(no_time(a), no_time(b))
    assert (a["total_failures"] > 0).all() and (a["total_joins"] > 0).all()


# ----------------------------------------------------------------- command line


def test_command_dry_run_and_errors(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text(
        '[objects]\ncount = 100\n[sweep]\ngrid = {"subscriptions.k" = [1, 2]}\n'
        '[quick]\nsweep.grid."subscriptions.k" = [4]\n'
    )
    result = CliRunner().invoke(
        app, ["sweep", str(path), "--out", str(tmp_path / "o"), "--dry-run"]
    )
    assert result.exit_code == 0, result.output
    assert "2 runs" in result.output and "subscriptions.k=2" in result.output
    quick = CliRunner().invoke(app, ["sweep", str(path), "--out", "o", "--dry-run", "--quick"])
    assert "1 runs" in quick.output and "subscriptions.k=4" in quick.output
    repeat = CliRunner().invoke(app, ["sweep", str(path), "--out", "o", "--repeat", "0"])
    assert isinstance(repeat.exception, ConfigError)
    assert str(repeat.exception).endswith("--repeat = 0 is out of range; allowed: an integer >= 1")

    # The script entry of spark-submit (a file path) runs the same command.
    script = ROOT / "cnsim" / "simulations" / "sweep" / "__main__.py"
    cmd = [sys.executable, str(script), str(path), "--out", str(tmp_path / "o"), "--dry-run"]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0 and "2 runs" in proc.stdout, proc.stderr

    path.write_text('[sweep]\ngrid = {"subscriptions.k" = [0]}\n')
    cmd = [sys.executable, "-m", "cnsim.simulations.sweep", str(path), "--out", str(tmp_path / "o")]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: ") and "subscriptions.k = 0" in proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "o").exists()  # nothing done before validation


def test_example_sweeps_are_valid():
    files = sorted((ROOT / "examples" / "sweeps").glob("*.toml"))
    sweeps = [f for f in files if "[sweep]" in f.read_text()]
    assert len(sweeps) >= 10
    for path in sweeps:
        full, quick = load_sweep(path), load_sweep(path, quick=True)
        assert 1 <= len(quick.runs) <= len(full.runs), path


def test_stopping_spark_gives_ctrl_c_back_to_python():
    """PySpark's SIGINT handler (cancel the context's jobs) outlives its context; a
    session cnsim stops hands Ctrl-C back to Python's KeyboardInterrupt."""
    import signal

    from cnsim.simulations.sweep import stop_spark

    class Session:  # what a SparkContext leaves behind: its own handler
        def stop(self) -> None:
            signal.signal(signal.SIGINT, lambda *_: None)

    stop_spark(Session())
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
