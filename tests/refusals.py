"""Shared harness of the bad-input tables: every bad input gets a clear answer.

Each test module keeps a table of the bad inputs its module refuses — ``cnsim`` command
lines or Python API calls, each with the message it must give — and checks every row
with :func:`assert_refused`: exit status 2 (or, for the API, the documented exception),
one line on stderr naming the thing and the value, no traceback, and every file already
on disk — an earlier run's, sweep's and report's folders among them — byte-identical
afterwards.

The ``bad_inputs`` fixture (tests/conftest.py) lays out :data:`FILES` in a fresh folder,
the working directory of every case.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import re
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import cnsim
from cnsim import cli
from cnsim.errors import ConfigError

# A scenario small enough to start instantly; cases spoil one thing of it.
GOOD = """seed = 3
[objects]
count = 50
[subscriptions]
count = 200
k = 3
[events]
count = 5
[overlay]
kind = "ideal"
[run]
progress = false
"""
SWEEP = """base = "good.toml"
[sweep]
name = "s1"
grid = { "subscriptions.k" = [1, 2] }
"""
GRAPHML_BAD_LATENCY = """<?xml version="1.0" encoding="UTF-8"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
<key id="d0" for="edge" attr.name="latency" attr.type="string"/>
<graph edgedefault="undirected">
<node id="a"/><node id="b"/><node id="c"/>
<edge source="a" target="b"><data key="d0">fast</data></edge>
<edge source="b" target="c"><data key="d0">3</data></edge>
</graph></graphml>
"""

FILES: dict[str, str | bytes] = {
    "good.toml": GOOD,
    "sweep.toml": SWEEP,
    "latin1.toml": "seed = 1\n# caf\xe9\n".encode("latin-1"),
    "binary.toml": b"\x00\x01\x02\x03seed",
    "notoml.toml": "seed = = 1\n",
    "sweep_latin1.toml": "# \xe9\n[sweep]\nname='x'\n".encode("latin-1"),
    "sweep_badbase.toml": 'base = "latin1.toml"\n[sweep]\nname = "b"\n',
    "sweep_nobase.toml": 'base = "missing.toml"\n[sweep]\nname = "b"\n',
    "sweep_nan.toml": 'base = "good.toml"\n[sweep]\ngrid = { "subscriptions.k" = [1, nan] }\n',
    "sweep_other.toml": SWEEP.replace('"s1"', '"s2"'),
    "sweep_fewer.toml": SWEEP.replace("[1, 2]", "[1]"),
    "empty.graphml": "",
    "corrupt.graphml": "<graphml><graph><node id='a'/>",
    "latency.graphml": GRAPHML_BAD_LATENCY,
    "four.txt": "1 2 3.0\n2 3 4.0 9\n",
    "word.txt": "1 2\n3\n",
    "lat.txt": "1 2 fast\n",
    "mixed.txt": "1 2\n2 3 4.0\n",
    "binary.txt": b"\xff\xfe\x00\x01",
    "trace_bad.txt": "0.1\n0.2\nabc\n0.4\n0.5\n",
    "trace_down.txt": "0.1\n0.3\n0.2\n0.4\n0.5\n",
    "trace_short.txt": "0.1\n",
    "trace_neg.txt": "-1\n0.2\n0.3\n0.4\n0.5\n",
    # event files ([events] trace): 2 initial objects, then 5 events, each spoilt once
    **{
        f"events_{name}.csv": "time,object,op,x,y\n0,1,initial,0.1,0.5\n0,2,initial,0.2,0.6\n"
        + rows
        for name, rows in {
            "nocol": "",
            "nan": (
                "1,1,update,0.1,0.4\n2,2,update,0.2,nan\n3,1,update,0.1,0.3\n"
                "4,1,update,0.1,0.2\n5,1,update,0.1,0.1\n"
            ),
            "unknown": (
                "1,1,update,0.1,0.4\n2,7,update,0.2,0.3\n3,1,update,0.1,0.3\n"
                "4,1,update,0.1,0.2\n5,1,update,0.1,0.1\n"
            ),
            "absent": (
                "1,2,delete,,\n2,2,delete,,\n3,1,update,0.1,0.3\n"
                "4,1,update,0.1,0.2\n5,1,update,0.1,0.1\n"
            ),
            "unsorted": (
                "1,1,update,0.1,0.4\n3,1,update,0.1,0.3\n2,1,update,0.1,0.2\n"
                "4,1,update,0.1,0.1\n5,1,update,0.1,0.05\n"
            ),
            "type": (
                "1,1,update,0.1,0.4\n2,1,update,low,0.3\n3,1,update,0.1,0.2\n"
                "4,1,update,0.1,0.1\n5,1,update,0.1,0.05\n"
            ),
        }.items()
    },
    "events_nocol.csv": "time,object,x,y\n0,1,0.1,0.5\n",
    "a_file": "not a folder\n",
    "earlier_run/.cnsim.json": '{"kind": "run", "name": "earlier"}\n',
    "earlier_run/events.parquet": b"PAR1 earlier run's events",
    "earlier_run/summary.json": '{"earlier": true}\n',
    "earlier_sweep/.cnsim.json": '{"kind": "sweep", "name": "s1"}\n',
    "earlier_sweep/_sweep.json": json.dumps({"name": "s1", "runs": [{"run_id": "zz"}]}),
    "earlier_sweep/run-zz.parquet": b"PAR1 earlier sweep's rows",
    "earlier_report/.cnsim.json": '{"kind": "report", "name": "r"}\n',
    "earlier_report/index.html": "<html>earlier</html>\n",
    "foreign/notes.txt": "my notes\n",
    "bad_run/summary.json": "{not json",
    "bad_run/events.parquet": b"not parquet",
    "bad_marker/.cnsim.json": "{broken",
    "bad_marker/events.parquet": b"x",
}


@dataclass
class Case:
    """One bad input: ``argv`` of ``cnsim`` (``{d}``: the case's folder; an argument
    ``@<toml>`` is a scenario file, :data:`GOOD` with the tables of ``<toml>`` laid over)
    or an API call; the message must match ``message`` (a regex; the thing and the value)."""

    id: str
    argv: list[str] | None = None
    message: str = ""
    api: Any = None  # callable(d: Path) that must raise ``raises``
    raises: type[Exception] = ConfigError
    env: dict[str, str] = field(default_factory=dict)
    expect: int = 2


def table(cases: list[Case]) -> pytest.MarkDecorator:
    """``cases`` as the ``case`` parameter of a test, each named by its id (unique)."""
    ids = [c.id for c in cases]
    assert len(set(ids)) == len(ids), "case ids repeat"
    return pytest.mark.parametrize("case", cases, ids=ids)


def toml_value(value: Any) -> str:
    """``value`` written as a TOML value."""
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return repr(value)


def sweep_run(d: Path, sweep: str, out: str, **kw: Any) -> Any:
    """``cnsim.sweep`` of the sweep file ``sweep`` into ``out``, both under ``d``, serially."""
    return cnsim.sweep(d / sweep, d / out, serial=True, **kw)


def make_folder(root: Path) -> Path:
    """:data:`FILES` written under ``root``."""
    for name, content in FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def _snapshot(root: Path) -> dict[str, str]:
    """Every file under ``root`` (the world cache aside) and its digest."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "cache" not in p.relative_to(root).parts
    }


def _argv(case: Case, d: Path) -> list[str]:
    out = []
    for arg in case.argv or []:
        if arg.startswith("@"):  # an inline scenario: GOOD with the case's tables laid over
            path = d / "case.toml"
            path.write_text(_overlay(GOOD, arg[1:]), encoding="utf-8")
            arg = str(path)
        out.append(arg.replace("{d}", str(d)))
    return out


def _overlay(base: str, extra: str) -> str:
    """``extra`` laid over ``base`` (TOML texts): its tables' keys replace base's, a plain
    key replaces a table of the same name. A sweep file (``base =``) is kept as written."""
    more = tomllib.loads(extra)
    if "base" in more or "sweep" in more:
        return extra
    data = tomllib.loads(base)
    for key, value in more.items():
        if isinstance(value, dict) and isinstance(data.get(key), dict):
            data[key] = {**data[key], **value}
        else:
            data[key] = value
    top = [f"{k} = {toml_value(v)}" for k, v in data.items() if not isinstance(v, dict)]
    tables = [
        f"[{name}]\n" + "\n".join(f"{k} = {toml_value(v)}" for k, v in table.items())
        for name, table in data.items()
        if isinstance(table, dict)
    ]
    return "\n".join([*top, *tables]) + "\n"


@functools.cache
def _command() -> Any:
    """The click command typer builds from ``cnsim.cli.app`` (the same on every call)."""
    import typer.main

    return typer.main.get_command(cli.app)


def assert_refused(case: Case, folder: Path, capsys, monkeypatch) -> None:
    """``case`` run in ``folder`` is refused with one clear line and changes no file.

    A command line goes through ``cnsim.cli.main``, its error handling included; the
    command tree typer would rebuild from the app on each call is built once."""
    for name, value in case.env.items():
        monkeypatch.setenv(name, value.replace("{d}", str(folder)))
    argv = _argv(case, folder) if case.argv is not None else None
    before = _snapshot(folder)
    if case.api is not None:
        with pytest.raises(case.raises) as info:
            case.api(folder)
        message = str(info.value)
        assert "\n" not in message
    else:
        monkeypatch.setattr(sys, "argv", ["cnsim", *argv])
        command = _command()
        monkeypatch.setattr(cli, "app", lambda **kw: command(**kw))
        with pytest.raises(SystemExit) as info:
            cli.main()
        captured = capsys.readouterr()
        assert info.value.code == case.expect, (captured.out, captured.err)
        assert "Traceback" not in captured.err + captured.out
        lines = [line for line in captured.err.splitlines() if line.strip()]
        assert len(lines) == 1, captured.err
        message = lines[0]
        assert message.startswith("error: ")
    assert re.search(case.message, message), message
    after = _snapshot(folder)
    changed = {k for k in before if after.get(k) != before[k]}
    assert not changed, f"files changed: {sorted(changed)}"
    new = set(after) - set(before) - {"case.toml"}
    assert not new, f"files written: {sorted(new)}"
