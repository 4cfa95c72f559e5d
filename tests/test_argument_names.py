"""A message names an argument as its caller spelled it: option names on the command
line (``--out 'x'``, ``--overwrite``, ``--repeat``, ``--quick``, ``--master``), keyword
names in the Python API (``out='x'``, ``overwrite=True``, ``repeat``, ``quick=True``,
``master='x'``; ``Result.write``'s ``out_dir``), never the other's. A reproduction's
folders inside ``--out`` are named through ``--out`` itself. A ``$CNSIM_PROGRESS_S`` that
is not a number of seconds is refused before any work. Harness: tests/refusals.py."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pandas as pd
import pytest
from refusals import Case, assert_refused, table

import cnsim
from cnsim import outputs
from cnsim.errors import ConfigError, InputError
from cnsim.simulations.reproduce import reproduction

LONG = "a" * 300  # a name longer than the 255 bytes a file system allows


def _scenario(d: Path, **tables):
    return cnsim.Scenario.from_toml(d / "good.toml", **tables)


def _run(d: Path, out, **kw):
    return cnsim.run(_scenario(d), out=out, **kw)


def _write(d: Path, out_dir, **kw):
    return cnsim.Result(pd.DataFrame({"a": [1]}), None, {"source": "t"}).write(out_dir, **kw)


def _sweep(d: Path, out, sweep: str = "sweep.toml", **kw):
    return cnsim.sweep(d / sweep, out, serial=kw.pop("serial", True), **kw)


def _reproduce(d: Path, out, **kw):
    return cnsim.reproduce("seed003", out, **{"quick": True, "serial": True, **kw})


def _deep(d: Path, size: int) -> Path:
    """A path under ``d`` of exactly ``size`` bytes, of short names."""
    path = str(d) + "/x"
    while len(path) + 2 <= size:
        path += "/b"
    return Path(path + "c" * (size - len(path)))


# What the API says, keyword names only ---------------------------------------------

OUT_API = r"^out='[^']*{}'"
API_CASES = [
    Case("run-out-file", api=lambda d: _run(d, d / "a_file"),
         message=OUT_API.format("a_file") + r": is a file, not a folder"),
    Case("run-out-empty", api=lambda d: _run(d, ""), message=r"^out='': an empty path"),
    Case("run-out-other-kind", api=lambda d: _run(d, d / "earlier_sweep"),
         message=OUT_API.format("earlier_sweep") + r": holds a cnsim sweep .*pass "
         r"overwrite=True to replace it$"),
    Case("run-out-foreign", api=lambda d: _run(d, d / "foreign"),
         message=OUT_API.format("foreign") + r": holds 'notes\.txt', which cnsim did not"),
    Case("run-out-long-name", api=lambda d: _run(d, d / LONG / "x"),
         message=r"^out='[^']*\.\.\.: a name of 300 bytes; allowed: names of at most 255"),
    Case("run-out-long-path", api=lambda d: _run(d, _deep(d, 5000)),
         message=r"^out: a path of 5000 bytes; allowed: under 4096"),
    Case("run-out-under-file", api=lambda d: _run(d, d / "a_file" / "x"),
         message=OUT_API.format("x") + r": '[^']*a_file' is a file, not a folder"),
    Case("result-write-file", api=lambda d: _write(d, d / "a_file"),
         message=r"^out_dir='[^']*a_file': is a file, not a folder"),
    Case("result-write-other-kind", api=lambda d: _write(d, d / "earlier_report"),
         message=r"^out_dir='[^']*earlier_report': holds a cnsim report .*overwrite=True"),
    Case("result-write-empty", api=lambda d: _write(d, " "), message=r"^out_dir=' ': an empty"),
    Case("sweep-out-file", api=lambda d: _sweep(d, d / "a_file"),
         message=OUT_API.format("a_file") + r": is a file"),
    Case("sweep-out-other-kind", api=lambda d: _sweep(d, d / "earlier_run"),
         message=OUT_API.format("earlier_run") + r": holds a cnsim run .*overwrite=True"),
    Case("sweep-out-other-version", api=lambda d: _sweep(d, d / "earlier_sweep"),
         message=r"this version of it does not have \(e\.g\. run zz; another quick, repeat or "
         r"axis values\?\); write the sweep elsewhere, or pass overwrite=True"),
    Case("sweep-repeat-0", api=lambda d: _sweep(d, d / "new", repeat=0),
         raises=ConfigError, message=r"sweep\.toml: repeat = 0 is out of range"),
    Case("sweep-repeat-text", api=lambda d: _sweep(d, d / "new", repeat="3"),
         raises=ConfigError, message=r"sweep\.toml: repeat = '3' "),
    Case("sweep-quick-without-table", api=lambda d: _sweep(d, d / "new", quick=True),
         raises=ConfigError, message=r"sweep\.toml: quick=True is given but the file has no"),
    Case("sweep-master-form", api=lambda d: _sweep(d, d / "new", serial=False, master="yarn:/x"),
         message=r"^master='yarn:/x': not a Spark master URL; allowed: local"),
    Case("sweep-master-unreachable",
         api=lambda d: _sweep(d, d / "new", serial=False, master="spark://127.0.0.1:9"),
         message=r"^master='spark://127\.0\.0\.1:9': cannot reach the Spark master .*use "
         r"master='local\[\*\]' \(or serial=True\)$"),
    Case("report-out-file", api=lambda d: cnsim.report(d / "earlier_run", d / "a_file"),
         message=OUT_API.format("a_file") + r": is a file"),
    Case("report-out-is-src", api=lambda d: cnsim.report(d / "earlier_run", d / "earlier_run"),
         message=OUT_API.format("earlier_run") + r": holds a cnsim run .*overwrite=True"),
    Case("report-out-other-kind",
         api=lambda d: cnsim.report(d / "earlier_run", d / "earlier_sweep"),
         message=OUT_API.format("earlier_sweep") + r": holds a cnsim sweep .*overwrite=True"),
    Case("reproduce-out-file", api=lambda d: _reproduce(d, d / "a_file"),
         message=OUT_API.format("a_file") + r": is a file"),
    Case("reproduce-out-other-kind", api=lambda d: _reproduce(d, d / "earlier_sweep"),
         message=OUT_API.format("earlier_sweep") + r": holds a cnsim sweep .*overwrite=True"),
    Case("reproduce-out-quick", api=lambda d: _reproduce(d, d / "repro", quick=False),
         message=OUT_API.format("repro") + r": holds the quick=True reproduction"),
    Case("reproduce-master", api=lambda d: _reproduce(d, d / "new", serial=False, master="x"),
         message=r"^master='x': not a Spark master URL"),
    Case("reproduce-inner-run", api=lambda d: _reproduce(d, d / "repro_run"),
         message=OUT_API.format("repro_run") + r", its sub-folder 'sweeps/table1': holds a "
         r"cnsim run .*pass overwrite=True"),
]  # fmt: skip
CONFIG_ERRORS = {"sweep-repeat-0", "sweep-repeat-text", "sweep-quick-without-table"}
for _c in API_CASES:
    _c.raises = ConfigError if _c.id in CONFIG_ERRORS else InputError

# What the command line says, option names only -------------------------------------

OUT_CLI = r"^error: --out '[^']*{}'"
CLI_CASES = [
    Case("run-out-file", ["run", "good.toml", "--out", "{d}/a_file"],
         OUT_CLI.format("a_file") + r": is a file, not a folder"),
    Case("run-out-other-kind", ["run", "good.toml", "--out", "{d}/earlier_sweep"],
         OUT_CLI.format("earlier_sweep") + r": holds a cnsim sweep .*pass --overwrite to"),
    Case("run-out-long-path", ["run", "good.toml", "--out", "{deep}"],
         r"^error: --out: a path of \d+ bytes; allowed: under 4096$"),
    Case("sweep-out-other-kind", ["sweep", "sweep.toml", "--serial", "--out", "{d}/earlier_run"],
         OUT_CLI.format("earlier_run") + r": holds a cnsim run .*--overwrite"),
    Case("sweep-out-other-version",
         ["sweep", "sweep.toml", "--serial", "--out", "{d}/earlier_sweep"],
         r"another --quick, --repeat or axis values\?\); write the sweep elsewhere, or pass "
         r"--overwrite"),
    Case("sweep-repeat-0", ["sweep", "sweep.toml", "--serial", "--out", "o", "--repeat", "0"],
         r"^error: sweep\.toml: --repeat = 0 is out of range"),
    Case("sweep-quick-without-table",
         ["sweep", "sweep.toml", "--serial", "--out", "o", "--quick"],
         r"^error: sweep\.toml: --quick is given but the file has no"),
    Case("sweep-master-unreachable",
         ["sweep", "sweep.toml", "--out", "o", "--master", "spark://127.0.0.1:9"],
         r"^error: --master 'spark://127\.0\.0\.1:9': cannot reach .*use --master "
         r"'local\[\*\]' \(or --serial\)$"),
    Case("report-out-other-kind", ["report", "{d}/earlier_run", "--out", "{d}/earlier_sweep"],
         OUT_CLI.format("earlier_sweep") + r": holds a cnsim sweep .*--overwrite"),
    Case("reproduce-out-quick", ["reproduce", "seed003", "--serial", "--out", "{d}/repro"],
         OUT_CLI.format("repro") + r": holds the --quick reproduction"),
    Case("reproduce-inner-run",
         ["reproduce", "seed003", "--quick", "--serial", "--out", "{d}/repro_run"],
         OUT_CLI.format("repro_run") + r", its sub-folder 'sweeps/table1': holds a cnsim run "
         r".*pass --overwrite to replace it$"),
    Case("reproduce-inner-other-sweep",
         ["reproduce", "seed003", "--quick", "--serial", "--out", "{d}/repro_sweep"],
         OUT_CLI.format("repro_sweep") + r", its sub-folder 'sweeps/table2': holds the "
         r"dataset of sweep 's1', not of 'table2'"),
    Case("reproduce-inner-path-too-long",
         ["reproduce", "seed003", "--quick", "--serial", "--out", "{deep4090}"],
         r"^error: --out: a path of 41\d\d bytes; allowed: under 4096$"),
]  # fmt: skip
for _c in CLI_CASES:
    _c.argv = [a.replace("{deep}", "{d}/" + "b/" * 2500) for a in _c.argv]


def _earlier(folder: Path, kind: str, name: str, files: dict[str, bytes], **extra) -> None:
    """A cnsim folder as its writer leaves it: its marker lists every file."""
    with outputs.replacing(folder, outputs.marker(kind, name, **extra)) as stage:
        for rel, data in files.items():
            (stage / rel).write_bytes(data)


def _reproduction(root: Path, quick: bool = True) -> None:
    parts = [f"sweeps/{n}" for n in reproduction("seed003").sweeps] + ["report"]
    root.mkdir()
    outputs.mark(root, outputs.marker("reproduction", "seed003", quick=quick, parts=parts))


@pytest.fixture
def places(bad_inputs: Path) -> Path:
    """The bad-input folder, its earlier results listed in their markers as cnsim writes
    them, and reproductions whose sweeps' folders hold a cnsim run or another sweep."""
    for name in ("earlier_run", "earlier_sweep", "earlier_report"):
        folder = bad_inputs / name
        held = json.loads((folder / outputs.MARKER).read_text())
        outputs.write_marker(folder, {**held, "files": outputs.listing(folder)})
    _reproduction(bad_inputs / "repro")
    _reproduction(bad_inputs / "repro_run")
    _earlier(bad_inputs / "repro_run/sweeps/table1", "run", "r", {"events.parquet": b"PAR1"})
    _reproduction(bad_inputs / "repro_sweep")
    manifest = json.dumps({"name": "s1", "runs": []}).encode()
    _earlier(bad_inputs / "repro_sweep/sweeps/table2", "sweep", "s1", {"_sweep.json": manifest})
    return bad_inputs


@table(API_CASES)
def test_the_api_names_its_keywords(case: Case, places: Path, capsys, monkeypatch) -> None:
    said = []

    def call(d: Path) -> None:
        try:
            case_api(d)
        except Exception as exc:
            said.append(str(exc))
            raise

    case_api = case.api
    assert_refused(dataclasses.replace(case, api=call), places, capsys, monkeypatch)
    assert "--" not in said[0], said[0]  # no option name reaches a Python caller


@table(CLI_CASES)
def test_the_cli_names_its_options(case: Case, places: Path, capsys, monkeypatch) -> None:
    case.argv = [a.replace("{deep4090}", str(_deep(places, 4090))) for a in case.argv]
    assert_refused(case, places, capsys, monkeypatch)


# $CNSIM_PROGRESS_S ---------------------------------------------------------------------

PROGRESS = "@[run]\nprogress = true\n"  # a scenario that shows its progress
BAD_INTERVALS = ["abc", "-1", "nan", "inf", "1e999", "10s"]
PROGRESS_CASES = [
    *[
        Case(f"{cmd}-{value}", argv, expect=2, env={"CNSIM_PROGRESS_S": value},
             message=rf"^error: \$CNSIM_PROGRESS_S = '{value}' is not a number of seconds; "
             r"allowed: a finite number >= 0")
        for value in BAD_INTERVALS
        for cmd, argv in (("run", ["run", PROGRESS, "--out", "{d}/new"]),
                          ("verify", ["verify", PROGRESS]),
                          ("sweep", ["sweep", "sweep.toml", "--serial", "--out", "{d}/new"]))
    ],
    *[
        Case(f"api-{name}-{value}", api=call, raises=InputError,
             env={"CNSIM_PROGRESS_S": value},
             message=rf"^\$CNSIM_PROGRESS_S = '{value}' is not a number of seconds")
        for value in ("x", "-0.5")
        for name, call in (
            ("run", lambda d: cnsim.run(_scenario(d, run={"progress": True}), out=d / "new")),
            ("verify", lambda d: cnsim.verify(_scenario(d, run={"progress": True}))),
            ("sweep", lambda d: _sweep(d, d / "new")),
        )
    ],
]  # fmt: skip


@table(PROGRESS_CASES)
def test_a_progress_interval_that_is_no_number_is_refused(case, places, capsys, monkeypatch):
    assert_refused(case, places, capsys, monkeypatch)


def test_a_progress_interval_is_read_when_it_is_a_number(monkeypatch) -> None:
    from cnsim.simulations.progress import interval_s

    for text, seconds in (("", 10.0), ("0", 0.0), ("2.5", 2.5), (" 7 ", 7.0)):
        monkeypatch.setenv("CNSIM_PROGRESS_S", text)
        assert interval_s() == seconds
    monkeypatch.delenv("CNSIM_PROGRESS_S")
    assert interval_s() == 10.0
