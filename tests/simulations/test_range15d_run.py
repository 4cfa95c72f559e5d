"""1.5-d range subscriptions (seed 003 appendix D) inside ``cnsim run`` and ``cnsim
verify``: the scenario keys and their errors, every approach checked against the
brute-force oracle over the ideal CN and the 3-d Meghdoot overlay, determinism, and
1-d scenarios recorded as before."""

import numpy as np
import pytest

import cnsim
from cnsim.errors import ConfigError
from cnsim.simulations.oracle import true_top_k
from cnsim.simulations.runner import Simulation
from cnsim.subscriptions.kinds.range15d import attribute_boxes, attribute_points, draw_ranges
from cnsim.subscriptions.lists import box_top_k

APPROACHES = ["paint-dense", "paint-sparse", "unicast", "cn-relax"]


@pytest.fixture(autouse=True)
def cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("CNSIM_CACHE", str(tmp_path_factory.getbasetemp() / "worlds"))


def scenario(**over):
    base = {
        "seed": 5,
        "objects": {"count": 120},
        "subscriptions": {"kind": "range-1.5d", "count": 900, "k": 3},
        "events": {"count": 80, "deletes": 0.05},
        "network": {"ip_nodes": 300, "brokers": 30},
        "overlay": {"kind": "ideal"},
        "algorithm": {"approaches": APPROACHES},
        "run": {"progress": False},
    }
    for section, values in over.items():
        base[section] = {**base.get(section, {}), **values} if isinstance(values, dict) else values
    return cnsim.Scenario(**base)


@pytest.mark.parametrize(
    "over",
    [
        {},
        {"subscriptions": {"dataset": "DS#2", "cover": 25, "k": 1}},
        {"subscriptions": {"dataset": "DS#3", "cover": 6, "k": 5}, "events": {"batch_size": 4}},
        {"overlay": {"kind": "meghdoot"}},
        {"overlay": {"kind": "meghdoot"}, "subscriptions": {"dataset": "DS#2", "cover": 20}},
        {"objects": {"distribution": "clustered"}, "events": {"update": "redraw"}},
    ],
)
def test_every_approach_passes_verify(over):
    report = cnsim.verify(scenario(**over))
    assert report.ok, report.text()
    assert report.approaches == APPROACHES


def test_verify_catches_a_wrong_list():
    sc = scenario()
    sim = Simulation(sc)
    # the oracle is not the lists' own code: corrupt one list and the check fails
    from cnsim.simulations import verify as v

    report = v.Report(approaches=["paint-dense"])
    truth = v.Truth(sim.workload)
    after = truth.top_k()
    sim.lists["paint-dense"].row_ys[0, 0] += 1.0
    st = v.BatchState(0, sim.workload.events.updates(0, 0), truth.y, after, after, truth)
    v._check_lists(report, sim, "paint-dense", st)
    assert report.failures[("paint-dense", "lists")] == 1


def test_initial_lists_equal_the_full_scan_oracle():
    rng = np.random.default_rng(1)
    n, m = 200, 700
    x1, x2, y = rng.random(n), rng.random(n), rng.random(n)
    y[rng.random(n) < 0.1] = np.inf
    y[:20] = 0.5  # ties in y, broken by id
    for dataset in ("DS#1", "DS#2", "DS#3"):
        l, r, v = draw_ranges(rng, m, dataset, x1, cover=15)
        assert (l <= r).all()
        points, (lo, hi) = attribute_points(x1, x2), attribute_boxes(l, r, v)
        for k in (1, 4, 9):
            got = box_top_k(points, y, lo, hi, k)
            want = true_top_k(points, y, lo, hi, k)
            assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


def test_runs_are_deterministic_and_sparse_beats_dense():
    sc = scenario(overlay={"kind": "meghdoot"})
    a, b = cnsim.run(sc), cnsim.run(sc)
    wall = [c for c in a.events.columns if c.endswith("_time_s")]
    assert a.events.drop(columns=wall).equals(b.events.drop(columns=wall))
    s = a.summary["approaches"]
    assert s["paint-sparse"]["total_delivered_msgs"] == s["paint-dense"]["total_delivered_msgs"]
    assert s["paint-sparse"]["mean_server_out_msgs"] < s["paint-dense"]["mean_server_out_msgs"]
    # a 1.5-d CN message is a 3-d box and (x1, x2, y): nine 4-byte values
    dense = s["paint-dense"]
    assert dense["mean_server_out_bytes"] == pytest.approx(36 * dense["mean_server_out_msgs"])
    assert a.summary["scenario"]["subscriptions"]["kind"] == "range-1.5d"
    held = a.brokers.subscriptions_held.groupby(a.brokers.approach).sum()
    assert (held == 900).all()


def test_objects_x1_and_y_and_events_are_those_of_the_1d_run():
    one = Simulation(
        scenario(subscriptions={"kind": "range"}, algorithm={"approaches": ["paint-dense"]})
    )
    both = Simulation(scenario())
    w1, w15 = one.workload, both.workload
    assert np.array_equal(w1.x, w15.x) and np.array_equal(w1.y, w15.y)
    assert np.array_equal(w1.events.obj, w15.events.obj)
    assert w1.x2 is None and w15.x2 is not None and w15.v is not None


def test_1d_scenarios_leave_the_new_keys_out_of_their_records():
    sc = cnsim.Scenario(subscriptions={"count": 10})
    assert "kind" not in sc.as_dict()["subscriptions"]
    assert "box_bytes" not in sc.as_dict()["messages"]
    assert scenario().as_dict()["subscriptions"]["dataset"] == "DS#1"


@pytest.mark.parametrize(
    "over, key",
    [
        ({"algorithm": {"approaches": ["paint-dense(0.5)"]}}, "algorithm.approaches"),
        ({"algorithm": {"approaches": ["paint-batch"]}}, "algorithm.approaches"),
        ({"algorithm": {"approaches": ["unicast-lazy"]}}, "algorithm.approaches"),
        (
            {"overlay": {"kind": "content-based"}, "algorithm": {"approaches": ["cn-relax"]}},
            "overlay.kind",
        ),
        ({"subscriptions": {"distribution": "clustered"}}, "subscriptions.distribution"),
        ({"server": {"count": 2}}, "server.count"),
        ({"subscriptions": {"dataset": "DS#4"}}, "subscriptions.dataset"),
        ({"subscriptions": {"kind": "range-2d"}}, "subscriptions.kind"),
        # keys that would change nothing: refused, not ignored
        ({"subscriptions": {"dataset": "DS#2", "cover": 5000}}, "subscriptions.cover"),
        ({"subscriptions": {"cover": 10}}, "subscriptions.cover"),  # DS#1 covers no count
        ({"subscriptions": {"kind": "range", "dataset": "DS#2"}}, "subscriptions.dataset"),
    ],
)
def test_unsupported_combinations_are_refused_in_one_line(over, key):
    with pytest.raises(ConfigError) as err:
        scenario(**over)
    text = str(err.value)
    assert "\n" not in text and f"{key} = " in text and "allowed:" in text
