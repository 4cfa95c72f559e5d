"""The interval every mean and whole-run value of a run's summary carries (``ci90_…``,
batch means: cnsim.simulations.metrics.interval)."""

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from cnsim.simulations.config import Scenario
from cnsim.simulations.metrics import BLOCKS, CATALOG, interval, ratio_interval
from cnsim.simulations.runner import run


def test_interval_is_student_t_over_the_block_means():
    values = np.arange(100.0) ** 1.5
    means = np.array([b.mean() for b in np.array_split(values, 20)])
    want = stats.t.ppf(0.95, 19) * means.std(ddof=1) / np.sqrt(20)
    assert interval(values) == pytest.approx(want, rel=1e-12)
    assert interval(values[:39]) is None  # fewer than two values per block
    assert interval(np.append(values, np.nan)) is None


def test_interval_covers_the_true_mean_nine_times_in_ten():
    rng = np.random.default_rng(5)
    trials = 2000
    series = rng.exponential(2.0, (trials, 400))  # skewed, mean 2
    hits = sum(abs(s.mean() - 2.0) <= interval(s) for s in series)
    assert 0.87 <= hits / trials <= 0.93


def test_ratio_interval_over_block_ratios():
    den = np.full(200, 4.0)
    assert ratio_interval(3 * den, den) == pytest.approx(0.0, abs=1e-12)
    rng = np.random.default_rng(1)
    num = rng.random(200)
    blocks = zip(np.array_split(num, 20), np.array_split(den, 20), strict=True)
    ratios = np.array([n.sum() / d.sum() for n, d in blocks])
    want = stats.t.ppf(0.95, 19) * ratios.std(ddof=1) / np.sqrt(20)
    assert ratio_interval(num, den) == pytest.approx(want, rel=1e-12)
    den[:10] = 0  # the first block's denominator is 0
    assert ratio_interval(num, den) is None


def scenario(events: int) -> Scenario:
    return Scenario.from_dict(
        {
            "seed": 3,
            "objects": {"count": 200},
            "subscriptions": {"count": 2000, "k": 3},
            "events": {"count": events},
            "overlay": {"kind": "ideal"},
            "algorithm": {"approaches": ["paint-dense", "paint-sparse(0.5)", "cn-relax"]},
            "run": {"progress": False},
        }
    )


def test_a_runs_intervals_are_those_of_its_events(tmp_path):
    run(scenario(4 * BLOCKS), tmp_path)
    events = pd.read_parquet(tmp_path / "events.parquet")
    summary = json.loads((tmp_path / "summary.json").read_text())
    exact = events[events.approach == "paint-dense"]
    for name, entries in summary["approaches"].items():
        rows = events[events.approach == name]
        for m in CATALOG.select("batch", "counting"):
            if "mean" in m.aggregates:
                assert entries[f"ci90_{m.name}"] == pytest.approx(interval(rows[m.name]))
        delivered = rows["delivered_msgs"].to_numpy(float)
        ref = exact["delivered_msgs"].to_numpy(float)
        assert entries["ci90_redundancy"] == pytest.approx(ratio_interval(delivered, ref))
        extra = rows["delivered_updated_msgs"].to_numpy(float)
        extra -= exact["delivered_updated_msgs"].to_numpy(float)
        assert entries["ci90_redundancy_paper"] == pytest.approx(ratio_interval(extra, ref))
    assert summary["approaches"]["paint-dense"]["ci90_redundancy"] == 0
    assert summary["approaches"]["cn-relax"]["ci90_delivered_msgs"] > 0


def test_too_short_a_run_has_no_interval(tmp_path):
    run(scenario(2 * BLOCKS - 1), tmp_path)
    summary = json.loads((tmp_path / "summary.json").read_text())
    entries = summary["approaches"]["paint-sparse(0.5)"]
    assert entries["mean_delivered_msgs"] is not None
    assert entries["ci90_delivered_msgs"] is None
