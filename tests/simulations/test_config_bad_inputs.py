"""Bad scenarios ``cnsim.simulations.config`` refuses, each with a clear one-line answer:
every bad value of every scenario key (generated from the schema, so a new key is
covered as soon as it is declared), files that are not UTF-8 TOML, unknown sections and
keys, rules across keys, and bad event and arrival-time traces. The harness is
tests/refusals.py."""

from __future__ import annotations

import re
from typing import Any

from refusals import Case, assert_refused, sweep_run, table, toml_value

import cnsim
from cnsim.schema import Key
from cnsim.simulations.config import SCHEMA


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
                text = f"[{section}]\n{name} = {toml_value(value)}\n" if section else ""
                text = text or f"{name} = {toml_value(value)}\n"
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
                ["verify", f"@[{section}]\n{name} = {toml_value(value)}\n"],
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


def _timed_trace(trace: str = "") -> str:
    """A timed scenario whose arrival times come from ``trace`` (none: the key missing)."""
    text = "@[run]\nmode = 'timed'\n[overlay]\nkind = 'meghdoot'\n[timing]\narrivals = 'trace'\n"
    return text + (f"trace = '{trace}'\n" if trace else "")


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
        api=lambda d: sweep_run(d, "sweep_latin1.toml", "o"),
        message=r"not UTF-8",
    ),
    Case(
        "api-sweep-missing",
        api=lambda d: cnsim.sweep(d / "nope.toml", d / "o", serial=True),
        message=r"nope\.toml",
    ),
    # -- event files ([events] trace)
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
                r"events_absent\.csv' row 4 \(line 5\): "
                r"object 2 is deleted but it was deleted at row 3",
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
    # -- arrival-time traces ([timing] trace)
    Case("trace-missing", ["run", _timed_trace(), "--out", "{d}/o"], r"timing\.trace"),
    Case(
        "trace-bad-row",
        ["run", _timed_trace("trace_bad.txt"), "--out", "{d}/o"],
        r"trace_bad\.txt.*line 3: 'abc' is not a number",
    ),
    Case(
        "trace-decreasing",
        ["run", _timed_trace("trace_down.txt"), "--out", "{d}/o"],
        r"line 3: 0\.2 is before",
    ),
    Case(
        "trace-short",
        ["run", _timed_trace("trace_short.txt"), "--out", "{d}/o"],
        r"holds 1 times",
    ),
    Case(
        "trace-negative",
        ["run", _timed_trace("trace_neg.txt"), "--out", "{d}/o"],
        r"line 1: '-1'",
    ),
    Case(
        "trace-binary",
        ["run", _timed_trace("binary.txt"), "--out", "{d}/o"],
        r"binary\.txt",
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
]

SCENARIO_CASES = _scenario_cases()


def test_every_scenario_key_has_bad_values() -> None:
    keys = {f"{s}.{n}" if s else n for s, keys in SCHEMA.items() for n in keys}
    refused = {c.id.removeprefix("run-").rsplit("-", 1)[0] for c in SCENARIO_CASES}
    assert keys <= refused


@table(SCENARIO_CASES + HAND)
def test_bad_scenario_is_refused_clearly(case: Case, bad_inputs, capsys, monkeypatch) -> None:
    assert_refused(case, bad_inputs, capsys, monkeypatch)
