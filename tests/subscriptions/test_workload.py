"""Workload generators: seeded, in the domain, shaped as seed 003 §V describes."""

import numpy as np
import pytest

from cnsim.subscriptions.workload import (
    SUBSCRIPTION_DISTRIBUTIONS,
    W,
    generate_events,
    generate_objects,
    generate_subscriptions,
    object_cluster_centres,
)


def rng(seed=0):
    return np.random.default_rng(seed)


@pytest.mark.parametrize("dist", ["uniform", "clustered"])
def test_objects_in_domain_and_seeded(dist):
    x, y = generate_objects(rng(), 5000, dist)
    assert ((x >= 0) & (x < 1) & (y >= 0) & (y < 1)).all()
    x2, _ = generate_objects(rng(), 5000, dist)
    assert np.array_equal(x, x2)
    if dist == "clustered":
        # Every object is near one of the 10 centres (sd w/8), 10% per cluster.
        nearest = np.abs(x[:, None] - object_cluster_centres()[None, :]).argmin(axis=1)
        assert np.abs(x - object_cluster_centres()[nearest]).max() < W / 2
        assert np.bincount(nearest, minlength=10).min() >= 450


@pytest.mark.parametrize("dist", SUBSCRIPTION_DISTRIBUTIONS)
def test_subscriptions_are_ranges_in_domain(dist):
    l, r = generate_subscriptions(rng(1), 4000, dist, spread=0.1)
    assert len(l) == 4000
    assert ((l >= 0) & (l <= r) & (r <= 1)).all()


def test_anti_correlated_centres_fall_between_object_clusters():
    l, r = generate_subscriptions(rng(2), 4000, "anti-correlated")
    mid = (l + r) / 2
    distance = np.abs(mid[:, None] - object_cluster_centres()[None, :]).min(axis=1)
    assert np.median(distance) > W / 4


def replay(x0, y0, ev):
    """Apply the updates in order, checking each starts from the object's state."""
    x = dict(enumerate(x0.tolist()))
    y = dict(enumerate(y0.tolist()))
    for o, xo, old, new in ev.updates(0, len(ev)):
        assert y.get(o, np.inf) == old
        assert x.setdefault(o, xo) == xo  # an id never changes its x
        y[o] = new
    return x, y


def test_events_move_y_to_the_chosen_side_and_chain():
    x0, y0 = rng(3).random(50), rng(3).random(50)
    ev = generate_events(rng(4), y0, 2000, x=x0)
    assert len(ev.obj) == len(ev) == 2000  # one update per y-update event
    assert ((ev.y_new >= 0) & (ev.y_new < 1)).all()
    raised = ev.y_new > ev.y_old
    assert 0.4 < raised.mean() < 0.6
    assert set(ev.kinds()) == {"raise", "lower"}
    replay(x0, y0, ev)


def test_volatile_changes_are_small():
    y0 = rng(5).random(100)
    ev = generate_events(rng(6), y0, 3000, "volatile", volatility=0.5)
    assert np.median(np.abs(ev.y_new - ev.y_old)) < 0.1


def test_mixes_of_inserts_deletes_and_moves():
    x0, y0 = rng(8).random(40), rng(8).random(40)
    ev = generate_events(rng(9), y0, 4000, mix=(0.2, 0.2, 0.2), x=x0)
    kinds = ev.kinds()
    for kind in ("insert", "delete", "move"):
        assert 600 < (kinds == kind).sum() < 1000
    per_event = np.diff(ev.start)
    assert (per_event[kinds == "move"] == 2).all()  # delete at the old x, insert at the new
    assert (per_event[kinds != "move"] == 1).all()
    inserted = ev.obj[np.isinf(ev.y_old)]
    assert np.array_equal(inserted, np.arange(40, 40 + len(inserted)))  # fresh ids in order
    replay(x0, y0, ev)


def test_inserted_objects_of_a_clustered_workload_use_every_cluster_throughout():
    x0, y0 = rng(10).random(50), rng(10).random(50)
    ev = generate_events(rng(11), y0, 2000, mix=(0.5, 0.0, 0.0), x=x0, distribution="clustered")
    inserted = ev.x[np.isinf(ev.y_old)]
    nearest = np.abs(inserted[:, None] - object_cluster_centres()[None, :]).argmin(axis=1)
    half = len(nearest) // 2
    assert len(set(nearest[:half])) == len(set(nearest[half:])) == 10
