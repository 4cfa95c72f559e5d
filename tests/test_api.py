"""The public Python API: scenarios from keywords or files, run -> Result, verify,
the catalog, and the docstring examples."""

import doctest
import json
import os
from pathlib import Path

import pandas as pd
import pytest

import cnsim
from cnsim import api
from cnsim.errors import ConfigError, InputError
from cnsim.simulations import config

ROOT = Path(__file__).resolve().parents[1]
SMALL = dict(
    seed=3,
    objects={"count": 150},
    subscriptions={"count": 1500, "k": 3},
    events={"count": 40, "inserts": 0.1, "deletes": 0.1},
    network={"ip_nodes": 300, "brokers": 20},
    algorithm={"approaches": ["paint-dense", "paint-sparse", "unicast", "cn-relax"]},
    run={"progress": False},
)


@pytest.fixture(autouse=True)
def cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("CNSIM_CACHE", str(tmp_path_factory.getbasetemp() / "worlds"))


def test_scenario_from_keywords_is_validated_like_a_file():
    sc = cnsim.Scenario(**SMALL)
    assert sc == config.from_dict(SMALL, "<keywords>")
    assert sc["objects"]["distribution"] == "uniform"  # a default
    with pytest.raises(ConfigError, match=r"subscriptions\.k = 0 .*allowed"):
        cnsim.Scenario(subscriptions={"k": 0})
    with pytest.raises(ConfigError, match=r"\[subscription\] is not a section; allowed"):
        cnsim.Scenario(subscription={"k": 3})


def test_from_toml_overrides_only_the_keys_given():
    base = config.load(ROOT / "examples" / "small.toml")
    sc = cnsim.Scenario.from_toml(ROOT / "examples" / "small.toml", events={"count": 9}, seed=1)
    assert sc["events"]["count"] == 9 and sc.seed == 1
    assert sc["events"]["inserts"] == base["events"]["inserts"]
    assert sc["objects"] == base["objects"]


def test_run_returns_the_catalog_metrics_and_writes_them(tmp_path):
    sc = cnsim.Scenario(**SMALL)
    result = cnsim.run(sc, out=tmp_path)
    assert isinstance(result, cnsim.Result)
    batch = cnsim.CATALOG.names("batch", "counting")
    assert list(result.events.columns) == ["approach", "batch", "event", "events", "kind", *batch]
    assert set(result.brokers["approach"]) == set(sc.approaches)
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "events.parquet"), result.events)
    summary = json.loads((tmp_path / "summary.json").read_text())
    for column in cnsim.CATALOG.summary_columns():
        if column.metric.mode == "counting":
            assert column.key in summary["approaches"]["paint-dense"]
    assert [p for p in os.listdir(tmp_path) if p.startswith(".")] == [".cnsim.json"]  # marker only


def test_an_ideal_run_into_an_overlay_runs_folder_leaves_no_broker_load(tmp_path):
    cnsim.run(cnsim.Scenario(**SMALL), out=tmp_path)
    assert (tmp_path / "brokers.parquet").exists()
    ideal = cnsim.run(cnsim.Scenario(**{**SMALL, "overlay": {"kind": "ideal"}}), out=tmp_path)
    assert ideal.brokers is None and not (tmp_path / "brokers.parquet").exists()


def test_verify_and_the_catalog():
    report = cnsim.verify(cnsim.Scenario(**SMALL))
    assert report.ok, report.text()
    assert cnsim.CATALOG["ip_bytes"].paper == "Fig. 14(b)"
    with pytest.raises(AttributeError):
        cnsim.no_such_thing  # noqa: B018


def test_the_docstring_examples_run(monkeypatch):
    monkeypatch.chdir(ROOT)
    for module in (api, config):
        result = doctest.testmod(module, extraglobs={"cnsim": cnsim}, optionflags=doctest.ELLIPSIS)
        assert result.failed == 0 and result.attempted > 0


def test_bad_api_input_is_named_and_damages_nothing(tmp_path):
    with pytest.raises(ConfigError, match="no-such.toml"):
        cnsim.Scenario.from_toml(tmp_path / "no-such.toml")
    taken = tmp_path / "taken"
    taken.write_text("keep me")
    with pytest.raises(InputError, match="taken"):
        cnsim.run(cnsim.Scenario(**SMALL), out=taken)
    assert taken.read_text() == "keep me"
