"""The shared workload generators (:mod:`cnsim.subscriptions.generators`) refuse a seed,
a generator, a reading, a dataset name or an array they cannot use with ``InputError``
and one line naming the argument, its value and what is allowed, before drawing
anything (harness: tests/refusals.py); the draws of good arguments are unchanged."""

from __future__ import annotations

import numpy as np
import pytest
from refusals import Case, assert_refused, table

from cnsim.errors import InputError
from cnsim.subscriptions import workload
from cnsim.subscriptions.generators import boxes, datasets_15d, readings
from cnsim.subscriptions.ranked.boolean import workload as boolean_workload


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


RECTS = np.array([[0.1, 0.2, 0.3, 0.4]])
READINGS = r"allowed: one of 'triangle', 'length', 'left'$"
DATASETS = r"allowed: one of 'DS#1', 'DS#2', 'DS#3'$"
GENERATOR = r"allowed: a numpy\.random\.Generator \(numpy\.random\.default_rng\(seed\)\)$"

CASES = [
    Case("boxes-seed-text", api=lambda d: boxes.workload(2, 5, 5, 5, seed="x"),
         message=r"^seed = 'x'; allowed: an integer >= 0$"),
    Case("boxes-seed-float", api=lambda d: boxes.workload(2, 5, 5, 5, seed=1.5),
         message=r"^seed = 1\.5; allowed: an integer >= 0$"),
    Case("boxes-seed-negative", api=lambda d: boxes.workload(2, 5, 5, 5, seed=-1),
         message=r"^seed = -1; allowed: an integer >= 0$"),
    Case("boxes-seed-none", api=lambda d: boxes.workload(2, 5, 5, 5, seed=None),
         message=r"^seed = None; allowed: an integer >= 0$"),
    Case("boxes-seed-bool", api=lambda d: boxes.workload(2, 5, 5, 5, seed=True),
         message=r"^seed = True; allowed: an integer >= 0$"),
    Case("readings-mass-unknown", api=lambda d: readings.mass(RECTS, "uniform"),
         message=r"^reading = 'uniform'; " + READINGS),
    Case("readings-mass-none", api=lambda d: readings.mass(RECTS, None),
         message=r"^reading = None; " + READINGS),
    Case("readings-mass-case", api=lambda d: readings.mass(RECTS, "Triangle"),
         message=r"^reading = 'Triangle'; " + READINGS),
    Case("readings-mass-rects-shape", api=lambda d: readings.mass([[0.1, 0.2, 0.3]], "left"),
         message=r"^rects = \[\[0\.1, 0\.2, 0\.3\]\]; allowed: numbers of shape \(M, 4\)"),
    Case("readings-mass-rects-text", api=lambda d: readings.mass([["a", "b", "c", "d"]], "left"),
         message=r"^rects = \[\['a', .*allowed: numbers of shape \(M, 4\)"),
    Case("readings-draw-unknown", api=lambda d: readings.draw_subscriptions(rng(), 5, "flat"),
         message=r"^reading = 'flat'; " + READINGS),
    Case("readings-draw-number", api=lambda d: readings.draw_subscriptions(rng(), 5, 2),
         message=r"^reading = 2; " + READINGS),
    Case("readings-draw-seed-as-rng", api=lambda d: readings.draw_subscriptions(7, 5, "left"),
         message=r"^rng = 7; " + GENERATOR),
    Case("readings-draw-legacy-rng",
         api=lambda d: readings.draw_subscriptions(np.random.RandomState(0), 5, "left"),
         message=r"^rng = RandomState\(MT19937\).*; " + GENERATOR),
    Case("15d-subscriptions-dataset", api=lambda d: datasets_15d.subscriptions("DS#4", 5,
         np.zeros(3), rng()), message=r"^dataset = 'DS#4'; " + DATASETS),
    Case("15d-subscriptions-dataset-lower", api=lambda d: datasets_15d.subscriptions("ds#1", 5,
         np.zeros(3), rng()), message=r"^dataset = 'ds#1'; " + DATASETS),
    Case("15d-subscriptions-dataset-number", api=lambda d: datasets_15d.subscriptions(1, 5,
         np.zeros(3), rng()), message=r"^dataset = 1; " + DATASETS),
    Case("15d-subscriptions-rng", api=lambda d: datasets_15d.subscriptions("DS#1", 5,
         np.zeros(3), "seed"), message=r"^rng = 'seed'; " + GENERATOR),
    Case("15d-subscriptions-x1-2d", api=lambda d: datasets_15d.subscriptions("DS#2", 5,
         np.zeros((2, 2)), rng()), message=r"^x1 = .* has shape \(2, 2\); allowed: a 1-d"),
    Case("15d-subscriptions-x1-text", api=lambda d: datasets_15d.subscriptions("DS#2", 5,
         ["a", "b"], rng()), message=r"^x1 has dtype <U1 .*allowed: numbers$"),
    Case("15d-subscriptions-cover-list", api=lambda d: datasets_15d.subscriptions("DS#2", 5,
         np.zeros(3), rng(), cover=[5]), message=r"^cover = \[5\]; allowed: None or a dict"),
    Case("15d-subscriptions-cover-zero", api=lambda d: datasets_15d.subscriptions("DS#2", 5,
         np.zeros(3), rng(), cover={"DS#2": 0}),
         message=r"^cover\['DS#2'\] = 0; allowed: an integer >= 1"),
    Case("15d-subscriptions-cover-float", api=lambda d: datasets_15d.subscriptions("DS#3", 5,
         np.zeros(3), rng(), cover={"DS#3": 2.5}),
         message=r"^cover\['DS#3'\] = 2\.5; allowed: an integer >= 1"),
    Case("15d-objects-rng", api=lambda d: datasets_15d.objects(5, 0),
         message=r"^rng = 0; " + GENERATOR),
    Case("15d-events-rng", api=lambda d: datasets_15d.events(np.zeros(3), 2, None),
         message=r"^rng = None; " + GENERATOR),
    Case("15d-events-y-2d", api=lambda d: datasets_15d.events(np.zeros((3, 1)), 2, rng()),
         message=r"^y = .* has shape \(3, 1\); allowed: a 1-d array$"),
    Case("15d-events-y-text", api=lambda d: datasets_15d.events(["x"], 2, rng()),
         message=r"^y has dtype <U1 .*allowed: numbers$"),
    Case("boolean-workload-seed-text", api=lambda d: boolean_workload.workload("x", 5),
         message=r"^seed = 'x'; allowed: an integer >= 0$"),
    Case("boolean-workload-seed-negative", api=lambda d: boolean_workload.workload(-2, 5),
         message=r"^seed = -2; allowed: an integer >= 0$"),
    Case("objects-distribution", api=lambda d: workload.generate_objects(rng(), 5, "zipf"),
         message=r"^object distribution = 'zipf'; allowed: 'uniform', 'clustered'$"),
    Case("subscriptions-distribution",
         api=lambda d: workload.generate_subscriptions(rng(), 5, "Uniform"),
         message=r"^subscription distribution = 'Uniform'; allowed: 'uniform', 'clustered', "
                 r"'correlated', 'anti-correlated'$"),
    Case("events-update-model", api=lambda d: workload.generate_events(rng(), np.zeros(3), 2,
         "gaussian"), message=r"^update model = 'gaussian'; allowed: 'uniform', 'volatile', "
                               r"'redraw'$"),
]  # fmt: skip
for _c in CASES:
    _c.raises = InputError


@table(CASES)
def test_bad_generator_input_is_refused_clearly(case: Case, bad_inputs, capsys, monkeypatch):
    assert_refused(case, bad_inputs, capsys, monkeypatch)


@pytest.mark.parametrize("seed", [3, np.int64(3), np.uint8(3)])
def test_a_numpy_integer_seed_draws_what_the_int_draws(seed):
    want = boxes.workload(2, 6, 4, 3, seed=3)
    got = boxes.workload(2, 6, 4, 3, seed=seed)
    for a, b in zip(want[:4], got[:4], strict=True):
        assert np.array_equal(a, b)
    assert want[4] == got[4]


def test_every_reading_draws_what_its_mass_says():
    """The reading names the checks accept are the ones both functions implement: the
    share of draws in a rectangle is its mass (3,000 draws, 5 standard errors)."""
    rect = np.array([[0.1, 0.3, 0.4, 0.8]])
    for reading in readings.READINGS:
        l, r = readings.draw_subscriptions(rng(1), 3000, reading)
        share = np.mean((l >= 0.1) & (l < 0.3) & (r >= 0.4) & (r < 0.8))
        p = readings.mass(rect, reading)[0]
        assert abs(share - p) <= 5 * np.sqrt(p * (1 - p) / 3000) + 1e-9, reading
