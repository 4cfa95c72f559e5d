"""d-dimensional box subscriptions (seed 003 §IV-C) inside ``cnsim run`` and ``cnsim
verify``: every approach checked against the brute-force oracle over the ideal CN and
the 2d-dimensional Meghdoot overlay for d = 1, 2, 3; d = 1 boxes run exactly as 1-d
ranges; determinism; timed mode; the example file."""

import numpy as np
import pandas as pd
import pytest

import cnsim
from cnsim.simulations import verify as v
from cnsim.simulations.runner import Simulation

APPROACHES = ["paint-dense", "paint-sparse", "unicast", "cn-relax"]
SIZES = {1: (80, 400, 3, 40), 2: (50, 300, 3, 25), 3: (30, 200, 2, 15)}  # n, m, k, events


@pytest.fixture(autouse=True)
def cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("CNSIM_CACHE", str(tmp_path_factory.getbasetemp() / "worlds"))


def scenario(d=2, **over):
    n, m, k, events = SIZES[d]
    base = {
        "seed": 7,
        "objects": {"count": n},
        "subscriptions": {"kind": "box", "dims": d, "count": m, "k": k},
        "events": {"count": events, "deletes": 0.1, "inserts": 0.1, "moves": 0.1},
        "network": {"ip_nodes": 300, "brokers": 30},
        "overlay": {"kind": "ideal"},
        "algorithm": {"approaches": APPROACHES},
        "run": {"progress": False},
    }
    for section, values in over.items():
        base[section] = {**base.get(section, {}), **values} if isinstance(values, dict) else values
    return cnsim.Scenario(**base)


@pytest.mark.parametrize("overlay", ["ideal", "meghdoot"])
@pytest.mark.parametrize("d", [1, 2, 3])
def test_every_approach_passes_verify(d, overlay):
    report = cnsim.verify(scenario(d, overlay={"kind": overlay}))
    assert report.ok, report.text()
    assert report.approaches == APPROACHES and report.events == SIZES[d][3]


def test_verify_with_batches_and_redrawn_updates():
    sc = scenario(2, events={"batch_size": 3, "update": "redraw"}, overlay={"kind": "meghdoot"})
    report = cnsim.verify(sc)
    assert report.ok, report.text()


def test_verify_catches_a_wrong_list_and_an_unaffected_notification():
    sim = Simulation(scenario(2))
    report = v.Report(approaches=["paint-dense"])
    truth = v.Truth(sim.workload)
    after = truth.top_k()
    assert np.array_equal(after[0], sim.lists["paint-dense"].ids)  # the oracle agrees first
    sim.lists["paint-dense"].row_ys[0, 0] += 1.0
    st = v.BatchState(0, sim.workload.events.updates(0, 0), truth.y, after, after, truth)
    v._check_lists(report, sim, "paint-dense", st)
    assert report.failures[("paint-dense", "lists")] == 1
    assert " x [" in report.examples[0]  # the box is named by its sides
    from cnsim.brokers.base import Delivery

    d = Delivery(np.array([0, 1]), np.array([4]), np.array([0]), np.array([0.5]))
    v._check_exact(report, "paint-dense", 0, d, st.affected())
    assert report.failures[("paint-dense", "exact-notifies-affected-only")] == 1


COLUMNS = ["server_out_msgs", "server_out_bytes", "delivered_msgs", "overlay_bytes", "ip_bytes"]


def test_one_dimensional_boxes_run_as_ranges():
    """d = 1: the same objects, ranges and events as the 1-d run of the seed, and over
    Meghdoot the same zones (zones_nd at D = 2), so every count agrees; a 1-d box
    message is 4(5 + 1) = 24 bytes, the 1-d message's."""
    over = {"overlay": {"kind": "meghdoot"}}
    boxes = cnsim.run(scenario(1, **over)).events
    n, m, k, events = SIZES[1]
    ranges = cnsim.run(scenario(1, subscriptions={"kind": "range", "dims": None}, **over)).events
    for a in APPROACHES:
        got, want = boxes[boxes.approach == a], ranges[ranges.approach == a]
        for col in COLUMNS:
            assert np.array_equal(got[col].to_numpy(), want[col].to_numpy()), (a, col)
    dense = boxes[boxes.approach == "paint-dense"]
    assert dense.server_out_msgs.sum() > 0
    assert (dense.server_out_bytes == 24 * dense.server_out_msgs).all()


def test_message_bytes_follow_d():
    events = cnsim.run(scenario(3, algorithm={"approaches": ["paint-dense", "unicast"]})).events
    dense, uni = events[events.approach == "paint-dense"], events[events.approach == "unicast"]
    assert (dense.server_out_bytes == 4 * (5 * 3 + 1) * dense.server_out_msgs).all()
    assert (uni.server_out_bytes == 16 * uni.server_out_msgs).all()


def test_same_seed_same_rows():
    sc = scenario(2, overlay={"kind": "meghdoot"})
    a, b = cnsim.run(sc), cnsim.run(sc)
    drop = ["server_time_s", "delivery_time_s"]
    pd.testing.assert_frame_equal(a.events.drop(columns=drop), b.events.drop(columns=drop))
    assert a.brokers.equals(b.brokers)
    other = cnsim.run(sc.replace(seed=8)).events
    assert not other.drop(columns=drop).equals(a.events.drop(columns=drop))


def test_timed_mode_counts_what_counting_mode_counts():
    sc = scenario(2, overlay={"kind": "meghdoot"}, events={"deletes": 0, "inserts": 0})
    counting = cnsim.run(sc).events
    timed = cnsim.run(sc.replace(**{"run.mode": "timed"})).events
    for col in COLUMNS:
        assert np.array_equal(counting[col].to_numpy(), timed[col].to_numpy()), col
    latency = timed["latency_last_s"].dropna()  # NaN: an event that notified nobody
    assert len(latency) and (latency >= 0).all()


def test_example_file_runs_and_verifies(tmp_path):
    sc = cnsim.Scenario.from_toml(
        "examples/boxes.toml", objects={"count": 60}, subscriptions={"count": 300},
        events={"count": 12},
    )  # fmt: skip
    assert sc["subscriptions"]["kind"] == "box" and sc["subscriptions"]["dims"] == 2
    result = cnsim.run(sc, tmp_path / "out")
    assert (tmp_path / "out" / "events.parquet").exists()
    assert set(result.events.approach) == set(APPROACHES)
    report = cnsim.verify(sc)
    assert report.ok, report.text()
