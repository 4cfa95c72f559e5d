"""The command line: run, verify, and clear errors for bad input: unknown commands and
options, bad option values (harness of the bad-input tables: tests/refusals.py)."""

import subprocess
import sys
from pathlib import Path

from refusals import Case, assert_refused, table
from typer.testing import CliRunner

from cnsim.cli import BENCHES, app

ROOT = Path(__file__).resolve().parents[1]
SMALL = """
seed = 3
[objects]
count = 200
[subscriptions]
count = 2000
k = 4
[events]
count = 50
[algorithm]
approaches = ["paint-dense", "paint-sparse(0.5)"]
[overlay]
kind = "ideal"
"""


def write(tmp_path, text):
    path = tmp_path / "s.toml"
    path.write_text(text)
    return path


def test_run_and_verify(tmp_path):
    runner = CliRunner()
    cfg = write(tmp_path, SMALL)
    result = runner.invoke(app, ["run", str(cfg), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert "paint-sparse(0.5)" in result.output
    assert (tmp_path / "out" / "events.parquet").exists()
    result = runner.invoke(app, ["verify", str(cfg), "--events", "30"])
    assert result.exit_code == 0, result.output
    assert "all checks passed" in result.output


def test_bad_config_is_one_line_without_traceback(tmp_path):
    cfg = write(tmp_path, SMALL.replace("k = 4", "k = 0"))
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "from cnsim.cli import main; main()",
            "run",
            str(cfg),
            "--out",
            str(tmp_path / "o"),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.returncode == 2
    assert "subscriptions.k = 0" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "o").exists()  # rejected before any work


def test_examples_are_valid():
    from cnsim.simulations.config import load

    for path in (ROOT / "examples").glob("*.toml"):
        load(path)


def test_run_and_report_a_command_stream_scenario(tmp_path, monkeypatch):
    """examples/churn.toml (seed 001's command stream over the content-based overlay)
    through run, its summary table and report."""
    monkeypatch.setenv("CNSIM_CACHE", str(tmp_path / "cache"))
    runner = CliRunner()
    out = tmp_path / "churn"
    args = ["run", str(ROOT / "examples" / "churn.toml"), "--out", str(out), "--events", "40"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "commands on 3 attributes, overlay: content-based" in result.output
    report = runner.invoke(app, ["report", str(out), "--out", str(tmp_path / "rep")])
    assert report.exit_code == 0, report.output
    assert (tmp_path / "rep" / "index.html").is_file()


BAD_OPTIONS: list[Case] = [
    Case("no-such-command", ["simulate"], r"No such command 'simulate'"),
    Case("no-such-option", ["run", "{d}/good.toml", "--out", "{d}/o", "--evnts", "3"], r"--evnts"),
    Case("missing-out", ["run", "{d}/good.toml"], r"--out"),
    Case(
        "run-events-negative",
        ["run", "{d}/good.toml", "--out", "{d}/o", "--events", "-1"],
        r"--events = -1",
    ),
    Case("verify-events-negative", ["verify", "{d}/good.toml", "--events", "-3"], r"--events = -3"),
    Case(
        "run-events-text",
        ["run", "{d}/good.toml", "--out", "{d}/o", "--events", "many"],
        r"--events.*many",
    ),
    *[
        Case(f"bench-{name}-json-{label}", ["bench", name, "--quick", "--json", path], message)
        for name in BENCHES  # every benchmark, as the CLI registers them
        for label, path, message in [
            ("nofolder", "{d}/missing/out.json", r"--json .*missing.*does not exist"),
            ("dir", "{d}/foreign", r"--json .*foreign.*is a folder"),
        ]
    ],
    Case("bench-json-empty", ["bench", "paint", "--quick", "--json", ""], r"--json"),
]


@table(BAD_OPTIONS)
def test_a_bad_command_line_is_refused_clearly(case: Case, bad_inputs, capsys, monkeypatch) -> None:
    assert_refused(case, bad_inputs, capsys, monkeypatch)
