"""``notified_subs``: the subscriptions a batch's messages reach, each once. For an exact
approach these are the subscriptions whose list changes — the same for every exact
approach, whatever messages it sends (seed 003's Table I read per subscription)."""

import numpy as np
import pytest

import cnsim
from cnsim.brokers.base import Delivery
from cnsim.simulations.metrics import CATALOG
from cnsim.simulations.runner import Simulation

NOTIFIED = CATALOG["notified_subs"]
EXACT = ["paint-dense", "paint-sparse", "unicast"]


@pytest.fixture(autouse=True)
def cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("CNSIM_CACHE", str(tmp_path_factory.getbasetemp() / "worlds"))


def scenario(kind: str, overlay: str) -> cnsim.Scenario:
    subscriptions = {"kind": kind, "count": 1500, "k": 3}
    if kind == "box":
        subscriptions["dims"] = 2
    return cnsim.Scenario(
        seed=11,
        objects={"count": 120},
        subscriptions=subscriptions,
        events={"count": 80, "deletes": 0.1, "inserts": 0.1, "moves": 0.1},
        network={"ip_nodes": 300, "brokers": 30},
        overlay={"kind": overlay},
        # (the approximate approaches have no 1.5-d or box version)
        algorithm={"approaches": [*EXACT, "cn-relax", *(["paint-dense(0.5)"] * (kind == "range"))]},
        run={"progress": False},
    )


@pytest.mark.parametrize(
    "kind, overlay", [("range", "ideal"), ("range", "meghdoot"), ("range-1.5d", "ideal"),
                      ("box", "meghdoot")],
)  # fmt: skip
def test_exact_approaches_notify_the_subscriptions_whose_list_changes(kind, overlay):
    sim = Simulation(scenario(kind, overlay))
    lists = sim.lists["paint-dense"]  # exact after every event (the verify tests)
    before_ids, before_ys = lists.ids.copy(), lists.ys.copy()
    for _, outcomes in sim.steps():  # a step is yielded once its lists are applied
        notified = {name: NOTIFIED.collect(o) for name, o in outcomes.items()}
        changed = int(((lists.ids != before_ids) | (lists.ys != before_ys)).any(axis=1).sum())
        before_ids, before_ys = lists.ids.copy(), lists.ys.copy()
        for name in EXACT:
            assert notified[name] == changed, name
        for name, o in outcomes.items():  # at most one per message received, at least one
            assert (len(o.delivery) > 0) <= notified[name] <= len(o.delivery), name


def test_notified_counts_each_subscription_once():
    offsets = np.array([0, 3, 5, 6])
    subs = np.array([4, 9, 2, 9, 4, 7])
    d = Delivery(offsets, subs, np.zeros(6, np.int64), np.zeros(6))
    assert d.notified() == 4
    assert d.notified() == 4  # the marks are clear again
    one = Delivery(np.array([0, 3]), np.array([5, 1, 8]), np.zeros(3, np.int64), np.zeros(3))
    assert one.notified() == 3
    none = Delivery(np.array([0, 0, 0]), np.zeros(0, np.int64), np.zeros(0, np.int64),
                    np.zeros(0))  # fmt: skip
    assert none.notified() == 0
