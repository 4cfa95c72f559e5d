"""The subscription index of every kind against brute force: box reporting and snap
(1-d ranges, D = 2; 1.5-d ranges, D = 3; boxes over d attributes, D = 2d), with
boundaries on the points, and a snapped box reaching exactly what it snapped."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cnsim.kdtree import reaches_np
from cnsim.subscriptions.index import (
    RANGE,
    RANGE_15D,
    SubscriptionIndex,
    SubscriptionIndex3D,
    closed_box,
    closed_box_15d,
)
from cnsim.subscriptions.space import closed_box_rect
from cnsim.subscriptions.space_boxes import BoxSubscriptions, report_upto

bound = st.one_of(st.integers(0, 20).map(lambda v: v / 20), st.sampled_from([-np.inf, np.inf]))
grid = st.integers(0, 10).map(lambda v: v / 10)
box3 = st.tuples(grid, grid, grid, grid, grid, grid).map(
    lambda b: (b[0], b[0] + b[1], b[2], b[2] + b[3], b[4], b[4] + b[5])
)


def range_case(rng, m):
    # Endpoints on the same grid as the rectangles, so half-open ends are exercised.
    a, b = rng.integers(0, 21, m) / 20, rng.integers(0, 21, m) / 20
    l, r = np.minimum(a, b), np.maximum(a, b)
    return SubscriptionIndex(l, r), np.stack([l, r], 1), RANGE, closed_box_rect


def range15_case(rng, m):
    l, r, v = (rng.integers(0, 21, m) / 10 for _ in range(3))
    return SubscriptionIndex3D(l, r, v), np.stack([l, r, v], 1), RANGE_15D, closed_box_15d


CASES = {
    "1-d": (range_case, st.tuples(bound, bound, bound, bound), 300),
    "1.5-d": (range15_case, box3, 400),
}


@pytest.mark.parametrize("kind", CASES)
@settings(deadline=None)
@given(data=st.data(), seed=st.integers(0, 2**32 - 1))
def test_report_and_snap_match_brute_force(kind, data, seed):
    make, query, m_max = CASES[kind]
    m = data.draw(st.integers(0, m_max))
    index, pts, sides, snapped_box = make(np.random.default_rng(seed), m)
    boxes = data.draw(st.lists(query, min_size=1, max_size=10))
    offsets, ids = index.report(np.array(boxes, float))
    for j, q in enumerate(boxes):
        want = np.flatnonzero(reaches_np(q, pts, sides))
        assert np.array_equal(np.sort(ids[offsets[j] : offsets[j + 1]]), want)
        count, *bounds = index.snap(q)
        assert count == len(want)
        if count:
            lows, highs = pts[want].min(axis=0), pts[want].max(axis=0)
            assert bounds == np.stack([lows, highs], 1).ravel().tolist()
            # The snapped box reaches exactly the same subscriptions.
            again = snapped_box(*bounds)
            assert again == closed_box(bounds[0::2], bounds[1::2], sides)
            assert np.array_equal(np.flatnonzero(reaches_np(again, pts, sides)), want)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), d=st.integers(1, 4))
def test_box_report_and_snap_match_brute_force(seed, d):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 300))
    a, b = rng.integers(0, 5, (m, d)) / 4, rng.integers(0, 5, (m, d)) / 4
    index = BoxSubscriptions(np.minimum(a, b), np.maximum(a, b))
    boxes = np.sort(rng.integers(-1, 6, (5, d, 4)) / 4, axis=2).reshape(5, 4 * d)
    offsets, ids = index.report(boxes)
    sides = np.arange(2 * d) % 2 == 0
    for j, box in enumerate(boxes):
        want = np.flatnonzero(reaches_np(box, index.pts, sides))
        assert sorted(ids[offsets[j] : offsets[j + 1]].tolist()) == want.tolist()
        count, lows, highs = index.snap(box)
        assert count == len(want)
        if count:
            assert np.array_equal(lows, index.pts[want].min(axis=0))
            assert np.array_equal(highs, index.pts[want].max(axis=0))
        # The first few (d = 1..3 compiled with D fixed, d = 4 reading D at run time).
        assert index.holds_any(box) == (count > 0)
        for limit in (0, 1, 3):
            out = np.empty(max(limit, 1), np.int64)
            n = report_upto(*index.tree(), box, limit, out)
            assert n == min(count, limit + 1)
            found = index.order[out[: min(n, limit)]]
            assert len(set(found.tolist())) == len(found) and np.isin(found, want).all()
    counts, lows, highs = index.snap_many(boxes)
    for j, box in enumerate(boxes):
        count, low, high = index.snap(box)
        assert counts[j] == count
        if count:
            assert np.array_equal(lows[j], low) and np.array_equal(highs[j], high)
