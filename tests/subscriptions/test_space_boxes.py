"""The run's index over box subscriptions (``BoxSubscriptions``) against brute force:
box reporting by id and by position, the space it declares to the networks, and the
CN-Relax reach boxes."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from cnsim.subscriptions.kinds import kind_of
from cnsim.subscriptions.space_boxes import BoxSubscriptions, reach_boxes, reaches_np


def _boxes(rng, m, d, grid):
    a, b = rng.integers(0, grid, (m, d)) / grid, rng.integers(0, grid, (m, d)) / grid
    return np.minimum(a, b), np.maximum(a, b)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 3), st.integers(0, 120), st.integers(0, 2**32 - 1))
def test_report_positions_equal_brute_force(d, m, seed):
    rng = np.random.default_rng(seed)
    l, r = _boxes(rng, m, d, 6)  # a coarse grid: many ties on the bounds
    subs = BoxSubscriptions(l, r)
    queries = np.sort(rng.integers(-1, 8, (9, 4 * d)) / 6, axis=1)
    queries[0] = reach_boxes(rng.integers(0, 6, (1, d)) / 6)[0]
    offsets, pos = subs.report_positions(queries)
    _, ids = subs.report(queries)
    assert np.array_equal(subs.order[pos], ids)
    pts = subs.index.pts
    for j, q in enumerate(queries):
        want = np.flatnonzero(reaches_np(q, pts))
        got = ids[offsets[j] : offsets[j + 1]]
        assert np.array_equal(np.sort(got), want)
        assert len(np.unique(pos[offsets[j] : offsets[j + 1]])) == len(got)


def test_declared_space():
    rng = np.random.default_rng(2)
    l, r = _boxes(rng, 50, 3, 10)
    subs = BoxSubscriptions(l, r)
    assert subs.dims == 6 and len(subs) == 50
    kind = kind_of({"kind": "box", "dims": 3})
    assert kind.space_dims == 6 and kind.lower_open == (True, False) * 3
    assert kind.ordered == ((0, 1), (2, 3), (4, 5))
    points = np.stack(subs.points, axis=1)
    assert np.array_equal(points[:, 0::2], l) and np.array_equal(points[:, 1::2], r)
    assert sorted(subs.order.tolist()) == list(range(50))


def test_reach_boxes_hold_exactly_the_boxes_around_a_point():
    rng = np.random.default_rng(3)
    l, r = _boxes(rng, 300, 2, 5)
    x = rng.integers(0, 5, (20, 2)) / 5
    subs = BoxSubscriptions(l, r)
    offsets, ids = subs.report(reach_boxes(x))
    for j, p in enumerate(x):
        want = np.flatnonzero(((l <= p) & (p <= r)).all(axis=1))
        assert np.array_equal(np.sort(ids[offsets[j] : offsets[j + 1]]), want)
