"""d-dimensional box subscriptions (seed 003 §IV-C) as ``cnsim run`` builds them: the
scenario keys and their one-line errors, the workload (d independent uniform
attributes, boxes of sorted uniform pairs, new ids' attributes), the initial lists
against the full-scan oracle, and the approaches of the box registry."""

import numpy as np
import pytest

import cnsim
from cnsim.algorithms.base import ServerView
from cnsim.algorithms.cn_relax import CNRelax
from cnsim.algorithms.paint_kinds import KindPaintDense, KindPaintSparse
from cnsim.algorithms.registry import make_approach
from cnsim.algorithms.unicast import Unicast
from cnsim.errors import ConfigError
from cnsim.simulations.oracle import true_top_k as true_top_k_boxes
from cnsim.simulations.seeds import Seeds
from cnsim.simulations.world import build_workload
from cnsim.subscriptions.lists import box_top_k
from cnsim.subscriptions.space_boxes import BoxSubscriptions


def scenario(**over):
    base = {
        "seed": 5,
        "objects": {"count": 40},
        "subscriptions": {"kind": "box", "dims": 2, "count": 200, "k": 2},
        "events": {"count": 10},
        "overlay": {"kind": "ideal"},
        "run": {"progress": False},
    }
    for section, values in over.items():
        base[section] = {**base.get(section, {}), **values} if isinstance(values, dict) else values
    return cnsim.Scenario(**base)


@pytest.mark.parametrize(
    ("over", "key", "words"),
    [
        ({"subscriptions": {"dims": None}}, "subscriptions.dims", "kind = 'box' needs"),
        ({"subscriptions": {"dims": 5}}, "subscriptions.dims", "5"),
        ({"subscriptions": {"dims": 0}}, "subscriptions.dims", "0"),
        ({"subscriptions": {"kind": "range"}}, "subscriptions.dims", "applies only to box"),
        (
            {"subscriptions": {"kind": "range", "dims": None}, "algorithm": {"box_budget": 10}},
            "algorithm.box_budget",
            "applies only to box",
        ),
        ({"algorithm": {"approaches": ["paint-dense(0.5)"]}}, "algorithm.approaches", "no box"),
        ({"algorithm": {"approaches": ["paint-batch"]}}, "algorithm.approaches", "no box"),
        ({"algorithm": {"approaches": ["unicast-lazy"]}}, "algorithm.approaches", "no box"),
        ({"algorithm": {"box_budget": 0}}, "algorithm.box_budget", "0"),
        ({"overlay": {"kind": "content-based"}}, "algorithm.approaches", "events published"),
        ({"objects": {"distribution": "clustered"}}, "objects.distribution", "independent"),
        ({"subscriptions": {"distribution": "clustered"}}, "subscriptions.distribution", "uniform"),
        ({"server": {"count": 2}}, "server.count", "must be 1"),
        ({"messages": {"box_bytes": 40}}, "messages.box_bytes", "1.5-d"),
        ({"messages": {"cn_bytes": 30}}, "messages.cn_bytes", "4(5d + 1)"),
        ({"subscriptions": {"dataset": "DS#2"}}, "subscriptions.dataset", "1.5-d"),
        ({"subscriptions": {"attributes": 3}}, "subscriptions.attributes", "is retired"),
        ({"subscriptions": {"churn": 0.2}}, "subscriptions.churn", "content-based"),
    ],
)
def test_bad_keys_are_refused_in_one_line_naming_the_key(over, key, words):
    with pytest.raises(ConfigError) as err:
        scenario(**over)
    text = str(err.value)
    assert "\n" not in text and key in text and words in text, text


def test_one_d_scenarios_record_no_box_keys():
    sc = cnsim.Scenario(seed=1, overlay={"kind": "ideal"})
    d = sc.as_dict()
    assert "dims" not in d["subscriptions"] and "box_budget" not in d["algorithm"]
    sc15 = cnsim.Scenario(subscriptions={"kind": "range-1.5d"}, overlay={"kind": "ideal"})
    d15 = sc15.as_dict()  # 1.5-d records are unchanged too
    assert "dims" not in d15["subscriptions"] and "box_budget" not in d15["algorithm"]
    assert d15["subscriptions"]["kind"] == "range-1.5d"
    d = scenario().as_dict()
    assert d["subscriptions"]["dims"] == 2 and d["subscriptions"]["kind"] == "box"
    assert d["algorithm"]["box_budget"] == 2_000_000
    # the 1.5-d keys, which box scenarios refuse, are not recorded for them either
    assert "dataset" not in d["subscriptions"] and "cover" not in d["subscriptions"]
    assert "box_bytes" not in d.get("messages", {})


def test_workload_attributes_and_boxes():
    sc = scenario(
        subscriptions={"dims": 3, "count": 500},
        events={"count": 60, "inserts": 0.2, "moves": 0.2, "deletes": 0.1},
    )
    w = build_workload(sc, Seeds(sc.seed))
    one_d = build_workload(cnsim.Scenario(seed=5, objects={"count": 40}), Seeds(5), 0)
    assert w.xd.shape[1] == 3 and w.l.shape == w.r.shape == (500, 3)
    assert (w.l <= w.r).all() and (w.l >= 0).all() and (w.r < 1).all()
    assert np.array_equal(w.xd[:40, 0], w.x) and np.array_equal(w.x, one_d.x)
    assert np.array_equal(w.y, one_d.y)
    # every id an event names has its attributes; a new id's x_1 is its event's x
    ev = w.events
    assert len(w.xd) == max(40, int(ev.obj.max()) + 1) > 40
    assert np.array_equal(w.xd[ev.obj, 0], ev.x)
    assert np.isfinite(w.xd).all() and (w.xd[:, 1:] < 1).all()
    # d = 2: x_2 is the 1.5-d run's x2 (the same stream), ranges of d = 1 the 1-d ones
    w15 = build_workload(scenario(subscriptions={"kind": "range-1.5d", "dims": None}), Seeds(5))
    w2 = build_workload(scenario(), Seeds(5))
    assert np.array_equal(w2.xd[:, 1], w15.x2[: len(w2.xd)])
    w1 = build_workload(scenario(subscriptions={"dims": 1}), Seeds(5))
    r1 = build_workload(scenario(subscriptions={"kind": "range", "dims": None}), Seeds(5))
    assert np.array_equal(w1.l[:, 0], r1.l) and np.array_equal(w1.r[:, 0], r1.r)


@pytest.mark.parametrize("d", [1, 2, 3])
def test_initial_lists_equal_the_full_scan_oracle(d):
    rng = np.random.default_rng(d)
    n, m = 150, 400
    x, y = rng.integers(0, 20, (n, d)) / 20, rng.random(n)
    y[rng.random(n) < 0.1] = np.inf
    y[:15] = 0.5  # ties in y, broken by id
    a, b = rng.random((m, d)), rng.random((m, d))
    l, r = np.minimum(a, b), np.maximum(a, b)
    for k in (1, 3, 7):
        got = box_top_k(x, y, l, r, k)
        want = true_top_k_boxes(x, y, l, r, k)
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


def _view(d, n=50, m=300, k=3, extra=5, budget=None):
    rng = np.random.default_rng(10 + d)
    xd, y = rng.random((n + extra, d)), rng.random(n)
    a, b = rng.random((m, d)), rng.random((m, d))
    subs = BoxSubscriptions(np.minimum(a, b), np.maximum(a, b))
    return ServerView(xd[:n, 0], y, subs, k, kind="box", attributes=xd, budget=budget), xd


@pytest.mark.parametrize("d", [1, 2, 3])
def test_registry_builds_the_box_classes_and_they_keep_lists_exact(d):
    view, xd = _view(d)
    built = {name: make_approach(name, view) for name in
             ("paint-dense", "paint-sparse", "unicast", "cn-relax")}  # fmt: skip
    kinds = (KindPaintDense, KindPaintSparse, Unicast, CNRelax)
    assert all(isinstance(a, c) for a, c in zip(built.values(), kinds, strict=True))
    assert built["cn-relax"].spec.entry == "publisher" and not built["cn-relax"].exact
    assert built["unicast"].spec.message == "targeted"
    with pytest.raises(ValueError, match="no box version"):
        make_approach("paint-sparse(0.5)", view)
    # an insert of id 52 (absent in the index), a delete, a rank-raising and a lowering
    from cnsim.subscriptions.workload import Updates

    y = np.full(len(xd), np.inf)
    y[:50] = view.y
    subs = view.subscriptions
    for obj, y_new in ((52, 0.01), (3, np.inf), (7, 0.001), (8, 0.99)):
        u = Updates(np.array([obj]), xd[[obj], 0], y[[obj]], np.array([y_new]))
        y[obj] = y_new
        want = true_top_k_boxes(xd, y, subs.l, subs.r, view.k)
        for name in ("paint-dense", "paint-sparse"):
            m = built[name].process(u)
            assert m.rects.shape[1] == 4 * d and np.array_equal(m.x, xd[m.obj, 0])
        u_lists = built["unicast"].lists
        built["unicast"].process(u)
        assert np.array_equal(u_lists.ids, want[0]) and np.array_equal(u_lists.ys, want[1])
        relax = built["cn-relax"].process(u)
        offsets, ids = subs.report(relax.rects)
        holds = np.flatnonzero(((subs.l <= xd[obj]) & (xd[obj] <= subs.r)).all(axis=1))
        assert np.array_equal(np.sort(ids), holds)


def test_budget_exceeded_stops_with_an_error_naming_the_key():
    view, xd = _view(2, budget=1)
    from cnsim.subscriptions.workload import Updates

    approach = make_approach("paint-dense", view)
    u = Updates(np.array([0]), xd[[0], 0], view.y[[0]], np.array([0.999]))  # lowering
    with pytest.raises(ConfigError, match=r"algorithm.box_budget = 1 is too small"):
        approach.process(u)
