"""The subscription kinds: each kind's two views of a subscription agree (its point of S
in the index, its box over the objects' attributes in the oracle), its initial lists
equal the one brute-force oracle, and what it declares is what the scenario's rules
and the approach registry enforce."""

import numpy as np
import pytest

import cnsim
from cnsim.algorithms.registry import APPROACHES, families, parse
from cnsim.errors import ConfigError
from cnsim.simulations.oracle import true_top_k
from cnsim.simulations.seeds import Seeds
from cnsim.simulations.world import build_workload
from cnsim.subscriptions.kinds import KINDS, kind_of

SECTIONS = {
    "range": {"kind": "range"},
    "range-1.5d": {"kind": "range-1.5d"},
    "box": {"kind": "box", "dims": 3},
}


def _workload(name: str, seed: int = 3):
    sc = cnsim.Scenario(
        seed=seed,
        objects={"count": 60},
        subscriptions={"count": 400, "k": 4, **SECTIONS[name]},
        events={"count": 30, "inserts": 0.1, "moves": 0.1},
        overlay={"kind": "ideal"},
    )
    return build_workload(sc, Seeds(sc.seed))


def test_the_catalog_names_every_kind_and_each_has_its_section():
    assert set(KINDS) == set(SECTIONS)
    assert all(KINDS[n].name == n for n in KINDS)


@pytest.mark.parametrize("name", sorted(SECTIONS))
def test_points_of_s_and_boxes_over_attributes_agree(name):
    w = _workload(name)
    kind = w.kind
    index = kind.index(w)
    points = np.stack(index.points, axis=1)
    assert points.shape == (len(w.l), kind.space_dims) == (len(w.l), len(kind.lower_open))
    for lower, upper in kind.ordered:  # the ordered pairs hold for every subscription
        assert (points[:, lower] <= points[:, upper]).all()
    lo, hi = kind.bounds(w)
    x = np.concatenate([w.x, np.full(len(w.events.obj), np.nan)])  # every id the run uses
    objects = kind.object_points(w, x)[: len(w.x)]
    # a subscription's box holds an object iff the region message reaching the object's
    # subscriptions (CN-Relax's) reaches it: both views select the same pairs
    for o in range(0, len(w.x), 7):
        held = ((lo <= objects[o]) & (objects[o] <= hi)).all(axis=1)
        reached = _reach(name, w, o, index)
        assert np.array_equal(np.flatnonzero(held), np.sort(reached))


def _reach(name, w, o, index):
    """The subscriptions CN-Relax's message for object o reaches, through the index."""
    from cnsim.algorithms.messages import reach

    x = np.concatenate([w.x, np.full(len(w.events.obj), np.nan)])
    rect = reach(w.kind.object_points(w, x)[[o]], index.lower_open)
    offsets, ids = index.report(rect)
    return ids[offsets[0] : offsets[1]]


@pytest.mark.parametrize("name", sorted(SECTIONS))
def test_initial_lists_equal_the_oracle_over_the_kinds_boxes(name):
    w = _workload(name)
    lists = w.kind.initial_lists(w, None, len(w.x) - 1)
    lo, hi = (np.ascontiguousarray(b, np.float64) for b in w.kind.bounds(w))
    x = np.concatenate([w.x, np.full(len(w.events.obj), np.nan)])  # every id the run uses
    points = np.ascontiguousarray(w.kind.object_points(w, x)[: len(w.x)])
    want_ids, want_ys = true_top_k(points, w.y, lo, hi, w.k)
    assert np.array_equal(lists.ids, want_ids) and np.array_equal(lists.ys, want_ys)


def test_every_kind_offers_the_paper_approaches_and_refuses_the_rest():
    for name in KINDS:
        assert {"paint-dense", "paint-sparse", "unicast", "cn-relax"} <= set(families(name))
        assert all(cls.family == f for (f, k), cls in APPROACHES.items() if k == name)
    assert parse("paint-sparse", "box").cls is APPROACHES[("paint-sparse", "box")]
    for name in ("range-1.5d", "box"):
        label = KINDS[name].label
        for written in ("paint-batch", "paint-dense(0.5)", "unicast-lazy", "ranked"):
            with pytest.raises(ValueError, match=f"no {label} version"):
                parse(written, name)
    with pytest.raises(ValueError, match="unknown approach"):
        parse("paint-dens", "box")


@pytest.mark.parametrize("name", sorted(KINDS))
def test_declared_keys_and_restrictions_are_enforced(name):
    kind = KINDS[name]
    base = {"subscriptions": dict(SECTIONS[name])}
    for r in kind.restrictions:  # a value outside what the kind allows is refused
        section, _, key = r.key.partition(".")
        bad = {"overlay.kind": "content-based", "overlay.split": "load", "events.trace":
               "x.csv", "server.count": 2, "messages.cn_bytes": 30}.get(r.key, "clustered")
        over = {**base, section: {**base.get(section, {}), key: bad}}
        if r.key == "overlay.kind":
            over["algorithm"] = {"approaches": ["cn-relax"]}
        with pytest.raises(ConfigError, match=r.key.replace(".", r"\.")):
            cnsim.Scenario(**over)
    for other in KINDS.values():  # another kind's own keys are refused
        if other is kind:
            continue
        for dotted in other.owns:
            section, _, key = dotted.partition(".")
            value = {"subscriptions.dims": 2, "subscriptions.dataset": "DS#2",
                     "subscriptions.cover": 5}.get(dotted, 7)  # fmt: skip
            over = {**base, section: {**base.get(section, {}), key: value}}
            with pytest.raises(ConfigError, match=f"applies only to {other.label}"):
                cnsim.Scenario(**over)


def test_kind_of_reads_the_section():
    assert kind_of({"kind": "box", "dims": 2}).space_dims == 4
    assert kind_of({"kind": "range-1.5d"}).space_dims == 3
    assert kind_of({"kind": "range"}).space_dims == 2


@pytest.mark.parametrize("name", ["range-1.5d", "box"])
def test_load_split_zones_deliver_as_the_ideal_cn(name):
    sc = cnsim.Scenario(
        seed=11,
        objects={"count": 80},
        subscriptions={"count": 800, "k": 3, **SECTIONS[name]},
        events={"count": 25, "inserts": 0.1, "deletes": 0.1},
        network={"ip_nodes": 200, "brokers": 30},
        overlay={"kind": "meghdoot", "split": "load"},
        algorithm={"approaches": ["paint-dense", "paint-sparse", "unicast", "cn-relax"]},
    )
    report = cnsim.verify(sc)
    assert report.ok, report.text()


def test_attributes_are_drawn_one_row_per_id_in_id_order():
    from cnsim.subscriptions.kinds.base import attributes
    from cnsim.subscriptions.workload import Events

    def events(obj, x):
        e = np.zeros(0, np.int64)
        return Events(e, e, np.array(obj), np.array(x), np.zeros(len(x)), np.zeros(len(x)))

    x = np.linspace(0.1, 0.5, 5)
    kept = attributes(np.random.default_rng(0), x, events([0, 4, 2], [0.0, 0.0, 0.0]), 2)
    assert np.array_equal(kept[:, 0], x)  # no new id: x, and one row of draws per object
    assert np.array_equal(kept[:, 1:], np.random.default_rng(0).random((5, 2)))
    grown = attributes(np.random.default_rng(0), x, events([1, 5, 6, 6], [0.9, 0.2, 0.3, 0.3]), 2)
    assert np.array_equal(grown[:, 0], [*x, 0.2, 0.3])  # a new id's x from its event
    assert np.array_equal(grown[:5], kept)  # the initial objects' rows are unchanged
