"""Meghdoot over the 2d-dimensional S of d-dimensional boxes (seed 003 §IV-C, §V):
CAN zones in S = R^{2d} (d = 2..4, D = 4..8) tile S and split through l_1, r_1, …,
l_d, r_d in turn; box messages reach exactly the zones they meet, along neighbours; the
gateways deliver exactly the subscriptions inside each message (brute force); and a
d = 4 run over the overlay passes ``cnsim verify`` (d = 1..3: test_verify_boxes_run)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cnsim
from cnsim.brokers.gateways import Gateways
from cnsim.brokers.routing import route
from cnsim.brokers.zones import build_zones
from cnsim.subscriptions.kinds import kind_of
from cnsim.subscriptions.space_boxes import BoxSubscriptions, reach_boxes, reaches_np


def space(d, m, rng, grid=8):
    """Box subscriptions on a coarse grid (ties on zone edges and message bounds)."""
    a, b = rng.integers(0, grid + 1, (2, m, d)) / grid
    return BoxSubscriptions(np.minimum(a, b), np.maximum(a, b))


def messages(d, count, rng, grid=8):
    """Message boxes as Paint and CN-Relax send them: per attribute (lO, lI, rI, rO)
    with lO < lI, rI < rO, some unbounded, some empty, and CN-Relax's point boxes."""
    q = np.sort(rng.integers(-1, grid + 2, (count, d, 4)) / grid, axis=2).reshape(count, 4 * d)
    q[q < 0] = -np.inf
    q[q > 1] = np.inf
    points = reach_boxes(rng.integers(0, grid + 1, (count // 4, d)) / grid)
    return np.concatenate([q, points])


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), d=st.integers(2, 4), n=st.integers(1, 90))
def test_2d_dimensional_zones_tile_s_and_routes_reach_every_meeting_zone(seed, d, n):
    rng = np.random.default_rng(seed)
    space(d, 1, rng)  # the same draws as before the zones
    kind = kind_of({"kind": "box", "dims": d})
    z = build_zones(n, seed=np.random.default_rng(seed), lower_open=kind.lower_open,
                    ordered=kind.ordered)  # fmt: skip
    assert z.dims == 2 * d and z.n_zones == n
    assert np.isclose(z.volumes().sum(), 1.0)
    pts = rng.random((300, 2 * d))
    zone = z.zone_of(pts)
    assert ((z.zlo[zone] <= pts) & (pts < z.zhi[zone])).all()
    for a in range(n):
        for b in z.neighbours(a).tolist():
            assert a in z.neighbours(b)
    q = messages(d, 60, rng)
    src = rng.integers(0, n, len(q))
    routes = route(z, q, src)
    for j in range(len(q)):
        reached = routes.reached(j)
        assert len(set(reached.tolist())) == len(reached)
        assert np.array_equal(np.sort(reached), np.flatnonzero(z.meeting(q[j])))
        seen = {int(src[j])}
        hf, ht = routes.hops(j)
        for f, t in zip(hf.tolist(), ht.tolist(), strict=True):
            assert f in seen and t in z.neighbours(f)
            seen.add(t)


@pytest.mark.parametrize("d", [2, 3, 4])
def test_splits_cycle_through_l1_r1_to_ld_rd(d):
    kind = kind_of({"kind": "box", "dims": d})
    z = build_zones(400, seed=3, lower_open=kind.lower_open, ordered=kind.ordered)
    stack = [(0, 0)]
    while stack:
        node, depth = stack.pop()
        if z.node_dim[node] < 0:
            continue
        assert z.node_dim[node] == depth % (2 * d)
        stack += [(z.node_left[node], depth + 1), (z.node_right[node], depth + 1)]
    # the server's zone holds S's centre
    assert z.zone_of(np.full((1, 2 * d), 0.5))[0] == z.server_zone


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), d=st.integers(2, 4), n=st.integers(1, 40),
       m=st.integers(0, 300))  # fmt: skip
def test_gateways_deliver_exactly_the_subscriptions_inside(seed, d, n, m):
    rng = np.random.default_rng(seed)
    subs = space(d, m, rng)
    kind = kind_of({"kind": "box", "dims": d})
    z = build_zones(n, seed=rng, lower_open=kind.lower_open, ordered=kind.ordered)
    pts = np.stack(subs.points, axis=1) if m else np.zeros((0, 2 * d))
    gw = Gateways(pts, z.zone_of(pts), z.n_zones, z.lower_open)
    assert np.array_equal(np.sort(gw.ids), np.arange(m))
    q = messages(d, 40, rng)
    routes = route(z, q)
    offsets, pos = gw.deliver_positions(q, routes.reach_ptr, routes.reach_zone)
    for j in range(len(q)):
        got = np.sort(gw.ids[pos[offsets[j] : offsets[j + 1]]])
        assert np.array_equal(got, np.flatnonzero(reaches_np(q[j], pts))), j


def test_four_dimensional_boxes_pass_verify_over_meghdoot(tmp_path, monkeypatch):
    monkeypatch.setenv("CNSIM_CACHE", str(tmp_path / "worlds"))
    sc = cnsim.Scenario(
        seed=11,
        objects={"count": 24},
        subscriptions={"kind": "box", "dims": 4, "count": 400, "k": 2},
        events={"count": 10, "deletes": 0.1, "inserts": 0.1, "moves": 0.1},
        network={"ip_nodes": 200, "brokers": 25},
        overlay={"kind": "meghdoot"},
        algorithm={"approaches": ["paint-dense", "paint-sparse", "unicast", "cn-relax"]},
        run={"progress": False},
    )
    report = cnsim.verify(sc)
    assert report.ok, report.text()
    events = cnsim.run(sc).events
    dense = events[events.approach == "paint-dense"]
    assert (dense.server_out_bytes == 4 * (5 * 4 + 1) * dense.server_out_msgs).all()
    assert events[events.approach == "paint-sparse"].delivered_msgs.sum() > 0
