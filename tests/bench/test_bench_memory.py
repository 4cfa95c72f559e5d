"""``cnsim bench memory``: the refit recovers known per-item costs from peaks made with
them, and a measured case's peak is a real process's (above the estimate's base, below
the machine)."""

import numpy as np
import pytest

from cnsim.bench.memory import CASES, FITTED, fit, measure_peak, scenario_of
from cnsim.simulations.config import from_dict
from cnsim.simulations.sizes import COSTS, PARTS, estimate, quantities


def test_fit_recovers_the_costs_that_made_the_peaks():
    rng = np.random.default_rng(3)
    drawn = rng.uniform(5, 500, len(FITTED))
    truth = {**COSTS, **{c: float(v) for c, v in zip(FITTED, drawn, strict=True)}}
    rows = []
    for name, changes in CASES.items():
        q = quantities(from_dict(scenario_of(changes), name))
        rows.append({"quantities": q, "measured": sum(truth[c] * v for c, v in q.items())})
    got = fit(rows)
    for c in FITTED:
        assert got[c] == pytest.approx(truth[c], rel=1e-6)
    assert {c: got[c] for c in COSTS if c not in FITTED} == {
        c: COSTS[c] for c in COSTS if c not in FITTED
    }


def test_every_cost_belongs_to_one_printed_part():
    named = [c for names in PARTS.values() for c in names]
    assert sorted(named) == sorted(COSTS)


def test_the_estimate_is_the_costs_times_the_quantities():
    scenario = from_dict(scenario_of({"subscriptions.k": 20}), "case")
    q = quantities(scenario, oracle=True)
    assert q["list_slot"] == 2_000_000 * 20 * 5  # five approaches keep top-k lists
    assert estimate(scenario, oracle=True).total == pytest.approx(
        sum(COSTS[c] * v for c, v in q.items())
    )


def test_a_case_is_measured_in_its_own_process(monkeypatch, tmp_path):
    monkeypatch.setenv("CNSIM_CACHE", str(tmp_path))
    # a small case: the peak is the process's (imports and arrays), whatever the sizes
    small = {"subscriptions.count": 2_000, "objects.count": 1_000, "events.count": 20}
    data = scenario_of({**small, "overlay.kind": "ideal"})
    peak = measure_peak(data)
    assert 50e6 < peak < estimate(from_dict(data, "case")).available + 1e9


def test_subscriptions_cost_by_the_coordinates_of_their_point_in_s():
    """The per-subscription costs, fitted on 1-d ranges (points of a 2-d S), scale with
    the coordinates of a subscription's point: 3 for 1.5-d, 2d for a box over d."""
    base = {"subscriptions": {"count": 1000}, "overlay": {"kind": "ideal"}}
    one = quantities(from_dict(base))["subscription"]
    q15 = quantities(from_dict({**base, "subscriptions": {"count": 1000, "kind": "range-1.5d"}}))
    assert q15["subscription"] == 1.5 * one
    for d in (1, 2, 4):
        box = {"count": 1000, "kind": "box", "dims": d}
        sc = from_dict({**base, "subscriptions": box, "algorithm": {"approaches": ["unicast"]}})
        assert quantities(sc)["subscription"] == d * one
