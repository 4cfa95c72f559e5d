"""The 3-d subscription index (1.5-d range subscriptions, seed 003 appendix D) against
brute force: box reporting and snap, with boundaries on the points."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from cnsim.subscriptions.index_3d import SubscriptionIndex3D, closed_box, reaches3_np

grid = st.integers(0, 10).map(lambda v: v / 10)
box = st.tuples(grid, grid, grid, grid, grid, grid).map(
    lambda b: (b[0], b[0] + b[1], b[2], b[2] + b[3], b[4], b[4] + b[5])
)


@given(m=st.integers(0, 400), seed=st.integers(0, 2**32 - 1),
       boxes=st.lists(box, min_size=1, max_size=10))  # fmt: skip
def test_report_and_snap_match_brute_force(m, seed, boxes):
    rng = np.random.default_rng(seed)
    l, r, v = (rng.integers(0, 21, m) / 10 for _ in range(3))
    index = SubscriptionIndex3D(l, r, v)
    offsets, ids = index.report(np.array(boxes))
    for j, b in enumerate(boxes):
        inside = np.flatnonzero(reaches3_np(b, l, r, v))
        assert np.array_equal(np.sort(ids[offsets[j] : offsets[j + 1]]), inside)
        count, *bounds = index.snap(b)
        assert count == len(inside)
        if count:
            want = [l[inside].min(), l[inside].max(), r[inside].min(), r[inside].max(),
                    v[inside].min(), v[inside].max()]  # fmt: skip
            assert bounds == want
            # The snapped box reaches exactly the same subscriptions.
            again = np.flatnonzero(reaches3_np(closed_box(*bounds), l, r, v))
            assert np.array_equal(again, inside)
