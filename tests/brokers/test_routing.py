"""Routing reaches exactly the zones meeting a rectangle, each once, over neighbour hops."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from zone_oracle import meeting_zones, zone_meets

from cnsim.brokers.routing import route as route_boxes
from cnsim.brokers.zones import build_zones
from cnsim.errors import InputError


def route(zones, lO, lI, rI, rO, src=None):
    """Route rectangles given as four bound arrays (or scalars)."""
    bounds = (np.atleast_1d(np.asarray(b, np.float64)) for b in (lO, lI, rI, rO))
    bounds = np.broadcast_arrays(*bounds)
    return route_boxes(zones, np.column_stack(bounds), src)


def _zones(n: int, mode: str, seed: int):
    rng = np.random.default_rng(seed)
    pts = rng.random((300, 2)) ** 2
    return build_zones(n, mode, seed=seed, points=(pts.min(axis=1), pts.max(axis=1)))


def _values(zones, rng: np.random.Generator) -> np.ndarray:
    """Rectangle bounds: zone edges, box edges, infinities and random values."""
    edges = np.concatenate([zones.zlo[:, 0], zones.zhi[:, 0], zones.zlo[:, 1], zones.zhi[:, 1]])
    extra = [-np.inf, np.inf, -0.5, 1.5, zones.lo, zones.hi, 0.5]
    return np.unique(np.concatenate([edges, extra, rng.random(10)]))


def _check_message(zones, routes, m: int, rect, src: int) -> None:
    expected = meeting_zones(zones, rect)
    reached = routes.reached(m).tolist()
    assert len(reached) == len(set(reached))  # no zone reached twice
    assert set(reached) == expected
    hop_from, hop_to = routes.hops(m)
    if not expected:
        assert len(hop_from) == 0
        return
    entered = {src}
    for a, b in zip(hop_from.tolist(), hop_to.tolist(), strict=True):
        assert a in entered  # causal order
        assert b in zones.neighbours(a)
        entered.add(b)
    g = int(routes.greedy_hops[m])
    first = reached[0]
    assert zone_meets(zones, first, rect)
    if g == 0:
        assert first == src
    else:
        assert hop_from[0] == src and hop_to[g - 1] == first
        assert not any(zone_meets(zones, z, rect) for z in [src, *hop_to[: g - 1].tolist()])
    # propagation: one hop into every reached zone but the first
    assert sorted(hop_to[g:].tolist()) == sorted(reached[1:])


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 60),
    st.sampled_from(["random", "load"]),
    st.integers(0, 10**6),
    st.lists(st.tuples(*[st.integers(0, 10**6)] * 5), min_size=1, max_size=25),
)
def test_routing_reaches_exactly_the_meeting_zones(n, mode, seed, picks) -> None:
    zones = _zones(n, mode, seed)
    vals = _values(zones, np.random.default_rng(seed))
    rects = np.array([[vals[p % len(vals)] for p in pick[:4]] for pick in picks])
    src = np.array([pick[4] % n for pick in picks])
    routes = route(zones, rects[:, 0], rects[:, 1], rects[:, 2], rects[:, 3], src)
    assert routes.n_messages == len(picks)
    for m in range(len(picks)):
        _check_message(zones, routes, m, tuple(rects[m]), int(src[m]))


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 80), st.integers(0, 10**6))
def test_paint_like_rectangles_from_the_server(n, seed) -> None:
    """Rectangles of the valid half lO < lI <= rI < rO, the shape the algorithms send."""
    zones = _zones(n, "random", seed)
    rng = np.random.default_rng(seed)
    x = np.sort(rng.random((30, 4)), axis=1)
    lO = np.where(rng.random(30) < 0.2, -np.inf, x[:, 0])
    rO = np.where(rng.random(30) < 0.2, np.inf, x[:, 3])
    routes = route(zones, lO, x[:, 1], x[:, 2], rO)
    for m in range(30):
        _check_message(zones, routes, m, (lO[m], x[m, 1], x[m, 2], rO[m]), zones.server_zone)


def test_large_batch_grows_buffers_and_matches_single_routes() -> None:
    zones = build_zones(300, "random", seed=9)
    x = np.random.default_rng(2).random(200)
    batch = route(zones, -np.inf, x, x, np.inf)  # CN-Relax messages reach many zones
    assert batch.reach_counts().sum() > 4 * 200 + 3 * 300  # more than the initial room
    for m in (0, 57, 199):
        one = route(zones, -np.inf, x[m], x[m], np.inf)
        assert np.array_equal(one.reached(0), batch.reached(m))
        assert np.array_equal(one.hops(0)[1], batch.hops(m)[1])
        assert set(batch.reached(m).tolist()) == meeting_zones(zones, (-np.inf, x[m], x[m], np.inf))
    assert len(batch.message_of_hop()) == batch.hop_counts().sum()


def test_empty_and_outside_rectangles_route_nowhere() -> None:
    zones = build_zones(20, "random", seed=1)
    routes = route(
        zones,
        [0.5, 0.2, 2.0, -1.0],
        [0.5, 0.3, 3.0, -0.5],
        [0.1, 0.7, 0.1, 0.1],
        [0.9, 0.7, 0.9, 0.9],
    )
    assert routes.hop_counts().tolist() == [0, 0, 0, 0]
    assert routes.reach_counts().tolist() == [0, 0, 0, 0]
    empty = route(zones, np.empty(0), np.empty(0), np.empty(0), np.empty(0))
    assert empty.n_messages == 0 and len(empty.hop_from) == 0


def test_top_edge_subscriptions_are_reached() -> None:
    """r == hi belongs to the top zones, so [hi, inf) must reach them."""
    zones = build_zones(30, "random", seed=4)
    routes = route(zones, -np.inf, 0.3, 1.0, np.inf)
    top = zones.zone_of((np.array([0.3]), np.array([1.0])))[0]
    assert top in routes.reached(0)


def test_bad_input() -> None:
    zones = build_zones(5, "random", seed=1)
    with pytest.raises(InputError, match="NaN"):
        route(zones, np.nan, 0.5, 0.5, 1.0)
    with pytest.raises(InputError, match="source zones"):
        route(zones, 0.0, 0.5, 0.5, 1.0, src=5)


def test_zone_touching_an_open_side_falls_back_to_search() -> None:
    """Zone 0 = [0, .5) x S touches (.5, .7] at distance 0 without meeting it."""
    zones = build_zones(2, "load")
    assert zones.zhi[:, 0][0] == 0.5
    routes = route(zones, 0.5, 0.7, 0.0, 1.0, src=0)
    assert routes.hops(0)[0].tolist() == [0] and routes.hops(0)[1].tolist() == [1]
    assert routes.greedy_hops.tolist() == [1] and routes.reached(0).tolist() == [1]
