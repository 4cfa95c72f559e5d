"""Golden copies: the outputs of three scenarios, made before the broker and metrics
redesign, must come out identical apart from wall-time columns (a refactoring
changes no figure)."""

import json
from pathlib import Path

import pandas as pd
import pytest

from cnsim.simulations.config import load
from cnsim.simulations.runner import run

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden"
SCENARIOS = {
    "small": ROOT / "examples" / "small.toml",
    "batch": ROOT / "examples" / "batch.toml",
    "timed": GOLDEN / "timed.toml",
}
WALL = ("setup_time_s", "total_time_s", "server_time_s", "delivery_time_s", "source")
# [network] keys the redesign removed: endpoint pools the cached world drew but no run used
# (runs place their own subscribers and publishers); they shaped no figure.
REMOVED = ("publishers", "subscribers")


def _strip(value):
    """Drop wall-time entries (and the scenario's file path) from nested data."""
    if isinstance(value, dict):
        return {
            k: _strip(v) for k, v in value.items() if not any(k.endswith(w) for w in WALL)
        }
    return value


@pytest.fixture(autouse=True)
def cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("CNSIM_CACHE", str(tmp_path_factory.getbasetemp() / "worlds"))


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_outputs_equal_the_golden_copy(name, tmp_path):
    run(load(SCENARIOS[name]), tmp_path)
    gold = GOLDEN / name
    assert sorted(p.name for p in gold.glob("*.*")) == sorted(p.name for p in tmp_path.glob("*.*"))
    for parquet in gold.glob("*.parquet"):
        want, got = pd.read_parquet(parquet), pd.read_parquet(tmp_path / parquet.name)
        keep = [c for c in want.columns if not c.endswith(WALL)]
        assert list(got.columns) == list(want.columns)
        pd.testing.assert_frame_equal(got[keep], want[keep])
    want = json.loads((gold / "summary.json").read_text())
    got = json.loads((tmp_path / "summary.json").read_text())
    for key in REMOVED:
        del want["scenario"]["network"][key]
    assert _strip(got) == _strip(want)
