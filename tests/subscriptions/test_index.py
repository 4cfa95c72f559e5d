"""The subscription index against brute force: rectangle reporting and snap."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from cnsim.subscriptions.index import SubscriptionIndex
from cnsim.subscriptions.space import closed_box_rect

grid = st.integers(0, 20).map(lambda v: v / 20)
bound = st.one_of(grid, st.sampled_from([-np.inf, np.inf]))


def inside(l, r, rect):
    lo_l, li, ri, ro = rect
    return (lo_l < l) & (l <= li) & (ri <= r) & (r < ro)


@given(
    m=st.integers(0, 300),
    seed=st.integers(0, 2**32 - 1),
    rects=st.lists(st.tuples(bound, bound, bound, bound), min_size=1, max_size=10),
)
def test_report_and_snap_match_brute_force(m, seed, rects):
    rng = np.random.default_rng(seed)
    # Endpoints on the same grid as the rectangles, so half-open ends are exercised.
    a, b = rng.integers(0, 21, m) / 20, rng.integers(0, 21, m) / 20
    l, r = np.minimum(a, b), np.maximum(a, b)
    index = SubscriptionIndex(l, r)
    offsets, ids = index.report(np.array(rects, float))
    for j, rect in enumerate(rects):
        want = np.flatnonzero(inside(l, r, rect))
        assert np.array_equal(np.sort(ids[offsets[j] : offsets[j + 1]]), want)
        count, l_min, l_max, r_min, r_max = index.snap(rect)
        assert count == len(want)
        if count:
            assert (l_min, l_max) == (l[want].min(), l[want].max())
            assert (r_min, r_max) == (r[want].min(), r[want].max())
            # The snapped rectangle reaches exactly the same subscriptions.
            snapped = closed_box_rect(l_min, l_max, r_min, r_max)
            assert np.array_equal(np.flatnonzero(inside(l, r, snapped)), want)
