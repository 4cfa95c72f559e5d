"""The 1.5-d object index against brute force: first_k, min_y, min_x2 under updates,
deletes and inserts, with ties in x1, x2 and y (seed 003 appendix D)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cnsim.errors import InputError
from cnsim.server.object_index_2d import EAST, WEST, ObjectIndex2D


def lt(ya, ia, yb, ib):
    return (ya < yb) | ((ya == yb) & (ia < ib))


def brute_first_k(x1, x2, y, a0, b0, y0, id0, direction, k):
    ids = np.arange(len(x1))
    side = x1 <= a0 if direction == WEST else x1 > a0
    ok = side & (x2 <= b0) & np.isfinite(y) & lt(y, ids, y0, id0)
    xs = np.sort(x1[ok])
    return (xs[::-1] if direction == WEST else xs)[:k]


def brute_min_y(x1, x2, y, a_lo, a_hi, b_lo, b_hi, y0, id0):
    ids = np.arange(len(x1))
    ok = (a_lo <= x1) & (x1 <= a_hi) & (b_lo <= x2) & (x2 <= b_hi) & np.isfinite(y)
    ok &= lt(y0, id0, y, ids)
    if not ok.any():
        return -1
    return int(ids[ok][np.lexsort((ids[ok], y[ok]))[0]])


def brute_min_x2(x1, x2, y, a_lo, a_hi, b0, bid0, y0, id0):
    ids = np.arange(len(x1))
    ok = (a_lo <= x1) & (x1 <= a_hi) & np.isfinite(y) & lt(y, ids, y0, id0)
    ok &= lt(b0, bid0, x2, ids)
    if not ok.any():
        return -1
    return int(ids[ok][np.lexsort((ids[ok], x2[ok]))[0]])


grid = st.integers(0, 12).map(lambda v: v / 12)
ops = st.lists(
    st.tuples(st.sampled_from(["update", "delete", "insert"]), st.integers(0, 10**6), grid),
    max_size=30,
)
queries = st.lists(
    st.tuples(grid, grid, grid, grid, grid, st.integers(0, 60), st.integers(0, 8)),
    min_size=1,
    max_size=12,
)


@given(n=st.integers(0, 90), seed=st.integers(0, 2**32 - 1), ops=ops, queries=queries)
def test_queries_match_brute_force(n, seed, ops, queries):
    rng = np.random.default_rng(seed)
    x1, x2 = rng.integers(0, 13, n) / 12, rng.integers(0, 13, n) / 12
    y = rng.integers(0, 8, n) / 8
    index = ObjectIndex2D(x1, x2, y)
    for op, which, value in ops:
        if op == "insert":
            index.insert(value, (which % 13) / 12, value)
            continue
        if len(index) == 0:
            continue
        i = which % len(index)
        index.update(i, value if op == "update" else np.inf)
    X1, X2, Y = index.x1, index.x2, index.y
    for a, b, c, d, y0, id0, k in queries:
        lo, hi = min(a, b), max(a, b)
        for direction in (WEST, EAST):
            got = index.first_k(a, c, y0, id0, direction, k)
            want = brute_first_k(X1, X2, Y, a, c, y0, id0, direction, k)
            assert np.array_equal(got, want)
        b_lo, b_hi = min(c, d), max(c, d)
        assert index.min_y(lo, hi, b_lo, b_hi, y0, id0) == brute_min_y(
            X1, X2, Y, lo, hi, b_lo, b_hi, y0, id0
        )
        assert index.min_x2(lo, hi, c, id0, y0, id0 + 3) == brute_min_x2(
            X1, X2, Y, lo, hi, c, id0, y0, id0 + 3
        )


def test_calls_are_counted():
    index = ObjectIndex2D([0.1, 0.5], [0.2, 0.3], [0.4, 0.6])
    index.first_k(0.5, 1.0, 1.0, 9, WEST, 2)
    index.min_y(0, 1, 0, 1, 0.0, -1)
    index.min_x2(0, 1, 0.0, -1, 1.0, 9)
    index.min_x2(0, 1, 0.0, -1, 1.0, 9)
    counts = index.counter.as_dict()
    assert counts["calls_first_k"] == 1
    assert counts["calls_min_y"] == 1
    assert counts["calls_min_x2"] == 2
    assert counts["calls_min"] == 3


@pytest.mark.parametrize(
    ("x1", "x2", "y", "message"),
    [
        ([0.1], [0.2, 0.3], [0.1], "one length"),
        ([np.nan], [0.2], [0.1], "NaN"),
        ([np.inf], [0.2], [0.1], "finite"),
    ],
)
def test_bad_objects_are_named(x1, x2, y, message):
    with pytest.raises(InputError, match=message):
        ObjectIndex2D(x1, x2, y)


def test_bad_update_is_named():
    index = ObjectIndex2D([0.1], [0.2], [0.3])
    with pytest.raises(InputError, match="object id 5 does not exist"):
        index.update(5, 0.1)
