"""Every bad input gets a clear answer (issue: "Every bad input gets a clear answer, and
no result is ever mixed, half-written or lost").

A table of bad inputs across every command (``run``, ``verify``, ``sweep``, ``report``,
``topology``, ``bench``) and the Python API. Each case asserts: exit status 2 (or, for the
API, the documented exception), one line on stderr naming the thing and the value, no
traceback, and that every file already on disk — an earlier run's, sweep's and
report's folders among them — is byte-identical afterwards. Scenario keys are
generated from the schema, so a new key is covered as soon as it is declared.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import cnsim
from cnsim.cli import BENCHES, main
from cnsim.errors import ConfigError, InputError
from cnsim.schema import Key
from cnsim.simulations.config import SCHEMA

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
            "nan": "1,1,update,0.1,0.4\n2,2,update,0.2,nan\n3,1,update,0.1,0.3\n4,1,update,0.1,0.2\n5,1,update,0.1,0.1\n",
            "unknown": "1,1,update,0.1,0.4\n2,7,update,0.2,0.3\n3,1,update,0.1,0.3\n4,1,update,0.1,0.2\n5,1,update,0.1,0.1\n",
            "absent": "1,2,delete,,\n2,2,delete,,\n3,1,update,0.1,0.3\n4,1,update,0.1,0.2\n5,1,update,0.1,0.1\n",
            "unsorted": "1,1,update,0.1,0.4\n3,1,update,0.1,0.3\n2,1,update,0.1,0.2\n4,1,update,0.1,0.1\n5,1,update,0.1,0.05\n",
            "type": "1,1,update,0.1,0.4\n2,1,update,low,0.3\n3,1,update,0.1,0.2\n4,1,update,0.1,0.1\n5,1,update,0.1,0.05\n",
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
    """One bad input: ``argv`` of ``cnsim`` (``{d}``: the case's folder) or an API call;
    the message must match ``message`` (a regex; the thing and the value)."""

    id: str
    argv: list[str] | None = None
    message: str = ""
    api: Any = None  # callable(d: Path) that must raise ``raises``
    raises: type[Exception] = ConfigError
    env: dict[str, str] = field(default_factory=dict)
    expect: int = 2


def _toml_value(value: Any) -> str:
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return repr(value)


def _bad_values(key: Key) -> list[tuple[str, Any]]:
    """Values ``key`` must reject, each with a label."""
    kinds = key.kind if isinstance(key.kind, tuple) else (key.kind,)
    out: list[tuple[str, Any]] = []
    if str in kinds and key.allowed is not None:
        out.append(("choice", "no-such-choice"))
    if int in kinds or float in kinds:
        out.append(("type", "text"))
        if key.low is not None:
            out.append(("low", key.low - 1 if int in kinds else key.low - 1.0))
        if key.high is not None:
            out.append(("high", key.high + 1 if int in kinds else key.high * 2 + 1.0))
    if float in kinds:
        out.append(("nan", float("nan")))
    if bool in kinds:
        out.append(("type", "yes"))
    if list in kinds:
        out.append(("type", 5))
    if str in kinds and key.allowed is None and not out:
        out.append(("type", 5))
    return out


def _scenario_cases() -> list[Case]:
    """One case per bad value of every scenario key (run), and of a few (verify, API)."""
    cases = []
    for section, keys in SCHEMA.items():
        for name, key in keys.items():
            for label, value in _bad_values(key):
                where = f"{section}.{name}" if section else name
                text = f"[{section}]\n{name} = {_toml_value(value)}\n" if section else ""
                text = text or f"{name} = {_toml_value(value)}\n"
                cases.append(
                    Case(
                        f"run-{where}-{label}",
                        ["run", f"@{text}", "--out", "{d}/earlier_run"],
                        re.escape(where),
                    )
                )
    for section, name, value in [
        ("subscriptions", "k", 0),
        ("events", "update", "sideways"),
        ("overlay", "kind", "mesh"),
    ]:
        where = f"{section}.{name}"
        cases.append(
            Case(
                f"verify-{where}",
                ["verify", f"@[{section}]\n{name} = {_toml_value(value)}\n"],
                re.escape(where),
            )
        )
        cases.append(
            Case(
                f"api-{where}",
                api=lambda d, s=section, n=name, v=value: cnsim.Scenario(**{s: {n: v}}),
                message=re.escape(where),
            )
        )
    return cases


def _sweep_run(d: Path, sweep: str, out: str, **kw: Any) -> Any:
    return cnsim.sweep(d / sweep, d / out, serial=True, **kw)


HAND: list[Case] = [
    # -- files that are not what they claim
    Case("run-latin1", ["run", "{d}/latin1.toml", "--out", "{d}/o"], r"latin1\.toml.*not UTF-8"),
    Case("run-binary", ["run", "{d}/binary.toml", "--out", "{d}/o"], r"binary\.toml.*binary"),
    Case(
        "run-not-toml",
        ["run", "{d}/notoml.toml", "--out", "{d}/o"],
        r"notoml\.toml.*not valid TOML",
    ),
    Case("run-missing", ["run", "{d}/nope.toml", "--out", "{d}/o"], r"nope\.toml"),
    Case("run-dir-as-config", ["run", "{d}/foreign", "--out", "{d}/o"], r"foreign.*directory"),
    Case("verify-latin1", ["verify", "{d}/latin1.toml"], r"latin1\.toml.*not UTF-8"),
    Case("verify-binary", ["verify", "{d}/binary.toml"], r"binary\.toml.*binary"),
    Case(
        "sweep-latin1",
        ["sweep", "{d}/sweep_latin1.toml", "--out", "{d}/o", "--serial"],
        r"sweep_latin1\.toml.*not UTF-8",
    ),
    Case(
        "sweep-base-latin1",
        ["sweep", "{d}/sweep_badbase.toml", "--out", "{d}/o", "--serial"],
        r"latin1\.toml.*not UTF-8",
    ),
    Case(
        "sweep-base-missing",
        ["sweep", "{d}/sweep_nobase.toml", "--out", "{d}/o", "--serial"],
        r"missing\.toml",
    ),
    Case(
        "sweep-dry-latin1",
        ["sweep", "{d}/sweep_latin1.toml", "--out", "{d}/o", "--dry-run"],
        r"not UTF-8",
    ),
    Case(
        "api-from-toml-latin1",
        api=lambda d: cnsim.Scenario.from_toml(d / "latin1.toml"),
        message=r"latin1\.toml.*not UTF-8",
    ),
    Case(
        "api-from-toml-binary",
        api=lambda d: cnsim.Scenario.from_toml(d / "binary.toml"),
        message=r"binary",
    ),
    Case(
        "api-sweep-latin1",
        api=lambda d: _sweep_run(d, "sweep_latin1.toml", "o"),
        message=r"not UTF-8",
    ),
    # -- topology files (run through the network section and through `topology build`)
    *[
        Case(
            f"topology-{name}",
            [
                "topology",
                "build",
                "--generator",
                "file",
                "--path",
                f"{{d}}/{name}",
                "--brokers",
                "2",
                "--cache",
                "{d}/cache",
            ],
            message,
        )
        for name, message in [
            ("empty.graphml", r"empty\.graphml.*not valid GraphML"),
            ("corrupt.graphml", r"corrupt\.graphml.*not valid GraphML"),
            ("four.txt", r"four\.txt.*line 2"),
            ("word.txt", r"word\.txt.*line 2"),
            ("lat.txt", r"lat\.txt.*line 1.*'fast'"),
            ("mixed.txt", r"mixed\.txt.*line 2.*columns"),
            ("binary.txt", r"binary\.txt.*UTF-8"),
            ("nothere.txt", r"nothere\.txt.*does not exist"),
        ]
    ],
    Case(
        "topology-latency-attr",
        [
            "topology",
            "build",
            "--generator",
            "file",
            "--path",
            "{d}/latency.graphml",
            "--latency",
            "attribute",
            "--brokers",
            "2",
            "--cache",
            "{d}/cache",
        ],
        r"latency\.graphml.*latency",
    ),
    Case(
        "run-topology-four",
        [
            "run",
            "@[network]\ngenerator = 'file'\npath = 'four.txt'\nbrokers = 2\n[overlay]\nkind = 'meghdoot'\n",
            "--out",
            "{d}/o",
        ],
        r"four\.txt.*line 2",
    ),
    Case(
        "run-topology-corrupt",
        [
            "run",
            "@[network]\ngenerator = 'file'\npath = 'corrupt.graphml'\nbrokers = 2\n[overlay]\nkind = 'meghdoot'\n",
            "--out",
            "{d}/o",
        ],
        r"not valid GraphML",
    ),
    # -- event files ([events] trace) and measured maps ([network] generator = 'topohub')
    *[
        Case(
            f"run-events-{name}",
            ["run", f"@[events]\ntrace = 'events_{name}.csv'\n", "--out", "{d}/o"],
            message,
        )
        for name, message in [
            ("nocol", r"events\.trace = 'events_nocol\.csv' has no column 'op'"),
            ("nan", r"events_nan\.csv' row 4 \(line 5\): y is empty or NaN"),
            (
                "unknown",
                r"events_unknown\.csv' row 4 \(line 5\): object 7 is updated but it is unknown",
            ),
            (
                "absent",
                r"events_absent\.csv' row 4 \(line 5\): object 2 is deleted but it was deleted at row 3",
            ),
            ("unsorted", r"events_unsorted\.csv' row 5 \(line 6\): time = 2\.0 is before"),
            ("type", r"events_type\.csv' row 4 \(line 5\): x = 'low' is not a number"),
            ("missing", r"events_missing\.csv' does not exist"),
        ]
    ],
    Case(
        "run-events-txt",
        ["run", "@[events]\ntrace = 'trace_bad.txt'\n", "--out", "{d}/o"],
        r"events\.trace = 'trace_bad\.txt' has suffix '\.txt', not \.csv or \.parquet",
    ),
    Case(
        "run-events-trace-and-inserts",
        ["run", "@[events]\ntrace = 'events_nan.csv'\ninserts = 0.2\n", "--out", "{d}/o"],
        r"events\.inserts \+ events\.deletes \+ events\.moves = 0\.2 is not 0 while events\.trace",
    ),
    Case(
        "topology-map-unknown",
        [
            "topology",
            "build",
            "--generator",
            "topohub",
            "--map",
            "caida/3356",
            "--brokers",
            "2",
            "--cache",
            "{d}/cache",
        ],
        r"network\.map = 'caida/3356' is not a measured map.*nearest: 'caida/2024-08/3356'",
    ),
    Case(
        "topology-map-missing",
        ["topology", "build", "--generator", "topohub", "--brokers", "2", "--cache", "{d}/cache"],
        r"network\.map = None is missing",
    ),
    Case(
        "run-map-brokers",
        [
            "run",
            "@[network]\ngenerator = 'topohub'\nmap = 'sndlib/polska'\nbrokers = 20\n[overlay]\nkind = 'meghdoot'\n",
            "--out",
            "{d}/o",
        ],
        r"network\.brokers = 20 is more than the 12 nodes of network\.map = 'sndlib/polska'",
    ),
    Case(
        "run-map-without-topohub",
        ["run", "@[network]\nmap = 'sndlib/polska'\n", "--out", "{d}/o"],
        r"network\.map = 'sndlib/polska' is set",
    ),
    Case(
        "api-map-unknown",
        api=lambda d: cnsim.Scenario(network={"generator": "topohub", "map": "nope", "brokers": 2}),
        message=r"network\.map = 'nope' is not a measured map",
    ),
    Case(
        "topology-show-unbuilt",
        ["topology", "show", "--ip-nodes", "60", "--brokers", "3", "--cache", "{d}/cache"],
        r"no cached world",
    ),
    Case(
        "topology-cache-file",
        ["topology", "build", "--ip-nodes", "60", "--brokers", "3", "--cache", "{d}/a_file"],
        r"--cache.*a_file.*is a file",
    ),
    Case(
        "topology-cache-under-file",
        ["topology", "build", "--ip-nodes", "60", "--brokers", "3", "--cache", "{d}/a_file/sub"],
        r"--cache.*is a file",
    ),
    Case(
        "topology-brokers-0",
        ["topology", "build", "--brokers", "0", "--cache", "{d}/cache"],
        r"brokers",
    ),
    Case(
        "topology-generator",
        ["topology", "build", "--generator", "mesh", "--cache", "{d}/cache"],
        r"generator.*mesh",
    ),
    Case(
        "topology-export-dir",
        [
            "topology",
            "build",
            "--ip-nodes",
            "60",
            "--brokers",
            "3",
            "--cache",
            "{d}/cache",
            "--export",
            "{d}/foreign",
        ],
        r"foreign",
    ),
    # -- sizes nobody can run
    Case(
        "run-objects-huge",
        ["run", "@[objects]\ncount = 1000000000000000\n", "--out", "{d}/o"],
        r"needs about .* memory.*objects",
    ),
    Case(
        "run-subscriptions-huge",
        ["run", "@[subscriptions]\ncount = 100000000000\n", "--out", "{d}/o"],
        r"needs about .* memory",
    ),
    Case(
        "run-events-huge",
        ["run", "{d}/good.toml", "--out", "{d}/o", "--events", "100000000000000"],
        r"needs about .* memory.*events",
    ),
    Case(
        "run-dry-run-huge",
        ["run", "@[objects]\ncount = 1000000000000000\n", "--out", "{d}/o", "--dry-run"],
        r"needs about",
    ),
    Case(
        "verify-huge",
        ["verify", "@[subscriptions]\ncount = 100000000000\n"],
        r"needs about .* memory",
    ),
    Case(
        "verify-events-huge",
        ["verify", "{d}/good.toml", "--events", "100000000000000"],
        r"needs about",
    ),
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
    Case(
        "api-run-huge",
        api=lambda d: cnsim.run(cnsim.Scenario(objects={"count": 10**15})),
        raises=InputError,
        message=r"needs about",
    ),
    Case(
        "api-verify-huge",
        api=lambda d: cnsim.verify(cnsim.Scenario(subscriptions={"count": 10**11})),
        raises=InputError,
        message=r"needs about",
    ),
    Case(
        "sweep-huge",
        [
            "sweep",
            "@base = 'good.toml'\n[sweep]\nname = 'h'\ngrid = { 'objects.count' = [10, 1000000000000000] }\n",
            "--out",
            "{d}/o",
            "--serial",
        ],
        r"run .*needs about",
    ),
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
    Case(
        "run-cache-env-file",
        [
            "run",
            "@[overlay]\nkind = 'meghdoot'\n[network]\nip_nodes = 60\nbrokers = 3\n",
            "--out",
            "{d}/o",
        ],
        r"CNSIM_CACHE.*a_file.*is a file",
        env={"CNSIM_CACHE": "{d}/a_file"},
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
    *[
        Case(f"bench-{name}-json-{label}", ["bench", name, "--quick", "--json", path], message)
        for name in BENCHES  # every benchmark, as the CLI registers them
        for label, path, message in [
            ("nofolder", "{d}/missing/out.json", r"--json .*missing.*does not exist"),
            ("dir", "{d}/foreign", r"--json .*foreign.*is a folder"),
        ]
    ],
    Case("bench-json-empty", ["bench", "paint", "--quick", "--json", ""], r"--json"),
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
        api=lambda d: _sweep_run(d, "sweep.toml", "earlier_run"),
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
    # -- Spark
    Case(
        "sweep-master-bogus",
        ["sweep", "{d}/sweep.toml", "--out", "{d}/o", "--master", "bogus://x"],
        r"--master 'bogus://x'.*not a Spark master URL",
    ),
    Case(
        "sweep-master-local0",
        ["sweep", "{d}/sweep.toml", "--out", "{d}/o", "--master", "local[0]"],
        r"local\[0\]",
    ),
    Case(
        "sweep-master-noport",
        ["sweep", "{d}/sweep.toml", "--out", "{d}/o", "--master", "spark://host"],
        r"spark://host.*not a Spark master",
    ),
    Case(
        "sweep-master-empty",
        ["sweep", "{d}/sweep.toml", "--out", "{d}/o", "--master", ""],
        r"--master ''",
    ),
    Case(
        "sweep-master-unreachable",
        ["sweep", "{d}/sweep.toml", "--out", "{d}/o", "--master", "spark://127.0.0.1:9"],
        r"spark://127\.0\.0\.1:9.*cannot reach.*local\[\*\]",
    ),
    Case(
        "api-sweep-master-bogus",
        api=lambda d: cnsim.sweep(d / "sweep.toml", d / "o", master="yarn://x"),
        raises=InputError,
        message=r"yarn://x",
    ),
    Case(
        "sweep-repeat-0",
        ["sweep", "{d}/sweep.toml", "--out", "{d}/o", "--repeat", "0", "--serial"],
        r"--repeat = 0",
    ),
    Case(
        "sweep-quick-missing",
        ["sweep", "{d}/sweep.toml", "--out", "{d}/o", "--quick", "--serial"],
        r"--quick",
    ),
    # -- reports
    Case(
        "report-src-missing",
        ["report", "{d}/nothing", "--out", "{d}/r"],
        r"nothing.*does not exist",
    ),
    Case("report-src-file", ["report", "{d}/a_file", "--out", "{d}/r"], r"a_file.*is a file"),
    Case(
        "report-src-foreign", ["report", "{d}/foreign", "--out", "{d}/r"], r"foreign.*neither a run"
    ),
    Case("report-src-corrupt", ["report", "{d}/bad_run", "--out", "{d}/r"], r"bad_run"),
    Case("report-src-fake-run", ["report", "{d}/earlier_run", "--out", "{d}/r"], r"earlier_run"),
    Case(
        "report-src-fake-sweep", ["report", "{d}/earlier_sweep", "--out", "{d}/r"], r"earlier_sweep"
    ),
    # -- messages that must point the right way
    Case(
        "seed-2-64",
        ["run", "@seed = 18446744073709551616\n", "--out", "{d}/o"],
        r"seed = 18446744073709551616 is out of range",
    ),
    Case(
        "section-as-key",
        ["run", "@objects = 5\n", "--out", "{d}/o"],
        r"objects = 5.*not a section|\[objects\]",
    ),
    Case(
        "unknown-section",
        ["run", "@[servers]\ncount = 2\n", "--out", "{d}/o"],
        r"\[servers\].*network",
    ),
    Case(
        "unknown-key", ["run", "@[objects]\ncont = 2\n", "--out", "{d}/o"], r"objects\.cont.*count"
    ),
    Case(
        "network-unknown-key",
        ["run", "@[network]\nnodes = 2\n", "--out", "{d}/o"],
        r"network\.nodes",
    ),
    Case(
        "approach-unknown",
        ["run", "@[algorithm]\napproaches = ['paint-fast']\n", "--out", "{d}/o"],
        r"paint-fast",
    ),
    Case(
        "approach-eps",
        ["run", "@[algorithm]\napproaches = ['paint-dense(2)']\n", "--out", "{d}/o"],
        r"paint-dense\(2\)",
    ),
    Case(
        "approaches-empty",
        ["run", "@[algorithm]\napproaches = []\n", "--out", "{d}/o"],
        r"algorithm\.approaches",
    ),
    Case(
        "mix-over-1",
        ["run", "@[events]\ninserts = 0.6\ndeletes = 0.6\n", "--out", "{d}/o"],
        r"events\.(inserts|deletes|moves)",
    ),
    Case(
        "timed-ideal",
        ["run", "@[run]\nmode = 'timed'\n", "--out", "{d}/o"],
        r"overlay\.kind = 'ideal'",
    ),
    Case(
        "trace-missing",
        [
            "run",
            "@[run]\nmode = 'timed'\n[overlay]\nkind = 'meghdoot'\n[timing]\narrivals = 'trace'\n",
            "--out",
            "{d}/o",
        ],
        r"timing\.trace",
    ),
    Case(
        "trace-bad-row",
        [
            "run",
            "@[run]\nmode = 'timed'\n[overlay]\nkind = 'meghdoot'\n[timing]\narrivals = 'trace'\ntrace = 'trace_bad.txt'\n",
            "--out",
            "{d}/o",
        ],
        r"trace_bad\.txt.*line 3: 'abc' is not a number",
    ),
    Case(
        "trace-decreasing",
        [
            "run",
            "@[run]\nmode = 'timed'\n[overlay]\nkind = 'meghdoot'\n[timing]\narrivals = 'trace'\ntrace = 'trace_down.txt'\n",
            "--out",
            "{d}/o",
        ],
        r"line 3: 0\.2 is before",
    ),
    Case(
        "trace-short",
        [
            "run",
            "@[run]\nmode = 'timed'\n[overlay]\nkind = 'meghdoot'\n[timing]\narrivals = 'trace'\ntrace = 'trace_short.txt'\n",
            "--out",
            "{d}/o",
        ],
        r"holds 1 times",
    ),
    Case(
        "trace-negative",
        [
            "run",
            "@[run]\nmode = 'timed'\n[overlay]\nkind = 'meghdoot'\n[timing]\narrivals = 'trace'\ntrace = 'trace_neg.txt'\n",
            "--out",
            "{d}/o",
        ],
        r"line 1: '-1'",
    ),
    Case(
        "trace-binary",
        [
            "run",
            "@[run]\nmode = 'timed'\n[overlay]\nkind = 'meghdoot'\n[timing]\narrivals = 'trace'\ntrace = 'binary.txt'\n",
            "--out",
            "{d}/o",
        ],
        r"binary\.txt",
    ),
    Case("sweep-axis-nan", ["sweep", "{d}/sweep_nan.toml", "--out", "{d}/o", "--serial"], r"nan"),
    Case(
        "sweep-axis-unknown",
        [
            "sweep",
            "@base = 'good.toml'\n[sweep]\ngrid = { 'objects.cnt' = [1, 2] }\n",
            "--out",
            "{d}/o",
            "--serial",
        ],
        r"objects\.cnt",
    ),
    Case(
        "sweep-axis-bad-value",
        [
            "sweep",
            "@base = 'good.toml'\n[sweep]\ngrid = { 'subscriptions.k' = [1, 0] }\n",
            "--out",
            "{d}/o",
            "--serial",
        ],
        r"subscriptions\.k = 0",
    ),
    Case(
        "sweep-axis-empty",
        [
            "sweep",
            "@base = 'good.toml'\n[sweep]\ngrid = { 'subscriptions.k' = [] }\n",
            "--out",
            "{d}/o",
            "--serial",
        ],
        r"subscriptions\.k",
    ),
    Case(
        "sweep-zip-lengths",
        [
            "sweep",
            "@base = 'good.toml'\n[sweep]\nzip = { 'subscriptions.k' = [1, 2], 'objects.count' = [10] }\n",
            "--out",
            "{d}/o",
            "--serial",
        ],
        r"zip",
    ),
    Case(
        "sweep-unknown-key",
        ["sweep", "@base = 'good.toml'\n[sweep]\nnmae = 'x'\n", "--out", "{d}/o", "--serial"],
        r"sweep\.nmae",
    ),
    Case("no-such-command", ["simulate"], r"No such command 'simulate'"),
    Case("no-such-option", ["run", "{d}/good.toml", "--out", "{d}/o", "--evnts", "3"], r"--evnts"),
    Case("missing-out", ["run", "{d}/good.toml"], r"--out"),
    Case(
        "api-unknown-section",
        api=lambda d: cnsim.Scenario(servers={"count": 2}),
        message=r"servers",
    ),
    Case(
        "api-unknown-key",
        api=lambda d: cnsim.Scenario(objects={"cont": 2}),
        message=r"objects\.cont",
    ),
    Case("api-section-not-table", api=lambda d: cnsim.Scenario(objects=5), message=r"objects"),
    Case("api-seed-negative", api=lambda d: cnsim.Scenario(seed=-1), message=r"seed = -1"),
    Case(
        "api-from-toml-override",
        api=lambda d: cnsim.Scenario.from_toml(d / "good.toml", events={"count": -2}),
        message=r"events\.count = -2",
    ),
    Case(
        "api-report-missing",
        api=lambda d: cnsim.report(d / "nothing", d / "r"),
        raises=InputError,
        message=r"nothing",
    ),
    Case(
        "api-sweep-missing",
        api=lambda d: cnsim.sweep(d / "nope.toml", d / "o", serial=True),
        message=r"nope\.toml",
    ),
]

CASES = _scenario_cases() + HAND


def test_there_are_at_least_150_cases():
    assert len(CASES) >= 150
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.fixture
def folder(tmp_path: Path, monkeypatch) -> Path:
    for name, content in FILES.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CNSIM_CACHE", str(tmp_path / "cache"))
    return tmp_path


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
    import tomllib

    more = tomllib.loads(extra)
    if "base" in more or "sweep" in more:
        return extra
    data = tomllib.loads(base)
    for key, value in more.items():
        if isinstance(value, dict) and isinstance(data.get(key), dict):
            data[key] = {**data[key], **value}
        else:
            data[key] = value
    top = [f"{k} = {_toml_value(v)}" for k, v in data.items() if not isinstance(v, dict)]
    tables = [
        f"[{name}]\n" + "\n".join(f"{k} = {_toml_value(v)}" for k, v in table.items())
        for name, table in data.items()
        if isinstance(table, dict)
    ]
    return "\n".join([*top, *tables]) + "\n"


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_refused_clearly(case: Case, folder: Path, capsys, monkeypatch) -> None:
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
        with pytest.raises(SystemExit) as info:
            main()
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
