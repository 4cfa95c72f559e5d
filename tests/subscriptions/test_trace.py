"""Events read from a CSV or Parquet file (`[events] trace`): the same events from both
formats, the meaning of each op, runs checked against the oracle, timed mode's times,
and one clear error per kind of bad file."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import cnsim
from cnsim.errors import ConfigError, InputError
from cnsim.simulations.config import from_dict, read_trace
from cnsim.simulations.seeds import Seeds
from cnsim.simulations.timed import publication_times
from cnsim.subscriptions.trace import load_event_trace, read_event_trace

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "gapminder_events.csv"
ROWS = [  # time, object, op, x, y
    (0.0, 10, "initial", 0.1, 0.5),
    (0.0, 11, "initial", 0.2, 0.6),
    (0.0, 12, "initial", 0.3, 0.7),
    (0.0, 13, "initial", 0.8, 0.2),
    (1.0, 10, "update", 0.1, 0.4),  # y-update, rank raising
    (1.5, 14, "insert", 0.5, 0.1),
    (2.0, 11, "delete", math.nan, math.nan),
    (2.5, 12, "update", 0.35, 0.05),  # a new x: a move
    (3.0, 11, "insert", 0.9, 0.3),  # deleted earlier, back again
    (3.5, 13, "update", 0.8, 0.9),  # y-update, rank lowering
]
COLUMNS = ["time", "object", "op", "x", "y"]


def _frame(rows=ROWS) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=COLUMNS)


def _write(frame: pd.DataFrame, path: Path) -> Path:
    if path.suffix == ".csv":
        frame.to_csv(path, index=False)
    else:
        frame.to_parquet(path, index=False)
    return path


def test_csv_and_parquet_give_the_same_events(tmp_path: Path) -> None:
    a = load_event_trace(_write(_frame(), tmp_path / "e.csv"), 6)
    b = load_event_trace(_write(_frame(), tmp_path / "e.parquet"), 6)
    for name in ("x", "y", "time", "object_ids"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    for name in ("kind", "start", "obj", "x", "y_old", "y_new"):
        np.testing.assert_array_equal(getattr(a.events, name), getattr(b.events, name))


def test_each_op_becomes_the_updates_it_means(tmp_path: Path) -> None:
    t = load_event_trace(_write(_frame(), tmp_path / "e.csv"), 6)
    np.testing.assert_array_equal(t.x, [0.1, 0.2, 0.3, 0.8])
    np.testing.assert_array_equal(t.y, [0.5, 0.6, 0.7, 0.2])
    np.testing.assert_array_equal(t.time, [1.0, 1.5, 2.0, 2.5, 3.0, 3.5])
    ev = t.events
    assert ev.kinds().tolist() == ["raise", "insert", "delete", "move", "insert", "lower"]
    inf = np.inf
    updates = list(ev.updates(0, len(ev)))
    assert updates == [
        (0, 0.1, 0.5, 0.4),
        (4, 0.5, inf, 0.1),  # the insert takes the next id
        (1, 0.2, 0.6, inf),
        (2, 0.3, 0.7, inf),  # the move: leave x = 0.3 ...
        (5, 0.35, inf, 0.05),  # ... and enter at x = 0.35 under a new id
        (6, 0.9, inf, 0.3),  # object 11 again: a new id
        (3, 0.8, 0.2, 0.9),
    ]
    assert t.object_ids.tolist() == [10, 11, 12, 13, 14, 12, 11]
    # fewer events than the file holds: the first ones
    assert len(load_event_trace(tmp_path / "e.csv", 2).events) == 2


def test_integer_and_text_columns_in_parquet(tmp_path: Path) -> None:
    frame = _frame()
    frame["time"] = frame["time"].astype(str)  # numbers written as text are read as numbers
    frame["object"] = frame["object"].astype("int32")
    t = load_event_trace(_write(frame, tmp_path / "e.parquet"), 6)
    np.testing.assert_array_equal(t.time, [1.0, 1.5, 2.0, 2.5, 3.0, 3.5])


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_a_run_from_a_file_matches_the_oracle(tmp_path: Path, suffix, monkeypatch) -> None:
    monkeypatch.setenv("CNSIM_CACHE", str(tmp_path / "cache"))
    path = tmp_path / f"events{suffix}"
    _write(pd.read_csv(EXAMPLE), path)
    scenario = cnsim.Scenario(
        seed=3,
        subscriptions={"count": 400, "k": 3},
        events={"count": 150, "trace": str(path)},
        network={"ip_nodes": 80, "brokers": 8},
        algorithm={"approaches": ["paint-dense", "paint-sparse", "unicast"]},
        run={"progress": False},
    )
    report = cnsim.verify(scenario)
    assert report.ok, report.text()
    assert report.events == 150


def test_example_file_is_valid_and_complete() -> None:
    trace = load_event_trace(EXAMPLE, 1275)
    assert len(trace.x) == 100 and len(trace.events) == 1275
    kinds = set(trace.events.kinds().tolist())
    assert {"insert", "delete", "move"} <= kinds
    with pytest.raises(InputError, match="holds 1275 events.*fewer than the 1276 asked"):
        load_event_trace(EXAMPLE, 1276)


def test_scenario_file_resolves_the_trace_next_to_it(tmp_path: Path) -> None:
    _write(_frame(), tmp_path / "e.csv")
    (tmp_path / "s.toml").write_text('[events]\ncount = 6\ntrace = "e.csv"\n')
    scenario = cnsim.Scenario.from_toml(tmp_path / "s.toml")
    assert scenario["events"]["trace"] == str((tmp_path / "e.csv").resolve())


def test_timed_mode_publishes_at_the_files_times(tmp_path: Path) -> None:
    path = _write(_frame(), tmp_path / "e.parquet")
    scenario = from_dict(
        {
            "events": {"count": 6, "trace": str(path)},
            "run": {"mode": "timed"},
            "timing": {"arrivals": "trace"},  # no timing.trace: the event file's times
        }
    )
    assert scenario["timing"]["trace"] == str(path.resolve())
    times = publication_times(scenario["timing"], 6, Seeds(0))
    np.testing.assert_array_equal(times, [1.0, 1.5, 2.0, 2.5, 3.0, 3.5])
    assert read_trace(path, 6)[1] is None


def test_generated_event_keys_are_refused_with_a_file(tmp_path: Path) -> None:
    path = _write(_frame(), tmp_path / "e.csv")
    with pytest.raises(ConfigError, match=r"events\.inserts .* is not 0 while events\.trace"):
        from_dict({"events": {"count": 6, "trace": str(path), "inserts": 0.1}}, "s.toml")


def _spoil(rows, index, **changes):
    out = [list(r) for r in rows]
    for column, value in changes.items():
        out[index][COLUMNS.index(column)] = value
    return out


BAD = [  # id, rows (or a frame changer), suffixes, expected message
    ("missing-column", lambda f: f.drop(columns="op"), r"has no column 'op' \(its columns: "),
    ("x-text", _spoil(ROWS, 5, x="high"), r"row 6( \(line 7\))?: x = 'high' is not a number"),
    ("object-fraction", _spoil(ROWS, 4, object=10.5), r"row 5.*object = 10\.5 is not an integer"),
    ("y-nan", _spoil(ROWS, 4, y=math.nan), r"row 5.*: y is empty or NaN"),
    ("time-nan", _spoil(ROWS, 2, time=math.nan), r"row 3.*: time is empty or NaN"),
    ("op-unknown", _spoil(ROWS, 5, op="upsert"), r"row 6.*op = 'upsert' is not one of initial"),
    (
        "unknown-object",
        _spoil(ROWS, 4, object=99),
        r"row 5.*object 99 is updated but it is unkn",
    ),
    (
        "delete-absent",
        [*ROWS[:7], (2.1, 11, "delete", 0.2, 0.6), *ROWS[7:]],
        r"row 8.*object 11 is deleted but it was deleted at row 7",
    ),
    ("insert-present", _spoil(ROWS, 5, object=13), r"row 6.*object 13 is inserted but is already"),
    ("unsorted", _spoil(ROWS, 5, time=0.5), r"row 6.*time = 0\.5 is before the time above it"),
    ("negative-time", _spoil(ROWS, 0, time=-1.0), r"row 1.*time = -1\.0 is negative"),
    ("x-outside", _spoil(ROWS, 5, x=1.0), r"row 6.*x = 1\.0 is outside \[0, 1\)"),
    ("initial-late", _spoil(ROWS, 5, op="initial"), r"row 6.*op = 'initial' after the first event"),
    ("no-initial", ROWS[4:], r"has no 'initial' rows"),
    ("too-few", ROWS[:8], r"holds 4 events .*fewer than the 6 asked"),
    ("same-x", _spoil(ROWS, 5, x=0.8), r"row 6.*object 14 takes x = 0\.8, the x of object 13"),
    ("same-y", _spoil(ROWS, 5, y=0.4), r"row 6.*object 14 takes y = 0\.4, the y of object 10"),
]


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
@pytest.mark.parametrize(("name", "rows", "message"), BAD, ids=[b[0] for b in BAD])
def test_bad_file_is_refused_naming_the_row(tmp_path, suffix, name, rows, message) -> None:
    frame = rows(_frame()) if callable(rows) else _frame(rows)
    if suffix == ".parquet" and name == "x-text":
        frame["x"] = frame["x"].astype(str)  # a text column in Parquet
    path = _write(frame, tmp_path / f"bad{suffix}")
    trace, problem = read_event_trace(path, 6)
    assert trace is None and problem is not None
    assert "\n" not in problem
    assert re.search(message, problem), problem
    if suffix == ".csv" and "row " in problem:
        assert "(line " in problem  # a CSV's line number beside the row
    # through a scenario: one line naming the key, the file, the problem and what is allowed
    with pytest.raises(ConfigError) as info:
        from_dict({"events": {"count": 6, "trace": str(path)}}, "s.toml")
    text = str(info.value)
    assert text.startswith(f"s.toml: events.trace = {str(path)!r} ")
    assert "allowed: a .csv or .parquet table with columns time, object, op, x, y" in text


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("e.csv", b"\xff\xfe\x00bad", r"is not a UTF-8 text \(CSV\) file"),
        ("e.csv", b"", r"is empty"),
        ("e.parquet", b"PAR1 not really", r"cannot be read as Parquet"),
        ("e.txt", b"0.1\n", r"has suffix '\.txt', not \.csv or \.parquet"),
    ],
)
def test_unreadable_files(tmp_path: Path, name: str, content: bytes, message: str) -> None:
    (tmp_path / name).write_bytes(content)
    with pytest.raises(ConfigError, match=message):
        from_dict({"events": {"count": 1, "trace": str(tmp_path / name)}}, "s.toml")
    with pytest.raises(ConfigError, match=r"does not exist"):
        from_dict({"events": {"count": 1, "trace": str(tmp_path / "nope.csv")}}, "s.toml")
