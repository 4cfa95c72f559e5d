"""The readings of seed 003 §V's workload that the fidelity checks compare: the ``redraw`` update
rule and the stationary initial y-distribution (``objects.y_distribution``)."""

import numpy as np
import pytest
from scipy import stats

from cnsim.errors import ConfigError
from cnsim.simulations.config import from_dict
from cnsim.simulations.seeds import Seeds
from cnsim.simulations.world import build_workload
from cnsim.subscriptions.workload import generate_events, generate_objects


def final_y(y0, events):
    y = y0.copy()
    y[events.obj] = np.nan  # every updated object gets its last value below
    for o, v in zip(events.obj.tolist(), events.y_new.tolist(), strict=True):
        y[o] = v
    return y


def test_redraw_draws_the_new_y_uniformly_whatever_the_old_one():
    rng = np.random.default_rng(1)
    y0 = rng.random(500)
    ev = generate_events(rng, y0, 20_000, "redraw")
    assert stats.kstest(ev.y_new, "uniform").pvalue > 0.01
    assert abs(np.corrcoef(ev.y_old, ev.y_new)[0, 1]) < 0.03
    # the kind follows the side the new value lands on
    assert np.array_equal(ev.kind == 0, ev.y_new < ev.y_old)
    assert np.all((ev.y_new >= 0) & (ev.y_new < 1))


def test_arcsine_is_the_stationary_law_of_the_uniform_rule_and_uniform_is_not():
    rng = np.random.default_rng(2)
    n = 1000
    _, arcsine = generate_objects(rng, n, "uniform", "stationary", "uniform")
    _, flat = generate_objects(rng, n, "uniform", "uniform", "uniform")
    beta = stats.beta(0.5, 0.5).cdf
    assert stats.kstest(arcsine, beta).pvalue > 0.01
    for start in (arcsine, flat):  # ~100 updates per object: the start is forgotten
        y = final_y(start, generate_events(rng, start, 100_000, "uniform"))
        assert stats.kstest(y, beta).pvalue > 0.01
        assert stats.kstest(y, "uniform").pvalue < 1e-4


def test_the_stationary_law_of_redraw_and_of_the_random_walk_is_uniform():
    rng = np.random.default_rng(3)
    for update in ("redraw", "volatile"):
        _, y = generate_objects(rng, 300, "uniform", "stationary", update)
        assert stats.kstest(y, "uniform").pvalue > 0.01
        y = final_y(y, generate_events(rng, y, 30_000, update))
        assert stats.kstest(y, "uniform").pvalue > 0.01


def test_the_scenario_key_changes_only_the_initial_y():
    def workload(**objects):
        sc = from_dict({"seed": 4, "objects": {"count": 2000, **objects}, "events": {"count": 50}})
        return build_workload(sc, Seeds(4))

    flat, stationary = workload(), workload(y_distribution="stationary")
    assert np.array_equal(flat.x, stationary.x)
    assert np.array_equal(flat.l, stationary.l)
    assert stats.kstest(stationary.y, stats.beta(0.5, 0.5).cdf).pvalue > 0.01
    assert stats.kstest(flat.y, "uniform").pvalue > 0.01
    with pytest.raises(ConfigError, match="y_distribution"):
        workload(y_distribution="arcsine")
