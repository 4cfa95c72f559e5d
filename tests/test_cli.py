"""The command line: run, verify, and clear errors for bad input: unknown commands and
options, bad option values (harness of the bad-input tables: tests/refusals.py); dry
runs without --out, help texts (whole, with real metavars), progress on a terminal and
off one, the files a run names, Spark kept off the screen."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
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
    Case("bench-partitions-overlay", ["bench", "partitions", "--quick", "--overlay", "nope"],
         r"--overlay = 'nope' is not one of the choices; allowed: one of 'meghdoot'"),
]


@table(BAD_OPTIONS)
def test_a_bad_command_line_is_refused_clearly(case: Case, bad_inputs, capsys, monkeypatch) -> None:
    assert_refused(case, bad_inputs, capsys, monkeypatch)


# -- the first ten minutes: dry runs, whole help, progress, what a run wrote ---------

TINY_SWEEP = """base = "s.toml"
[sweep]
name = "tiny"
grid = { "subscriptions.k" = [1, 2, 3] }
"""
MEGHDOOT = SMALL.replace('kind = "ideal"', 'kind = "meghdoot"') + (
    "[network]\nip_nodes = 80\nbrokers = 4\n"
)


def cnsim_process(args, cwd, stderr=subprocess.PIPE, **env):
    """``cnsim ARGS`` in a child process (its stderr a pipe unless given)."""
    return subprocess.Popen(
        [sys.executable, "-c", "from cnsim.cli import main; main()", *args],
        stdout=subprocess.PIPE, stderr=stderr, text=True, cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT), **env},
    )  # fmt: skip


def test_a_dry_run_needs_no_out(tmp_path):
    runner = CliRunner()
    cfg = write(tmp_path, SMALL)
    result = runner.invoke(app, ["run", str(cfg), "--dry-run"])
    assert result.exit_code == 0, result.output
    assert "estimated peak memory" in result.output and "nothing run: --dry-run" in result.output
    (tmp_path / "sweep.toml").write_text(TINY_SWEEP)
    result = runner.invoke(app, ["sweep", str(tmp_path / "sweep.toml"), "--dry-run"])
    assert result.exit_code == 0, result.output
    assert "3 runs (nothing run: --dry-run)" in result.output
    result = runner.invoke(app, ["reproduce", "seed003", "--quick", "--dry-run"])
    assert result.exit_code == 0, result.output
    assert result.output.rstrip().endswith("sweeps (nothing run: --dry-run)")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.toml", "sweep.toml"]


def test_without_a_dry_run_out_is_needed(tmp_path):
    cfg = write(tmp_path, SMALL)
    for args in (["run", str(cfg)], ["reproduce", "seed003", "--quick"]):
        proc = cnsim_process(args, tmp_path)
        _, err = proc.communicate()
        assert proc.returncode == 2
        assert "Missing option '--out' (needed unless --dry-run)" in err, err


def all_help_pages() -> dict[str, str]:
    """Every command's and group's --help, by command line."""
    from cnsim.network.cli import topology_app

    runner = CliRunner()
    lines = [[], ["bench"], ["topology"]]
    lines += [[c] for c in ("run", "verify", "sweep", "report", "reproduce")]
    lines += [["bench", name] for name in BENCHES]
    lines += [["topology", c.name or c.callback.__name__] for c in topology_app.registered_commands]
    pages = {}
    for words in lines:
        result = runner.invoke(app, [*words, "--help"])
        assert result.exit_code == 0, (words, result.output)
        pages[" ".join(words)] = result.output
    return pages


def test_help_texts_are_whole_with_real_metavars():
    pages = all_help_pages()
    for line, text in pages.items():
        for lost in ("<bool>", "<str>", "<int>", "<path>", "<float>", "--install-completion"):
            assert lost not in text, (line, lost)
        assert "--help  " in text or "--help " in text, line  # a flag, shown as one
        if "Commands:" in text:  # a group lists each command's first sentence, not cut
            assert "..." not in text.split("Commands:")[1], line
    assert "apply the file's  table" not in pages["sweep"]
    assert "[quick] table" in pages["sweep"] and "[quick] table" in pages["reproduce"]
    assert "--master URL" in pages["sweep"] and "--repeat INTEGER" in pages["sweep"]
    assert "--out PATH" in pages["run"] and "--events INTEGER" in pages["run"]
    assert "--json PATH" in pages["bench paint"]
    assert "--n INTEGER,.." in pages["bench betree_insert"]
    assert "--latency-ms FLOAT" in pages["topology build"]
    assert " sweep [OPTIONS] SWEEP\n" in pages["sweep"]
    # the top-level list: each command's first sentence, whole, wrapped between words
    top = " ".join(pages[""].split())
    for sentence in (
        "Run a scenario (counting or timed mode) and write its per-event metrics and summary.",
        "Run a parameter sweep on Spark (one task per run), resuming an interrupted one.",
    ):
        assert sentence in top
    assert "one. Exits 1" not in top  # the rest of the help is for sweep --help


def test_a_run_names_every_file_it_wrote(tmp_path, monkeypatch):
    monkeypatch.setenv("CNSIM_CACHE", str(tmp_path / "cache"))
    cfg = write(tmp_path, MEGHDOOT)
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["run", str(cfg), "--out", str(out), "--events", "20"])
    assert result.exit_code == 0, result.output
    written = sorted(p.name for p in out.iterdir() if p.name != ".cnsim.json")
    assert "brokers.parquet" in written  # an overlay run: three files
    paths = [str(out / name) for name in written]
    expected = "wrote " + ", ".join(paths[:-1]) + " and " + paths[-1]
    assert result.output.rstrip().splitlines()[-1] == expected


def test_progress_off_a_terminal_is_plain_lines(tmp_path):
    """stderr a pipe: one line per interval (0 here: every update) with the events done,
    the rate and the time left; no bar redrawn with carriage returns."""
    cfg = write(tmp_path, SMALL.replace("count = 50", "count = 240"))
    proc = cnsim_process(["run", str(cfg), "--out", str(tmp_path / "o")], tmp_path,
                         CNSIM_PROGRESS_S="0")  # fmt: skip
    out, err = proc.communicate()
    assert proc.returncode == 0, err
    lines = [line for line in err.splitlines() if line.startswith("run: ")]
    assert len(lines) >= 100 and "\r" not in err
    assert re.fullmatch(r"run: 1/240 events \(0%\), [\d.]+ events/(s|min), ETA .+", lines[0])
    assert re.fullmatch(r"run: 240/240 events \(100%\) in \d.*", lines[-1])
    assert out.rstrip().splitlines()[-1].startswith("wrote ")


def test_progress_on_a_terminal_is_a_bar(tmp_path):
    """stderr a terminal (a pseudo-terminal here): tqdm's bar, no plain lines."""
    import fcntl
    import pty
    import struct
    import termios

    cfg = write(tmp_path, SMALL.replace("count = 50", "count = 240"))
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))  # 80 columns
    proc = cnsim_process(["run", str(cfg), "--out", str(tmp_path / "o")], tmp_path,
                         stderr=follower, CNSIM_PROGRESS_S="0")  # fmt: skip
    os.close(follower)
    shown = b""
    while True:  # read until the child closes the terminal
        try:
            chunk = os.read(leader, 4096)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    proc.communicate()
    assert proc.returncode == 0
    text = shown.decode(errors="replace")
    assert "\r" in text and "/240" in text and "ETA" not in text


def test_a_sweep_off_a_terminal_prints_lines_over_its_runs(tmp_path):
    write(tmp_path, SMALL.replace("count = 50", "count = 10"))
    (tmp_path / "sweep.toml").write_text(TINY_SWEEP)
    args = ["sweep", "sweep.toml", "--out", "ds", "--serial"]
    proc = cnsim_process(args, tmp_path, CNSIM_PROGRESS_S="0")
    out, err = proc.communicate()
    assert proc.returncode == 0, err
    lines = err.splitlines()
    assert [line.split(",")[0] for line in lines[:3]] == [
        "tiny: 1/3 runs (33%)", "tiny: 2/3 runs (67%)", "tiny: 3/3 runs (100%)"
    ]  # fmt: skip
    assert re.fullmatch(r"tiny: 3/3 runs \(100%\) in \d.*", lines[-1]) and "\r" not in err
    assert "3 run now, 0 failed" in out


def test_what_the_jvm_prints_goes_to_the_log_not_the_screen(tmp_path, capfd):
    """A quiet Spark session starts its JVM with stderr pointed at the log file: a child
    started there writes into the log, and this process's stderr is back after."""
    from cnsim.simulations.sweep.executors import _stderr_to

    log = tmp_path / "spark.log"
    with _stderr_to(log):
        child = "import sys; sys.stderr.write('WARNING: Using incubator modules')"
        subprocess.run([sys.executable, "-c", child], check=True)
    print("after", file=sys.stderr)
    assert log.read_text() == "WARNING: Using incubator modules"
    err = capfd.readouterr().err
    assert "incubator" not in err and "after" in err


@pytest.mark.slow
def test_a_spark_sweep_prints_no_jvm_noise(tmp_path):
    """On Spark local[1], stderr a pipe: the progress lines only; Spark's and the JVM's
    messages are in the log file; --verbose would show them."""
    write(tmp_path, SMALL.replace("count = 50", "count = 10"))
    (tmp_path / "sweep.toml").write_text(TINY_SWEEP)
    args = ["sweep", "sweep.toml", "--out", "ds", "--master", "local[1]"]
    proc = cnsim_process(args, tmp_path, CNSIM_PROGRESS_S="0")
    out, err = proc.communicate()
    assert proc.returncode == 0, err
    assert all(line.startswith("tiny: ") for line in err.splitlines()), err
    assert "3 run now, 0 failed" in out
