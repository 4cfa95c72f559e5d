"""1.5-d range subscriptions (seed 003 appendix D), beyond the index and Paint: the min_x2 calls
as a metric column (Table VII counts min_y + min_x2), inserts and moves (a new object's
x2 from the ``objects_x2`` stream), timed mode, the object index's inserts, and the
sweep file of Tables VII/VIII. Oracles: an independent replay of the paper's algorithm
on the same workload, brute-force index queries, the full-scan list oracle of verify."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import cnsim
from cnsim.algorithms.range15d.paint import PaintDense15
from cnsim.server.object_index_2d import EAST, WEST, ObjectIndex2D
from cnsim.simulations.metrics import CATALOG
from cnsim.simulations.runner import Simulation
from cnsim.simulations.seeds import Seeds
from cnsim.simulations.sweep import load_sweep
from cnsim.subscriptions.workload import EVENT_KINDS

ROOT = Path(__file__).resolve().parents[2]
APPROACHES = ["paint-dense", "paint-sparse", "unicast", "cn-relax"]
COUNTS = CATALOG.names("batch", "counting", wall=False)


@pytest.fixture(autouse=True)
def cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("CNSIM_CACHE", str(tmp_path_factory.getbasetemp() / "worlds"))


def scenario(**over):
    base = {
        "seed": 7,
        "objects": {"count": 150},
        "subscriptions": {"kind": "range-1.5d", "count": 1200, "k": 3},
        "events": {"count": 120, "deletes": 0.1, "inserts": 0.15, "moves": 0.15},
        "network": {"ip_nodes": 300, "brokers": 30},
        "overlay": {"kind": "ideal"},
        "algorithm": {"approaches": APPROACHES},
        "run": {"progress": False},
    }
    for section, values in over.items():
        base[section] = {**base.get(section, {}), **values} if isinstance(values, dict) else values
    return cnsim.Scenario(**base)


# -- (1) calls_min_x2 ----------------------------------------------------------------------


def test_min_x2_calls_are_those_of_the_algorithm_replayed_alone():
    sc = scenario(events={"count": 80, "inserts": 0.0, "moves": 0.0, "deletes": 0.05})
    result = cnsim.run(sc)
    ev = result.events
    w = Simulation(sc).workload
    # the paper's Paint-Dense on its own index, fed the same events one by one
    dense = PaintDense15(ObjectIndex2D(w.x, w.x2, w.y), sc["subscriptions"]["k"])
    want_x2, want_y = [], []
    for e in range(len(w.events)):
        u = w.events.updates(e, e + 1)
        before = (dense.counter.min_x2, dense.counter.min_y)
        dense.process(u.obj, u.y_new)
        want_x2.append(dense.counter.min_x2 - before[0])
        want_y.append(dense.counter.min_y - before[1])
    got = ev[ev.approach == "paint-dense"]
    assert got["calls_min_x2"].tolist() == want_x2 and sum(want_x2) > 0
    assert got["calls_min_y"].tolist() == want_y
    # Paint-Sparse sweeps the same polygons (Algorithm 7); Unicast and CN-Relax make none
    sparse = ev[ev.approach == "paint-sparse"]
    assert sparse["calls_min_x2"].tolist() == want_x2
    assert (ev.loc[ev.approach.isin(["unicast", "cn-relax"]), "calls_min_x2"] == 0).all()
    s = result.summary["approaches"]["paint-dense"]
    assert s["mean_calls_min_x2"] == pytest.approx(np.mean(want_x2))


def test_1d_runs_record_zero_min_x2_calls():
    sc = cnsim.Scenario(
        seed=3, objects={"count": 100}, subscriptions={"count": 500, "k": 3},
        events={"count": 30}, network={"ip_nodes": 300, "brokers": 20},
        overlay={"kind": "ideal"}, algorithm={"approaches": ["paint-dense", "paint-sparse"]},
        run={"progress": False},
    )  # fmt: skip
    ev = cnsim.run(sc).events
    assert (ev["calls_min_x2"] == 0).all() and ev["calls_min_y"].sum() > 0


# -- (4) inserts and moves ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "over",
    [
        {},
        {"overlay": {"kind": "meghdoot"}},
        {"subscriptions": {"dataset": "DS#3", "cover": 10, "k": 2}, "events": {"batch_size": 3}},
        {"objects": {"distribution": "clustered"}, "events": {"update": "redraw"}},
    ],
)
def test_inserts_and_moves_pass_every_verify_check(over):
    sc = scenario(**over)
    kinds = Simulation(sc).workload.events.kinds()
    assert (kinds == "insert").sum() > 5 and (kinds == "move").sum() > 5
    report = cnsim.verify(sc)
    assert report.ok, report.text()
    assert report.approaches == APPROACHES


def test_new_objects_x2_come_from_the_x2_stream_after_the_initial_ones():
    sc = scenario()
    w = Simulation(sc).workload
    n = len(w.x)
    n_ids = int(w.events.obj.max()) + 1
    assert n_ids > n and len(w.x2) == n_ids
    draws = Seeds(sc.seed).rng("objects_x2").random(n_ids)
    assert np.array_equal(w.x2, draws)  # the initial n, then one per new id, in id order
    # without inserts or moves nothing more is drawn: x2 as before
    still = Simulation(scenario(events={"inserts": 0.0, "moves": 0.0})).workload
    assert np.array_equal(still.x2, draws[:n]) and np.array_equal(still.x, w.x)


def test_a_move_gives_the_object_a_new_id_with_a_new_position():
    w = Simulation(scenario()).workload
    ev = w.events
    moves = np.flatnonzero(ev.kind == EVENT_KINDS.index("move"))
    assert len(moves)
    for e in moves.tolist():
        u = ev.updates(e, e + 1)
        old, new = u.obj.tolist()
        assert np.isinf(u.y_new[0]) and np.isinf(u.y_old[1]) and u.y_new[1] == u.y_old[0]
        assert new >= len(w.x) and w.x2[new] != w.x2[old]


def test_runs_with_inserts_are_deterministic():
    sc = scenario(overlay={"kind": "meghdoot"})
    a, b = cnsim.run(sc), cnsim.run(sc)
    wall = [c for c in a.events.columns if c.endswith("_time_s")]
    assert a.events.drop(columns=wall).equals(b.events.drop(columns=wall))


# -- (3) timed mode ------------------------------------------------------------------------------


def test_timed_and_counting_modes_count_the_same_1_5d_traffic(tmp_path):
    sc = {"overlay": {"kind": "meghdoot"}, "events": {"count": 80}}
    timed = cnsim.run(scenario(run={"mode": "timed", "progress": False}, **sc), tmp_path)
    counting = cnsim.run(scenario(**sc))
    pd.testing.assert_frame_equal(timed.events[COUNTS], counting.events[COUNTS])
    assert set(CATALOG.names("batch", "timed")) <= set(timed.events.columns)
    done = timed.events.dropna(subset=["latency_first_s"])
    assert len(done) and (done["latency_first_s"] > 0).all()
    assert (done["latency_first_s"] <= done["latency_last_s"]).all()
    cn_relax = timed.events[timed.events.approach == "cn-relax"]
    assert (cn_relax["reordered"] == 0).all()  # no single sender, nothing held back
    # every message a broker handles costs it one service time, as in 1-d
    load = pd.read_parquet(tmp_path / "brokers.parquet")
    busy = load["utilisation"] * timed.summary["simulated_time_s"]
    service = timed.summary["scenario"]["timing"]["broker_service_s"]
    np.testing.assert_allclose(busy, load["messages_handled"] * service, rtol=1e-9, atol=1e-12)


# -- the object index's inserts (spare slots, rebuilds) --------------------------------------


def _lt(ya, ia, yb, ib):
    return (ya < yb) | ((ya == yb) & (ia < ib))


def test_many_inserts_past_the_spares_answer_as_brute_force():
    rng = np.random.default_rng(4)
    n = 64
    index = ObjectIndex2D(rng.random(n), rng.random(n), rng.random(n))
    for step in range(400):  # 16 spares at first: several rebuilds and regrowths
        if rng.random() < 0.6:
            index.insert(float(rng.random()), float(rng.random()), float(rng.random()))
        else:
            index.update(int(rng.integers(len(index))), float(rng.choice([np.inf, rng.random()])))
        if step % 20:
            continue
        x1, x2, y = index.x1, index.x2, index.y
        ids = np.arange(len(y))
        for _ in range(10):
            a_lo, a_hi = np.sort(rng.random(2))
            b_lo, b_hi = np.sort(rng.random(2))
            y0, id0 = float(rng.random()), int(rng.integers(len(y)))
            ok = (a_lo <= x1) & (x1 <= a_hi) & (b_lo <= x2) & (x2 <= b_hi) & np.isfinite(y)
            ok &= _lt(y0, id0, y, ids)
            want = int(ids[ok][np.lexsort((ids[ok], y[ok]))[0]]) if ok.any() else -1
            assert index.min_y(a_lo, a_hi, b_lo, b_hi, y0, id0) == want
            ok = (a_lo <= x1) & (x1 <= a_hi) & np.isfinite(y) & _lt(y, ids, y0, id0)
            ok &= _lt(b_lo, 0, x2, ids)
            want = int(ids[ok][np.lexsort((ids[ok], x2[ok]))[0]]) if ok.any() else -1
            assert index.min_x2(a_lo, a_hi, b_lo, 0, y0, id0) == want
            for direction in (WEST, EAST):
                side = x1 <= a_lo if direction == WEST else x1 > a_lo
                ok = side & (x2 <= b_hi) & np.isfinite(y) & _lt(y, ids, y0, id0)
                xs = np.sort(x1[ok])
                want_k = (xs[::-1] if direction == WEST else xs)[:4]
                assert np.array_equal(index.first_k(a_lo, b_hi, y0, id0, direction, 4), want_k)
    assert len(index) > n + 150


# -- (2) the sweep file of Tables VII and VIII -------------------------------------------------


def test_the_appendix_d_sweep_file_is_valid():
    path = ROOT / "examples" / "sweeps_appendix_d" / "tables7_8.toml"
    full, quick = load_sweep(path), load_sweep(path, quick=True)
    assert len(full.runs) == 15 and 1 <= len(quick.runs) < len(full.runs)
    params = [r.params for r in full.runs]
    assert {p["subscriptions.k"] for p in params} == {1, 2, 5, 10, 15}
    assert {p["subscriptions.dataset"] for p in params} == {"DS#1", "DS#2", "DS#3"}
    assert len({r.seed for r in full.runs}) == 1  # one workload for every k and dataset
    sc = full.runs[0].scenario
    assert sc["objects"]["count"] == 10_000 and sc["subscriptions"]["count"] == 400_000
    assert sc["overlay"]["kind"] == "ideal"
