"""``cnsim bench redundancy``: Paint-Dense(ε)'s regions by kind in the dense limit, the
staircase formula of its docstring, and the drawn check (seed 003 Table II)."""

import numpy as np
import pytest

from cnsim.algorithms import regions
from cnsim.bench.fidelity.masses import delivery_masses
from cnsim.bench.fidelity.streams import workload
from cnsim.bench.redundancy import EPS, drawn_check, eps_masses
from cnsim.subscriptions.generators.readings import mass


@pytest.mark.parametrize("k", [1, 3, 10])
def test_exact_mass_by_kind_adds_up_to_the_exact_deliveries(k):
    x, y, ev = workload(5, 120, "uniform", "stationary")
    by_kind = eps_masses(k, x, y, ev)
    exact = by_kind["exact"]
    reference = delivery_masses(k, x, y, ev)
    np.testing.assert_allclose(exact.sum(axis=1), reference["exact_triangle"])
    np.testing.assert_array_equal(by_kind["exact_msgs"].sum(axis=1), reference["dense_msgs"])
    assert np.all(by_kind["coarse_msgs"] <= by_kind["exact_msgs"][None])
    raising = ev.y_new < ev.y_old
    assert np.all(exact[~raising, 0] == 0) and np.all(exact[raising, 1:] == 0)
    # A MEB contains what it covers; at k = 1 (one rectangle a group) nothing changes.
    assert np.all(by_kind["coarse"] >= exact[None] - 1e-12)
    if k == 1:
        np.testing.assert_allclose(
            by_kind["coarse"], np.broadcast_to(exact, (len(EPS), *exact.shape))
        )


@pytest.mark.parametrize(("k", "g"), [(4, 2), (6, 3), (10, 5), (10, 10), (12, 4)])
def test_a_staircase_with_equal_gaps_gains_g_minus_1_over_k_plus_1(k, g):
    """Strips of width w and heights k w, (k−1) w, …, w, grouped by g: each group of
    MEBs adds g(g−1)/2 cells to the staircase's k(k+1)/2."""
    w = 0.5 / (k + 1)
    x_i = 0.5
    L = x_i - w * np.arange(1, k + 1)
    R = x_i + w * np.arange(1, k + 1)
    rects = regions.influence_region(x_i, L, R, k)
    exact = mass(np.array(rects), "triangle").sum()
    coarse = mass(np.array(regions.coarsen(rects, g / k, k)), "triangle").sum()
    assert coarse / exact - 1 == pytest.approx((g - 1) / (k + 1))


def test_the_drawn_check_is_exact_where_epsilon_groups_single_rectangles():
    res = drawn_check(3, 40, 20_000, 4)  # ⌈εk⌉ = 1 for ε = 1/8, 1/4: exact
    for value in (0.125, 0.25):
        assert res[str(value)]["drawn"] == 0 and res[str(value)]["dense_limit"] == 0
    assert res["1.0"]["drawn"] >= 0 and res["1.0"]["dense_limit"] >= 0
