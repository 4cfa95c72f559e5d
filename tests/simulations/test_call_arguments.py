"""What the Python API is given is checked before any work, with the one shape of a
configuration error (``WHERE = VALUE PROBLEM; allowed: WHAT``), never a traceback from
deep inside: the scenario and ``events`` of a run or a verification, the path of a
scenario file, the data of ``from_dict``; event files with a name the file system
refuses or a column named twice; ranked joins and leaves in the memory estimate."""

from __future__ import annotations

import numpy as np
import pytest

import cnsim
from cnsim.errors import ConfigError, InputError
from cnsim.simulations.config import from_dict
from cnsim.simulations.runner import simulate
from cnsim.simulations.sizes import estimate
from cnsim.simulations.verify import verify

SMALL = {
    "objects": {"count": 50},
    "subscriptions": {"count": 200, "k": 3},
    "events": {"count": 5},
    "overlay": {"kind": "ideal"},
    "run": {"progress": False},
}
CALLS = {"cnsim.run": cnsim.run, "cnsim.verify": cnsim.verify, "simulate": simulate,
         "verify": verify}  # fmt: skip


@pytest.mark.parametrize("call", list(CALLS))
@pytest.mark.parametrize(
    ("events", "message"),
    [
        (-1, r"^events = -1 is out of range; allowed: an integer >= 0$"),
        ("10", r"^events = '10' is a str, not a whole number; allowed: None or an integer"),
        (1.5, r"^events = 1.5 is a float, not a whole number"),
        (True, r"^events = True is a bool, not a whole number"),
    ],
)
def test_events_must_be_none_or_a_whole_number(call, events, message, tmp_path):
    with pytest.raises(ConfigError, match=message):
        CALLS[call](from_dict(SMALL), events=events)


@pytest.mark.parametrize("call", list(CALLS))
@pytest.mark.parametrize("scenario", ["examples/small.toml", SMALL, 5, None])
def test_a_run_takes_a_scenario(call, scenario, tmp_path):
    shown = type(scenario).__name__
    with pytest.raises(ConfigError, match=rf"^scenario = .* is an? {shown}, not a Scenario"):
        CALLS[call](scenario)


def test_nothing_is_written_for_a_refused_call(tmp_path):
    out = tmp_path / "run"
    with pytest.raises(ConfigError):
        cnsim.run(from_dict(SMALL), out, events=-1)
    assert not out.exists()


@pytest.mark.parametrize("path", [5, None, ["a.toml"]])
def test_a_scenario_file_is_named_by_a_path(path):
    with pytest.raises(ConfigError, match=r"^scenario file = .* not a path; allowed: a str"):
        cnsim.Scenario.from_toml(path)


@pytest.mark.parametrize("data", [[1], "seed = 1", 5])
def test_from_dict_takes_a_table(data):
    with pytest.raises(ConfigError, match=r"^<dict>: scenario = .* allowed: a dict of"):
        from_dict(data)


@pytest.mark.parametrize("key", ["events.trace", "timing.trace"])
def test_a_trace_name_too_long_for_the_file_system_is_refused(key, tmp_path):
    name = str(tmp_path / ("a" * 300 + ".csv"))
    section, field = key.split(".")
    tables = {**SMALL, section: {**SMALL.get(section, {}), field: name}}
    if section == "timing":
        tables.update(run={"mode": "timed", "progress": False}, overlay={"kind": "meghdoot"},
                      network={"ip_nodes": 300, "brokers": 20})  # fmt: skip
        tables["timing"]["arrivals"] = "trace"
    with pytest.raises(ConfigError, match=rf"{key} = .* cannot be read \(File name too long\)"):
        from_dict(tables)


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_an_event_file_naming_a_column_twice_is_refused(suffix, tmp_path):
    path = tmp_path / f"events{suffix}"
    rows = "time,object,op,x,y,x\n0,0,initial,0.1,0.2,0.3\n1,0,update,0.1,0.3,0.3\n"
    if suffix == ".csv":
        path.write_text(rows)
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        names = rows.splitlines()[0].split(",")
        cells = [line.split(",") for line in rows.splitlines()[1:]]
        columns = [pa.array([c[j] for c in cells]) for j in range(len(names))]
        pq.write_table(pa.Table.from_arrays(columns, names=names), path)
    tables = {**SMALL, "events": {"count": 1, "trace": str(path)}}
    with pytest.raises(ConfigError, match=r"events.trace = .* names column 'x' twice"):
        from_dict(tables)


def test_ranked_joins_and_leaves_count_in_the_memory_estimate():
    tables = {**SMALL, "overlay": {"kind": "meghdoot"}, "algorithm": {"approaches": ["ranked"]}}
    few = estimate(from_dict(tables))
    many = estimate(from_dict({**tables, "ranked": {"commands": 10**12}}))
    assert many.parts["ranked delivery"] - few.parts["ranked delivery"] >= 10**12 * 100
    with pytest.raises(InputError, match="memory"):
        simulate(from_dict({**tables, "ranked": {"commands": 10**12}}))


def test_numpy_scalars_are_taken_as_the_values_they_hold():
    tables = {**SMALL, "subscriptions": {"count": np.int32(300), "k": np.int64(4)},
              "timing": {"rate": np.float32(50)}, "run": {"progress": np.bool_(False)}}  # fmt: skip
    plain = {**SMALL, "subscriptions": {"count": 300, "k": 4}, "timing": {"rate": 50.0},
             "run": {"progress": False}}  # fmt: skip
    scenario = from_dict(tables)
    values = scenario["subscriptions"]["count"], scenario["subscriptions"]["k"]
    assert values == (300, 4) and all(type(v) is int for v in values)
    assert type(scenario["timing"]["rate"]) is float and scenario["run"]["progress"] is False
    assert scenario.as_dict() == from_dict(plain).as_dict()


@pytest.mark.parametrize(
    ("section", "key", "value", "message"),
    [
        ("subscriptions", "k", np.int64(0), r"subscriptions.k = 0 is out of range"),
        ("timing", "rate", np.float64("inf"), r"timing.rate = inf is not finite"),
        ("subscriptions", "k", np.float64(2.5), r"subscriptions.k = 2.5 has the wrong type"),
    ],
)
def test_messages_show_numpy_scalars_as_plain_values(section, key, value, message):
    with pytest.raises(ConfigError, match=rf"^<dict>: {message}; allowed"):
        from_dict({**SMALL, section: {key: value}})
