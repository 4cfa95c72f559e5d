"""Ranked delivery over Meghdoot zones: every event reaches exactly the global top-k
(ties by id), with threshold pruning and with the baseline, under joins and leaves."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cnsim.brokers.ranked import BOUND_BYTES, COST_FIELDS, RankedZones
from cnsim.brokers.routing import route
from cnsim.brokers.zones import build_zones
from cnsim.errors import InputError

KS = (1, 3, 10)


def _subs(rng: np.random.Generator, n: int, ties: bool):
    a, b = rng.random(n), rng.random(n)
    l, r = np.minimum(a, b), np.maximum(a, b)
    # some zero-length ranges and ranges touching the box's edges
    l[: n // 20] = r[: n // 20]
    l[n // 20 : n // 10] = 0.0
    r[n // 10 : n // 7] = 1.0
    score = rng.integers(0, 8, n).astype(float) if ties else rng.random(n)
    return l, r, score


def _network(seed: int, n: int, n_zones: int, ties: bool, index: str = "scored_rtree"):
    rng = np.random.default_rng(seed)
    l, r, score = _subs(rng, n, ties)
    mode = "load" if seed % 2 else "random"
    zones = build_zones(n_zones, mode, seed, points=(l, r))
    hops = rng.integers(1, 8, (n_zones, n_zones))
    hops = hops + hops.T
    np.fill_diagonal(hops, 0)
    return RankedZones(zones, hops, l, r, score, index=index), rng


def _events(rng: np.random.Generator, net: RankedZones, count: int):
    xs = rng.random(count)
    xs[:3] = (0.0, 1.0, 0.5)  # the box's edges and the split line of the first join
    l = net.columns()[0]
    xs[3:6] = l[:3]  # exactly on an endpoint
    return xs, rng.integers(0, net.zones.n_zones, count)


def _check(net: RankedZones, xs, entry, k: int) -> dict:
    out = {}
    for mode in ("pruned", "baseline"):
        d = net.deliver(xs, k, entry, mode)
        for i, x in enumerate(xs):
            np.testing.assert_array_equal(d.recipients(i), net.brute_top_k(x, k))
        out[mode] = d
    assert (out["pruned"].cost["visited"] <= out["baseline"].cost["visited"]).all()
    return out


def _check_bounds(net: RankedZones) -> None:
    l, r, s, alive = net.columns()
    zone = net.zones.zone_of((l, r))
    expect = np.full(net.zones.n_zones, -np.inf)
    np.maximum.at(expect, zone[alive], s[alive])
    np.testing.assert_array_equal(net.bound, expect)


@pytest.mark.parametrize("k", KS)
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_recipients_are_global_top_k(k, ties, seed):
    net, rng = _network(seed, 3000, 25, ties)
    xs, entry = _events(rng, net, 150)
    _check(net, xs, entry, k)
    _check_bounds(net)


@pytest.mark.parametrize("index", ["scan", "sopt_rtree", "interval_forest", "st_psa"])
@pytest.mark.slow
def test_any_catalog_index(index):
    net, rng = _network(3, 1500, 12, True, index=index)
    xs, entry = _events(rng, net, 60)
    for k in KS:
        _check(net, xs, entry, k)


def test_pruning_visits_fewer_zones_at_scale():
    net, rng = _network(4, 40_000, 40, False)
    xs, entry = _events(rng, net, 100)
    d = _check(net, xs, entry, 1)
    assert d["pruned"].totals()["visited"] < 0.5 * d["baseline"].totals()["visited"]


def test_costs_are_consistent():
    net, rng = _network(5, 2000, 16, False)
    xs, entry = _events(rng, net, 80)
    d = _check(net, xs, entry, 3)
    for dl in d.values():
        assert set(dl.cost) == set(COST_FIELDS)
        c = dl.cost
        assert (c["messages"] == c["overlay_hops"]).all()
        assert (c["ip_hops"] >= c["overlay_hops"]).all()  # every hop here is >= 1 IP hop
        assert (c["overlay_bytes"] > 0).any() and (c["ip_bytes"] >= c["overlay_bytes"]).all()
    # an answer carries at most k entries, a pruned one only what beats the threshold
    assert (d["pruned"].cost["entries"] <= 3 * d["pruned"].cost["visited"]).all()


def test_event_in_own_zone_costs_no_message():
    net, _ = _network(6, 500, 1, False)  # one zone: every visit is local
    d = net.deliver([0.2, 0.7], 3, 0, "pruned")
    assert d.totals()["messages"] == 0 and d.totals()["visited"] == 2


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("seed", [10, 11])
def test_joins_and_leaves(ties, seed):
    net, rng = _network(seed, 800, 20, ties)
    for _ in range(6):
        for _ in range(60):
            live = np.flatnonzero(net.columns()[3])
            if len(live) and rng.random() < 0.5:
                # delete the zone maxima often: their bounds must be recomputed
                l, r, s, _alive = net.columns()
                top = live[s[live] == s[live].max()] if rng.random() < 0.3 else live
                net.delete(int(rng.choice(top)))
            else:
                a, b = sorted(rng.random(2))
                score = float(rng.integers(0, 8)) if ties else float(rng.random())
                i = net.insert(a, b, score)
                assert i == len(net.columns()[0]) - 1
        _check_bounds(net)
        xs, entry = _events(rng, net, 40)
        for k in KS:
            _check(net, xs, entry, k)


def test_delete_everything_then_rejoin():
    net, rng = _network(12, 200, 8, True)
    for i in range(200):
        net.delete(i)
    assert len(net) == 0 and np.isneginf(net.bound).all()
    d = net.deliver([0.5], 3, 0)
    assert len(d.ids) == 0 and d.totals()["visited"] == 0
    j = net.insert(0.4, 0.6, 2.0)
    assert net.deliver([0.5], 3, 0).ids.tolist() == [j]
    _check_bounds(net)


@settings(max_examples=60, deadline=None)
@given(
    subs=st.lists(
        st.tuples(
            st.integers(0, 8), st.integers(0, 8), st.integers(0, 3)
        ),  # endpoints on a grid, few scores: many ties
        min_size=0,
        max_size=40,
    ),
    n_zones=st.integers(1, 9),
    xs=st.lists(st.integers(-1, 9), min_size=1, max_size=8),
    k=st.sampled_from(KS),
    deletes=st.lists(st.integers(0, 39), max_size=10),
)
def test_property_against_brute_force(subs, n_zones, xs, k, deletes):
    l = np.array([min(a, b) / 8 for a, b, _ in subs], float)
    r = np.array([max(a, b) / 8 for a, b, _ in subs], float)
    s = np.array([c for *_, c in subs], float)
    zones = build_zones(n_zones, "random", 0)
    hops = np.ones((n_zones, n_zones), np.int64) - np.eye(n_zones, dtype=np.int64)
    net = RankedZones(zones, hops, l, r, s)
    for i in set(deletes):
        if i < len(subs):
            net.delete(i)
    pts = np.array(xs, float) / 8
    _check(net, pts, 0, k)
    _check_bounds(net)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda n: n.deliver([0.5], 0, 0), "k = 0"),
        (lambda n: n.deliver([0.5], 2.5, 0), "k = 2.5"),
        (lambda n: n.deliver([0.5], True, 0), "k = True"),
        (lambda n: n.deliver([0.5], 1, 0, "flood"), "mode = 'flood'"),
        (lambda n: n.deliver([np.nan], 1, 0), "NaN"),
        (lambda n: n.deliver([0.5], 1, 99), "entry zones"),
        (lambda n: n.delete(10_000), "no live subscription with id 10000"),
        (lambda n: n.insert(0.7, 0.2, 1.0), "l > r"),
        (lambda n: n.insert(0.2, 1.5, 1.0), "outside S"),
    ],
)
def test_bad_input(call, match):
    net, _ = _network(0, 100, 4, False)
    with pytest.raises(InputError, match=match):
        call(net)


def test_bad_index():
    zones = build_zones(2, "random", 0)
    hops = np.zeros((2, 2), np.int64)
    with pytest.raises(InputError, match="index = 'kd_tree' is unknown; one of"):
        RankedZones(zones, hops, [0.1], [0.2], [1.0], index="kd_tree")
    with pytest.raises(InputError, match="b=1"):
        RankedZones(zones, hops, [0.1], [0.2], [1.0], index="scored_rtree", b=1)


def _broadcast_oracle(net: RankedZones, z: int) -> tuple[int, int]:
    """Messages and IP hops of a bound broadcast from zone ``z``, checked to be a
    spanning tree of CAN neighbour links rooted at ``z``."""
    inf = np.inf
    routes = route(net.zones, np.column_stack([-inf, inf, -inf, inf]), z)
    frm, to = routes.hops(0)
    reached = {z}
    for a, b in zip(frm.tolist(), to.tolist(), strict=True):
        assert a in reached and b not in reached  # each broker hears it once, from one
        assert b in net.zones.neighbours(a).tolist()  # along a neighbour link
        reached.add(b)
    assert reached == set(range(net.zones.n_zones))
    owner = net.zones.owner
    return len(frm), int(net.broker_hops[owner[frm], owner[to]].sum())


@pytest.mark.parametrize("seed", [20, 21])
def test_bound_propagation_traffic(seed):
    net, rng = _network(seed, 600, 15, True)
    oracle = [_broadcast_oracle(net, z) for z in range(net.zones.n_zones)]
    assert all(m == net.zones.n_zones - 1 for m, _ in oracle)
    setup = net.setup_bound_traffic()
    held = np.isfinite(net.bound)
    msgs, ips = np.array(oracle).T
    assert setup["bound_msgs"] == msgs[held].sum()
    assert setup["bound_ip_bytes"] == BOUND_BYTES * ips[held].sum()
    for _ in range(300):
        before = (net.bound.copy(), net.bound_changes, net.bound_msgs, net.bound_ip_hops)
        live = np.flatnonzero(net.columns()[3])
        if rng.random() < 0.5 and len(live):
            s = net.columns()[2]
            top = live[s[live] == s[live].max()] if rng.random() < 0.3 else live
            net.delete(int(rng.choice(top)))  # a zone maximum often: its bound drops
        else:
            a, b = sorted(rng.random(2))
            net.insert(a, b, float(rng.integers(0, 12)))  # above 7: a bound rises
        changed = np.flatnonzero(net.bound != before[0])
        assert len(changed) <= 1 and net.bound_changes - before[1] == len(changed)
        msgs = sum(oracle[z][0] for z in changed)
        ips = sum(oracle[z][1] for z in changed)
        assert net.bound_msgs - before[2] == msgs and net.bound_ip_hops - before[3] == ips
    assert net.bound_changes > 0
    assert net.bound_ip_bytes == BOUND_BYTES * net.bound_ip_hops
