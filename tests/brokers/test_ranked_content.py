"""Ranked delivery over the content-based overlay: every event reaches exactly the
global top-k (ties by id), pruned and baseline, for scored boxes (d = 1..3, plain and
per-region bounds) and BE expressions, under subscribe/unsubscribe churn; the kept
per-neighbour bounds equal bounds recomputed from scratch after every change."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cnsim.brokers.batch_forwarding import EventRouter
from cnsim.brokers.ranked import COST_FIELDS
from cnsim.brokers.ranked_content import RankedTree
from cnsim.brokers.spanning import degree_bounded_tree, tree_of
from cnsim.errors import InputError

OPS = ("<", "<=", "=", "!=", ">=", ">", "in", "not in", "between")


def _tree(rng, n: int, degree: int = 3):
    lat = rng.random((n, n))
    lat = lat + lat.T
    tree = tree_of(degree_bounded_tree(lat, degree), n)
    hops = rng.integers(1, 8, (n, n))
    hops = hops + hops.T
    np.fill_diagonal(hops, 0)
    return tree, hops


def _boxes(rng, m: int, d: int, ties: bool):
    a, b = rng.random((m, d)), rng.random((m, d))
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    lo[: m // 10] = hi[: m // 10]  # zero-width boxes
    hi[m // 10 : m // 5] = 1.0  # touching the domain's edge
    score = rng.integers(0, 5, m).astype(float) if ties else rng.random(m)
    return lo, hi, score


def _check(net: RankedTree, events, entry, ks=(1, 3, 10)) -> None:
    for k in ks:
        got = {}
        for mode in ("pruned", "baseline"):
            d = net.deliver(events, k, entry, mode)
            for i, e in enumerate(events):
                np.testing.assert_array_equal(d.recipients(i), net.brute_top_k(e, k))
            assert set(d.cost) == set(COST_FIELDS)
            got[mode] = d
        # the search only opens links the routing tables open: it visits no broker
        # the flood does not reach
        p, b = got["pruned"], got["baseline"]
        for i in range(len(entry)):
            vp = set(p.visit_zone[p.visit_ptr[i] : p.visit_ptr[i + 1]].tolist())
            vb = set(b.visit_zone[b.visit_ptr[i] : b.visit_ptr[i + 1]].tolist())
            assert vp <= vb


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    d=st.integers(1, 3),
    regions=st.integers(1, 3),
    ties=st.booleans(),
)
def test_boxes_reach_the_global_top_k_under_churn(seed, d, regions, ties):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 14))
    tree, hops = _tree(rng, n)
    lo, hi, score = _boxes(rng, int(rng.integers(0, 120)), d, ties)
    home = rng.integers(0, n, len(score))
    net = RankedTree.boxes(tree, hops, home, lo, hi, score, regions=regions)
    net.check_bounds()
    events = rng.random((12, d))
    events[0] = 0.0
    events[1] = 1.0
    if len(lo):
        events[2] = lo[0]  # exactly on a corner
    entry = rng.integers(0, n, len(events))
    _check(net, events, entry)
    for _ in range(30):
        live = np.flatnonzero(net.alive())
        if len(live) and rng.random() < 0.5:
            net.delete(int(rng.choice(live)))
        else:
            a, b = rng.random(d), rng.random(d)
            s = float(rng.integers(0, 7)) if ties else float(rng.random())
            net.insert((np.minimum(a, b), np.maximum(a, b), s), int(rng.integers(n)))
        net.check_bounds()
    _check(net, events, entry)


def _predicate(rng, a: int) -> str:
    op = OPS[rng.integers(len(OPS))]
    v = int(rng.integers(0, 6))
    if op == "between":
        val = f"{v} and {v + int(rng.integers(0, 3))}"
    elif op in ("in", "not in"):
        val = "(" + ", ".join(str(int(t)) for t in rng.integers(0, 6, 2)) + ")"
    else:
        val = str(v)
    return f"a{a} {op} {val} : {int(rng.integers(0, 4))}"


def _expression(rng, n_attr: int, most: int) -> str:
    k = int(rng.integers(0, most + 1))
    attrs = sorted(rng.choice(n_attr, size=k, replace=False).tolist())
    return ", ".join(_predicate(rng, a) for a in attrs)


def _event(rng, n_attr: int) -> str:
    k = int(rng.integers(0, n_attr + 1))
    attrs = sorted(rng.choice(n_attr, size=k, replace=False).tolist())
    return ", ".join(f"a{a} = {int(rng.integers(0, 6))} : {int(rng.integers(0, 3))}" for a in attrs)


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000))
@pytest.mark.slow
def test_be_expressions_reach_the_global_top_k_under_churn(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 10))
    tree, hops = _tree(rng, n)
    subs = [_expression(rng, 5, 2) for _ in range(40)]
    subs[0] = ""  # the empty expression matches every event, with score 0
    net = RankedTree.expressions(tree, hops, rng.integers(0, n, len(subs)), subs)
    net.check_bounds()
    events = [_event(rng, 5) for _ in range(10)]
    entry = rng.integers(0, n, len(events))
    _check(net, events, entry, ks=(1, 4))
    for _ in range(15):
        live = np.flatnonzero(net.alive())
        if len(live) and rng.random() < 0.5:
            net.delete(int(rng.choice(live)))
        else:
            net.insert(_expression(rng, 5, 2), int(rng.integers(n)))
        net.check_bounds()
    _check(net, events, entry, ks=(1, 4))


def test_the_flood_takes_the_content_based_routes():
    rng = np.random.default_rng(5)
    tree, hops = _tree(rng, 25)
    lo, hi, score = _boxes(rng, 300, 2, False)
    home = rng.integers(0, 25, 300)
    net = RankedTree.boxes(tree, hops, home, lo, hi, score)
    router = EventRouter(tree, 2, home, domain=(0.0, 1.0))
    for i in range(300):
        router.subscribe(i, lo[i], hi[i])
    xs = rng.random((20, 2))
    entry = rng.integers(0, 25, 20)
    d = net.deliver(xs, 5, entry, "baseline")
    for i in range(20):
        subs, frm, to = router.publish(int(entry[i]), xs[i])
        reached = [int(entry[i]), *to.tolist()]
        assert d.visit_zone[d.visit_ptr[i] : d.visit_ptr[i + 1]].tolist() == reached
        assert d.cost["messages"][i] == len(frm) + len(to)  # queries and answers


def test_bounds_prune_and_finer_regions_prune_more():
    rng = np.random.default_rng(2)
    tree, hops = _tree(rng, 60, 4)
    lo, hi, score = _boxes(rng, 6000, 2, False)
    home = rng.integers(0, 60, len(score))
    xs = rng.random((30, 2))
    entry = rng.integers(0, 60, 30)
    visited = {}
    for regions in (1, 8):
        net = RankedTree.boxes(tree, hops, home, lo, hi, score, regions=regions)
        p = net.deliver(xs, 1, entry, "pruned").totals()
        b = net.deliver(xs, 1, entry, "baseline").totals()
        assert p["visited"] < b["visited"] and p["ip_bytes"] < b["ip_bytes"]
        visited[regions] = p["visited"]
    assert visited[8] <= visited[1]


def test_bound_messages_are_counted_along_the_reverse_paths():
    rng = np.random.default_rng(3)
    tree, hops = _tree(rng, 8, 2)  # degree 2: a path
    lo, hi = np.zeros((1, 1)), np.ones((1, 1))
    net = RankedTree.boxes(tree, hops, [0], lo, hi, [0.5])
    setup = net.setup_bound_traffic()
    assert setup["bound_msgs"] == 7  # every link pointing towards broker 0
    net.insert((np.zeros(1), np.ones(1), 0.2), 3)  # raises the bounds towards broker 3
    before = net.bound_msgs
    net.insert((np.zeros(1), np.ones(1), 0.1), 3)  # changes nothing
    assert net.bound_msgs == before
    net.insert((np.zeros(1), np.ones(1), 0.9), 5)  # the new maximum: every link towards 5
    assert net.bound_msgs - before == 7
    assert net.bound_ip_bytes > 0
    net.check_bounds()


def test_bad_input_is_rejected_with_the_key_and_what_is_allowed():
    rng = np.random.default_rng(4)
    tree, hops = _tree(rng, 4)
    lo, hi, score = _boxes(rng, 10, 2, False)
    home = rng.integers(0, 4, 10)
    with pytest.raises(InputError, match="regions = 0 is not allowed"):
        RankedTree.boxes(tree, hops, home, lo, hi, score, regions=0)
    with pytest.raises(InputError, match="d = 4 is not allowed"):
        RankedTree.boxes(tree, hops, home, np.zeros((10, 4)), np.ones((10, 4)), score)
    with pytest.raises(InputError, match="unknown ranked index"):
        RankedTree.boxes(tree, hops, home, lo, hi, score, index="nope")
    with pytest.raises(InputError, match="unknown for expressions"):
        RankedTree.expressions(tree, hops, [0], ["a1 = 1"], index="nope")
    with pytest.raises(InputError, match=r"attributes = 2 is not allowed; an integer in \[4, "):
        RankedTree.expressions(tree, hops, [0], ["a3 = 1"], attributes=2)
    be = RankedTree.expressions(tree, hops, [0], ["a3 = 1"], attributes=5)
    with pytest.raises(InputError, match="attribute 7 of a joining expression is beyond"):
        be.insert("a7 = 1", 1)
    assert len(be) == 1
    net = RankedTree.boxes(tree, hops, home, lo, hi, score)
    with pytest.raises(InputError, match="k = 0 is not allowed"):
        net.deliver(rng.random((2, 2)), 0, 0)
    with pytest.raises(InputError, match="mode = 'x' is unknown"):
        net.deliver(rng.random((2, 2)), 1, 0, "x")
    with pytest.raises(InputError, match="entry brokers must be in 0..3"):
        net.deliver(rng.random((2, 2)), 1, 7)
    with pytest.raises(InputError, match="home broker 9 is not in 0..3"):
        net.insert((np.zeros(2), np.ones(2), 1.0), 9)
    with pytest.raises(InputError, match="no live subscription with id 99"):
        net.delete(99)


# ---- ranked delivery in a run over the content-based overlay ---------------------------
def _scenario(**ranked):
    from cnsim.simulations.config import from_dict

    return from_dict(
        {
            "seed": 6,
            "objects": {"count": 80},
            "subscriptions": {"count": 800, "k": 3},
            "events": {"count": 30},
            "network": {"ip_nodes": 200, "brokers": 16},
            "overlay": {"kind": "content-based"},
            "algorithm": {"approaches": ["ranked", "cn-relax"]},
            "ranked": {"k": 4, **ranked},
            "run": {"progress": False},
        }
    )


@pytest.mark.parametrize(
    "ranked",
    [
        {"pruning": "threshold"},
        {"pruning": "flood", "scores": "length"},
        {"regions": 6, "commands": 20, "churn": 0.5},
    ],
)
def test_runs_over_content_based_verify_against_the_global_top_k(ranked):
    from cnsim.simulations.runner import run
    from cnsim.simulations.verify import verify

    report = verify(_scenario(**ranked))
    assert report.ok, report.text()
    events, summary = run(_scenario(**ranked))
    delivered = events.query("approach == 'ranked'")["delivered_msgs"]
    assert delivered.max() == 4 and (delivered <= 4).all()
    part = summary["approaches"]["ranked"]
    assert 0 < part["pruning_ratio_zones"] <= 1
    assert part["bound_msgs"] > 0


@pytest.mark.parametrize("pruning", ["threshold", "flood"])
def test_timed_and_counting_runs_agree_on_every_count(pruning):
    from cnsim.simulations.config import from_dict
    from cnsim.simulations.runner import run

    base = _scenario(pruning=pruning).as_dict()
    counting, _ = run(from_dict(base))
    timed, _ = run(from_dict({**base, "run": {**base["run"], "mode": "timed"}}))
    for col in counting.columns:
        if col in timed.columns and counting[col].dtype.kind in "iu":
            assert counting[col].tolist() == timed[col].tolist(), col
    ranked = timed.query("approach == 'ranked'")[["latency_first_s", "latency_last_s"]]
    ranked = ranked.dropna()  # events that reached nobody have no latency
    assert len(ranked) and (ranked["latency_last_s"] >= ranked["latency_first_s"]).all()
    assert ranked["latency_last_s"].min() > 0


def test_verify_reports_a_wrong_recipient(monkeypatch):
    from cnsim.simulations.verify import verify

    real = RankedTree.deliver

    def wrong(self, events, k, entry, mode="pruned"):
        d = real(self, events, k, entry, mode)
        d.ids[:1] = d.ids[:1] + 1  # the first event's best recipient is replaced
        return d

    monkeypatch.setattr(RankedTree, "deliver", wrong)
    report = verify(_scenario())
    assert not report.ok and "ranked-top-k" in report.text()


def test_bad_ranked_keys_are_rejected_before_any_work():
    from cnsim.errors import ConfigError
    from cnsim.simulations.config import from_dict

    with pytest.raises(
        ConfigError, match=r"ranked.regions = 0 is out of range; allowed: an integer 1 .. 64"
    ):
        _scenario(regions=0)
    with pytest.raises(ConfigError, match="ranked.regions = 4 applies to the content-based"):
        from_dict({"algorithm": {"approaches": ["ranked"]}, "ranked": {"regions": 4}})
