"""Meghdoot zones, routing and gateway stores in a 3-d S (1.5-d ranges; cnsim/brokers/
zones.py, routing.py, gateways.py) against brute force."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from cnsim.brokers.gateways import Gateways
from cnsim.brokers.routing import route
from cnsim.brokers.zones import build_zones
from cnsim.kdtree import reaches_np

L15 = (True, False, False)  # 1.5-d S: (l1, r1, r2)


def boxes_15d(rng, m, grid=None):
    """Random message boxes of the 1.5-d S, some unbounded, some on a coarse grid
    (bounds on zone edges) and some empty."""
    draw = (lambda s: rng.integers(0, grid + 1, s) / grid) if grid else rng.random
    q = np.concatenate([np.sort(draw((m, 2)), axis=1) for _ in range(3)], axis=1)
    q[rng.random(m) < 0.2, 0] = -np.inf
    q[rng.random(m) < 0.2, 3] = np.inf
    q[rng.random(m) < 0.3, 5] = np.inf
    return q


@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 150), grid=st.sampled_from([None, 4, 16]))
@settings(max_examples=40, deadline=None)
def test_3d_zones_tile_s_and_routes_reach_every_meeting_zone(seed, n, grid):
    z = build_zones(n, seed=np.random.default_rng(seed), lower_open=L15)
    assert np.isclose(z.volumes().sum(), 1.0)
    rng = np.random.default_rng(seed + 1)
    pts = rng.random((500, 3))
    zone = z.zone_of(pts)
    inside = ((z.zlo[zone] <= pts) & (pts < z.zhi[zone])).all(axis=1)
    assert inside.all()
    # neighbours: symmetric, and they touch in one dimension
    for a in range(z.n_zones):
        for b in z.neighbours(a):
            assert a in z.neighbours(b)
    q = boxes_15d(rng, 150, grid)
    src = rng.integers(0, n, len(q))
    routes = route(z, q, src)
    for m in range(len(q)):
        reached = routes.reached(m)
        assert len(set(reached.tolist())) == len(reached)
        assert np.array_equal(np.sort(reached), np.flatnonzero(z.meeting(q[m])))
        hf, ht = routes.hops(m)
        # the hops form a walk from the source through neighbours
        seen = {int(src[m])}
        for f, t in zip(hf.tolist(), ht.tolist(), strict=True):
            assert f in seen and t in z.neighbours(f)
            seen.add(t)


def test_splits_cycle_through_l1_r1_r2():
    z = build_zones(300, seed=3, lower_open=L15)
    # along every root-to-leaf path of the split tree the dimensions go l1, r1, r2, l1, …
    stack = [(0, 0)]
    while stack:
        node, depth = stack.pop()
        if z.node_dim[node] < 0:
            continue
        assert z.node_dim[node] == depth % 3
        stack += [(z.node_left[node], depth + 1), (z.node_right[node], depth + 1)]
    sides = z.zhi - z.zlo
    assert (sides[:, 0] <= sides[:, 1]).all() and (sides[:, 1] <= sides[:, 2]).all()
    assert (sides[:, 2] <= 2 * sides[:, 0]).all()


@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 40), m=st.integers(0, 400))
@settings(max_examples=30, deadline=None)
def test_gateways_deliver_exactly_the_subscriptions_inside(seed, n, m):
    rng = np.random.default_rng(seed)
    z = build_zones(n, seed=rng, lower_open=L15)
    a, b = rng.integers(0, 9, (2, m)) / 8  # ties on the bounds
    l, r, v = np.minimum(a, b), np.maximum(a, b), rng.integers(0, 9, m) / 8
    pts = np.stack([l, r, v], axis=1)
    gw = Gateways(pts, z.zone_of(pts), z.n_zones, L15)
    assert np.array_equal(np.sort(gw.ids), np.arange(m))
    q = boxes_15d(rng, 60, grid=8)
    routes = route(z, q)
    offsets, pos = gw.deliver_positions(q, routes.reach_ptr, routes.reach_zone)
    for j in range(len(q)):
        got = np.sort(gw.ids[pos[offsets[j] : offsets[j + 1]]])
        assert np.array_equal(got, np.flatnonzero(reaches_np(q[j], pts, L15)))


def test_load_mode_balances_the_points_of_a_3d_s():
    rng = np.random.default_rng(4)
    a, b = rng.random((2, 3000)) ** 2
    pts = np.stack([np.minimum(a, b), np.maximum(a, b), rng.random(3000) ** 3], axis=1)
    z = build_zones(16, "load", points=pts, lower_open=L15)
    assert np.isclose(z.volumes().sum(), 1.0)
    load = np.bincount(z.zone_of(pts), minlength=16)  # halvings: a power of 2 is even
    assert load.max() - load.min() <= 1
