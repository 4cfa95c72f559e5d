"""``cnsim bench fidelity``'s computed figures: the probability mass of a rectangle of S
under each reading of "uniform in S" (against numerical integration of the density and
against drawn subscriptions), and messages received computed from it (against
deliveries counted by reporting the messages over drawn subscriptions)."""

import numpy as np
import pytest

from cnsim.algorithms.paint_dense import PaintDense
from cnsim.bench.fidelity.masses import delivery_masses
from cnsim.bench.fidelity.streams import workload
from cnsim.server.object_index import ObjectIndex
from cnsim.subscriptions.generators.readings import READINGS, draw_subscriptions, mass
from cnsim.subscriptions.index import SubscriptionIndex

DENSITY = {
    "triangle": lambda l, r: 2.0 + 0 * l,
    "length": lambda l, r: 1.0 / (1.0 - (r - l)),
    "left": lambda l, r: 1.0 / (1.0 - l),
}


def rects(seed, n):
    """Random rectangles (lO, lI, rI, rO) with lI <= rI, some reaching past [0, 1]."""
    rng = np.random.default_rng(seed)
    x = rng.random(n)
    lo, hi = x - rng.random(n) * 0.6, x + rng.random(n) * 0.6
    li = x - rng.random(n) * (x - lo)
    ri = x + rng.random(n) * (hi - x)
    return np.stack([lo, li, ri, hi], axis=1)


@pytest.mark.parametrize("reading", READINGS)
def test_mass_equals_the_integral_of_the_density(reading):
    g = 1500  # midpoint rule on a g × g grid of each rectangle
    for lo, li, ri, hi in rects(1, 12):
        a, b, c, d = max(lo, 0), min(li, 1), max(ri, 0), min(hi, 1)
        t = (np.arange(g) + 0.5) / g
        l, r = np.meshgrid(a + (b - a) * t, c + (d - c) * t, indexing="ij")
        want = DENSITY[reading](l, r).mean() * max(b - a, 0) * max(d - c, 0)
        got = mass(np.array([[lo, li, ri, hi]]), reading)[0]
        assert got == pytest.approx(want, rel=2e-3, abs=1e-9)


@pytest.mark.parametrize("reading", READINGS)
def test_mass_is_the_share_of_drawn_subscriptions(reading):
    m = 400_000
    l, r = draw_subscriptions(np.random.default_rng(2), m, reading)
    assert np.all(l <= r) and np.all((l >= 0) & (r <= 1))
    box = rects(3, 30)
    offsets, _ = SubscriptionIndex(l, r).report(box)
    share = np.diff(offsets) / m
    p = mass(box, reading)
    assert np.all(np.abs(share - p) <= 5 * np.sqrt(p * (1 - p) / m) + 1e-6)
    # CN-Relax's message reaches every range containing x
    x = np.array([0.1, 0.5, 0.8])
    relax = mass(np.stack([np.full(3, -np.inf), x, x, np.full(3, np.inf)], axis=1), "triangle")
    assert relax == pytest.approx(2 * x * (1 - x))


def test_computed_messages_received_match_counted_deliveries():
    k, m = 3, 300_000
    x, y, ev = workload(5, 300, "uniform", "uniform")
    got = delivery_masses(k, x, y, ev)
    l, r = draw_subscriptions(np.random.default_rng(6), m, "triangle")
    index = SubscriptionIndex(l, r)
    dense = PaintDense(ObjectIndex(x, y), k)
    counted = np.zeros(len(ev))
    for e in range(len(ev)):
        msgs = dense.process(ev.updates(e, e + 1))
        if len(msgs):
            counted[e] = index.report(msgs.rects)[0][-1]
    expected = m * got["exact_triangle"]
    assert counted.sum() == pytest.approx(expected.sum(), rel=0.02)
    # Unicast's candidates contain the affected subscriptions; exact deliveries add the
    # replacement objects of rank-lowering updates to them
    assert np.all(got["candidates_triangle"] >= got["affected_triangle"] - 1e-12)
    assert np.all(got["exact_triangle"] >= got["affected_triangle"] - 1e-12)
    assert got["dense_min_y"].sum() == dense.counter.min_y


@pytest.mark.slow
def test_the_exact_expectation_integrates_the_influence_region_over_the_sweep():
    from cnsim.algorithms import regions
    from cnsim.simulations.reproduce.expected import _expected

    rng = np.random.default_rng(7)
    n, k = 25, 2
    x, y = rng.random(n), rng.random(n)
    got = _expected(x, y, k)
    for i in range(n):
        cuts = np.unique(np.concatenate([[0.0, y[i], 1.0], np.delete(y, i)]))
        for g, reading in enumerate(READINGS):
            low = high = 0.0
            for a, b in zip(cuts[:-1], cuts[1:], strict=True):
                t = (a + b) / 2  # the influence region is constant between the cuts
                below = (np.arange(n) != i) & (y < t)
                west = np.sort(x[below & (x < x[i])])[::-1][:k]
                east = np.sort(x[below & (x > x[i])])[:k]
                rects = np.array(regions.influence_region(x[i], west, east, k)).reshape(-1, 4)
                d = mass(rects, reading).sum() * (b - a)
                low, high = (low + d, high) if b <= y[i] else (low, high + d)
            assert got[i, g, 0] == pytest.approx(low, rel=1e-9, abs=1e-15)
            assert got[i, g, 1] == pytest.approx(high, rel=1e-9, abs=1e-15)


# The mean is compared within 4 standard errors of itself: 300 drawn events make the
# quick run's check, 1,500 the full run's tighter one.
@pytest.mark.parametrize("draws", [300, pytest.param(1500, marks=pytest.mark.slow)])
def test_the_exact_expectation_is_the_mean_over_drawn_next_events(draws):
    from cnsim.simulations.reproduce.expected import expected_next_event
    from cnsim.subscriptions.workload import generate_events

    rng = np.random.default_rng(8)
    n, k = 30, 2
    x, y = rng.random(n), rng.random(n)
    want = expected_next_event(x, y, k)["triangle"]
    one = [generate_events(rng, y, 1, x=x) for _ in range(draws)]
    events = type(one[0])(
        kind=np.concatenate([e.kind for e in one]),
        start=np.arange(draws + 1),
        obj=np.concatenate([e.obj for e in one]),
        x=np.concatenate([e.x for e in one]),
        y_old=np.concatenate([e.y_old for e in one]),
        y_new=np.concatenate([e.y_new for e in one]),
    )
    got = np.zeros(draws)
    for e in range(draws):  # each drawn event applied to the same objects
        got[e] = delivery_masses(k, x, y, type(events)(
            events.kind[e : e + 1], np.array([0, 1]), events.obj[e : e + 1],
            events.x[e : e + 1], events.y_old[e : e + 1], events.y_new[e : e + 1],
        ))["exact_triangle"][0]  # fmt: skip
    se = got.std() / np.sqrt(draws)
    assert abs(got.mean() - want["exact"]) < 4 * se
