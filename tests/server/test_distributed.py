"""The distributed object database (seed 003 appendix C) against the single index:
first_k and min_y equal under random inserts, updates and deletes, for any number of
servers; zones, traversal counts and per-server load."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cnsim.errors import InputError
from cnsim.server.distributed import DistributedIndex, Zones
from cnsim.server.object_index import EAST, WEST, ObjectIndex

grid = st.integers(0, 40).map(lambda v: v / 40)
ops = st.lists(
    st.tuples(
        st.sampled_from(["update", "delete", "insert", "apply", "revive"]),
        st.integers(0, 10**6),
        grid,
    ),
    max_size=40,
)
queries = st.lists(st.tuples(grid, grid, grid, st.integers(0, 30)), min_size=1, max_size=12)


def _pair(x, y, s):
    return ObjectIndex(x, y), DistributedIndex(x, y, s)


@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(0, 120),
    s=st.integers(1, 12),
    seed=st.integers(0, 2**32 - 1),
    ops=ops,
    queries=queries,
)
def test_answers_equal_the_single_index(n, s, seed, ops, queries):
    rng = np.random.default_rng(seed)
    # x on a grid, with repeats (zone boundaries on object x-values, ties at ends);
    # y from a small set so that ties in y are broken by id.
    x = rng.integers(0, 60, n) / 60
    y = rng.integers(0, 12, n) / 12
    one, many = _pair(x, y, s)
    for op, which, value in ops:
        if op in ("insert", "apply"):
            skip = which % 3 == 0  # ids skipped on the way, as coalesced batches do
            i = one.n_ids + skip
            x_new = (which % 70) / 60  # also beyond the initial x-range
            if op == "insert":
                assert one.insert(x_new, value, i) == many.insert(x_new, value, i) == i
            else:
                one.apply(i, x_new, value)
                many.apply(i, x_new, value)
            continue
        if one.n_ids == 0:
            continue
        i = which % one.n_ids
        if np.isnan(one.x[i]):
            with pytest.raises(InputError):
                many.update(i, value)
            continue
        if op == "update":
            one.update(i, value)
            many.update(i, value)
        elif op == "delete":
            one.delete(i)
            many.delete(i)
        elif not np.isfinite(one.y[i]):  # revive a deleted object at a new x
            one.insert(value, 0.5, i)
            many.insert(value, 0.5, i)
    assert np.array_equal(one.x, many.x, equal_nan=True)
    assert np.array_equal(one.y, many.y)
    assert np.array_equal(one.live(), many.live())
    assert many.held().sum() == len(one.live())
    for x0, y0, z, k in queries:
        id0 = int(k * 7) % max(one.n_ids, 1)
        for d in (WEST, EAST):
            for ids in ((), (id0,)):
                want = one.first_k(x0, y0, d, k, *ids)
                assert np.array_equal(many.first_k(x0, y0, d, k, *ids), want)
        lo, hi = min(x0, z), max(x0, z)
        many.route(z)  # an origin inside or outside the range
        for ids in ((), (id0,)):
            assert many.min_y(lo, hi, y0, *ids) == one.min_y(lo, hi, y0, *ids)
        assert many.min_y(hi + 1e-9, lo, y0) == -1
    if queries:
        lo = np.array([min(q[0], q[2]) for q in queries])
        hi = np.array([max(q[0], q[2]) for q in queries])
        y0 = np.array([q[1] for q in queries])
        id0 = np.array([q[3] for q in queries], np.int64)
        assert np.array_equal(many.min_y_many(lo, hi, y0, id0), one.min_y_many(lo, hi, y0, id0))


def test_zones_split_the_objects_evenly():
    x = np.random.default_rng(1).random(1000)
    zones = Zones.split(x, np.zeros(1000), 7)
    held = np.bincount(zones.owner(x), minlength=7)
    assert held.sum() == 1000 and held.min() >= 1000 // 7 and held.max() <= -(-1000 // 7)
    assert np.all(np.diff(zones.bounds) >= 0)
    # Only live objects count; equal x-values stay in one zone.
    z = Zones.split(np.array([0.1, 0.2, 0.2, 0.2, 0.9]), np.array([1, 1, 1, 1, np.inf]), 2)
    assert z.bounds.tolist() == [0.2] and z.owner(0.2) == 1
    # Fewer objects than servers: empty zones, every object owned; none: [0, 1) evenly.
    z = Zones.split(np.array([0.3, 0.6]), np.ones(2), 5)
    assert z.count == 5 and sorted(z.owner(np.array([0.3, 0.6]))) != [0, 0]
    assert Zones.split(np.empty(0), np.empty(0), 4).bounds.tolist() == [0.25, 0.5, 0.75]
    assert Zones.split(x, np.zeros(1000), 1).bounds.size == 0


def test_first_k_walks_neighbours_as_algorithm_1():
    # Ten objects, one per server (x = 0.5 .. 9.5), all below y = 1: a first_k for 3
    # west of server 5's object is answered by servers 5 (none west of 5.5), 4, 3, 2.
    x = np.arange(10) + 0.5
    index = DistributedIndex(x, np.zeros(10), 10)
    assert index.first_k(5.5, 1.0, WEST, 3).tolist() == [4.5, 3.5, 2.5]
    c = index.counter
    assert (c.first_k, c.dist_first_k, c.hops_first_k, c.max_hops) == (1, 1, 3, 3)
    assert c.answered.tolist() == [0, 0, 1, 1, 1, 1, 0, 0, 0, 0]
    # Fewer than k in that direction: it walks to the last zone and stops.
    assert index.first_k(7.5, 1.0, EAST, 5).tolist() == [8.5, 9.5]
    assert c.hops_first_k == 3 + 2
    # Enough at the owner: no walk.
    index = DistributedIndex(x, np.zeros(10), 2)
    index.first_k(1.5, 1.0, EAST, 2)
    assert index.counter.hops_first_k == 0


def test_min_y_walks_every_zone_of_the_range_as_algorithm_2():
    x = np.arange(10) + 0.5
    y = np.array([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]) / 10
    index = DistributedIndex(x, y, 10)
    index.apply(4, 4.5, 0.05)  # the event at server 4 is the origin
    assert index.min_y(2.5, 6.5, 0.0) == 4
    c = index.counter
    assert (c.min_y, c.hops_min_y, c.max_hops) == (1, 4, 4)  # servers 2..6 from 4
    assert c.answered[2:7].tolist() == [1] * 5 and c.answered.sum() == 5
    # A range not holding the origin: the walk from the origin counts, only zones in
    # the range answer.
    assert index.min_y(7.5, 9.5, 0.0) == 8  # y > 0 strictly: object 9 (y = 0) is not
    assert c.hops_min_y == 4 + 5 and c.answered.sum() == 5 + 3
    assert index.min_y(7.5, 9.5, 0.15) == 7 and index.min_y(7.5, 9.5, 0.3) == -1


def test_per_server_load_and_call_counts():
    rng = np.random.default_rng(5)
    x, y = rng.random(400), rng.random(400)
    index = DistributedIndex(x, y, 8)
    assert index.held().tolist() == [50] * 8
    index.delete(int(np.argmin(x)))
    index.insert(1.5, 0.3)  # beyond every object: the easternmost server
    assert index.held().tolist() == [49] + [50] * 6 + [51]
    index.min_y_many(np.array([0.0, 0.5]), np.array([1.0, 0.6]), np.zeros(2), np.zeros(2, int))
    d = index.counter.as_dict()
    assert d["calls_min_y"] == 2 and d["dist_min_y"] == 2 and d["calls_first_k"] == 0


def test_first_lists_and_uncounted_calls_leave_the_counter_as_it_was():
    rng = np.random.default_rng(7)
    x, y = rng.random(300), rng.random(300)
    index, single = DistributedIndex(x, y, 5), ObjectIndex(x, y)
    index.first_k(0.5, 0.2, EAST, 3)
    c = index.counter
    before = (c.as_dict(), c.answered.tolist(), c.link_msgs().tolist(), c.max_hops)
    lo, hi = rng.random(40) * 0.5, 0.5 + rng.random(40) * 0.5
    got = index.top_k_many(lo, hi, 4)  # a joining subscription's first list: the join's
    want = single.top_k_many(lo, hi, 4)
    assert all(np.array_equal(g, w) for g, w in zip(got, want, strict=True))
    with c.uncounted():
        index.first_k(0.0, 0.0, EAST, 200)  # walks every server
        index.min_y(0.0, 1.0, 0.0)
    assert (c.as_dict(), c.answered.tolist(), c.link_msgs().tolist(), c.max_hops) == before
    index.min_y(0.0, 1.0, 0.0)  # counted again after
    assert c.as_dict()["calls_min_y"] == before[0]["calls_min_y"] + 1


def test_bad_input_is_rejected():
    with pytest.raises(InputError, match="NaN"):
        DistributedIndex(np.array([0.1, np.nan]), np.array([0.1, 0.2]), 2)
    index = DistributedIndex(np.array([0.1, 0.2]), np.array([0.1, 0.2]), 2)
    with pytest.raises(InputError, match="does not exist"):
        index.update(5, 0.3)
    with pytest.raises(InputError, match="present already"):
        index.insert(0.5, 0.5, 1)
