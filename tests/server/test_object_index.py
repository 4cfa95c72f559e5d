"""The object index against brute force: first_k, min_y, after updates, inserts, deletes."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from cnsim.errors import InputError
from cnsim.server.object_index import EAST, WEST, ObjectIndex


def brute_first_k(x, y, x0, y0, direction, k, id0=-1):
    ids = np.arange(len(x))
    side = x < x0 if direction == WEST else x > x0
    below = (y < y0) | ((y == y0) & (ids < id0) & np.isfinite(y))
    xs = np.sort(x[side & below])
    return (xs[::-1] if direction == WEST else xs)[:k]


def brute_min_y(x, y, lo, hi, y0, id0=2**62):
    ids = np.arange(len(x))
    above = (y > y0) | ((y == y0) & (ids > id0))
    ok = (x >= lo) & (x <= hi) & above & np.isfinite(y)
    if not ok.any():
        return -1
    return int(ids[ok][np.lexsort((ids[ok], y[ok]))[0]])


# Values on a coarse grid so that queries hit object coordinates exactly (ties at ends).
grid = st.integers(0, 40).map(lambda v: v / 40)
ops = st.lists(
    st.tuples(st.sampled_from(["update", "delete", "insert"]), st.integers(0, 10**6), grid),
    max_size=40,
)
queries = st.lists(st.tuples(grid, grid, grid, st.integers(0, 30)), min_size=1, max_size=15)


@given(
    n=st.integers(0, 120),
    seed=st.integers(0, 2**32 - 1),
    ops=ops,
    queries=queries,
)
def test_queries_match_brute_force(n, seed, ops, queries):
    rng = np.random.default_rng(seed)
    # Distinct x (the paper's assumption); y from a small set to exercise ties.
    x = rng.permutation(200)[:n] / 200 + 1 / 400
    y = rng.integers(0, 12, n) / 12
    index = ObjectIndex(x, y)
    for op, which, value in ops:
        if op == "insert":
            # A fresh distinct x; sometimes with ids skipped, as coalesced batches do.
            skip = which % 3 == 0
            index.insert(1 + index.n_ids + value / 1000, value, index.n_ids + skip)
            continue
        if index.n_ids == 0:
            continue
        i = which % index.n_ids
        if op == "update":
            index.update(i, value)
        else:
            index.delete(i)
    X, Y = index.x, index.y
    for x0, y0, z, k in queries:
        # Ties in y are broken by id: the apex's id decides which equal y count as below.
        id0 = int(k * 7) % max(index.n_ids, 1)
        for d in (WEST, EAST):
            assert np.array_equal(index.first_k(x0, y0, d, k), brute_first_k(X, Y, x0, y0, d, k))
            assert np.array_equal(
                index.first_k(x0, y0, d, k, id0), brute_first_k(X, Y, x0, y0, d, k, id0)
            )
        lo, hi = min(x0, z), max(x0, z)
        assert index.min_y(lo, hi, y0) == brute_min_y(X, Y, lo, hi, y0)
        assert index.min_y(lo, hi, y0, id0) == brute_min_y(X, Y, lo, hi, y0, id0)
        assert index.min_y(hi + 1e-9, lo, y0) == -1  # empty range


def test_counters_count_calls():
    index = ObjectIndex(np.array([0.1, 0.5, 0.9]), np.array([0.3, 0.2, 0.1]))
    index.first_k(0.5, 1.0, WEST, 2)
    index.first_k(0.5, 1.0, EAST, 2)
    index.min_y(0.0, 1.0, 0.0)
    assert (index.counter.first_k, index.counter.min_y) == (2, 1)


def test_k_larger_than_objects_and_strict_bounds():
    index = ObjectIndex(np.array([0.1, 0.2, 0.3]), np.array([0.5, 0.4, 0.6]))
    assert index.first_k(0.3, 0.6, WEST, 10).tolist() == [0.2, 0.1]  # y < 0.6, x < 0.3
    assert index.first_k(0.1, 1.0, EAST, 10).tolist() == [0.2, 0.3]
    assert index.min_y(0.1, 0.3, 0.5) == 2  # y > 0.5 strictly
    assert index.min_y(0.1, 0.3, 0.6) == -1


def test_many_updates_trigger_rebuild_and_stay_correct():
    rng = np.random.default_rng(3)
    x, y = rng.random(300), rng.random(300)
    index = ObjectIndex(x, y)
    for _ in range(5000):
        index.update(int(rng.integers(300)), float(rng.random()))
    for _ in range(50):
        x0, y0 = rng.random(2)
        assert np.array_equal(
            index.first_k(x0, y0, EAST, 7), brute_first_k(index.x, index.y, x0, y0, EAST, 7)
        )


def test_bad_input_is_rejected():
    try:
        ObjectIndex(np.array([0.1, np.nan]), np.array([0.1, 0.2]))
    except InputError as exc:
        assert "NaN" in str(exc)
    else:
        raise AssertionError("NaN accepted")


def test_apply_inserts_ids_in_any_order():
    # A coalesced batch may insert id 5 before id 3 (and never insert id 4).
    index = ObjectIndex(np.array([0.1, 0.2, 0.3]), np.array([0.5, 0.6, 0.7]))
    index.apply(5, 0.9, 0.1)
    index.apply(3, 0.8, 0.2)
    assert index.x[3] == 0.8 and index.x[5] == 0.9 and np.isnan(index.x[4])
    assert index.first_k(1.0, 1.0, WEST, 10).tolist() == [0.9, 0.8, 0.3, 0.2, 0.1]
    assert index.min_y(0.75, 0.95, 0.0) == 5
