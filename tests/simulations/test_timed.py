"""Timed mode: the same traffic as counting mode, plus latencies and queues that
follow from the network's delays and the service times."""

import numpy as np
import pandas as pd
import pytest

from cnsim.errors import ConfigError
from cnsim.simulations.config import from_dict
from cnsim.simulations.metrics import CATALOG
from cnsim.simulations.runner import run

COUNTS = CATALOG.names("batch", "counting", wall=False)
TIMED_METRICS = CATALOG.names("batch", "timed")


def scenario(mode="timed", events=120, timing=None, seed=5):
    return from_dict(
        {
            "seed": seed,
            "objects": {"count": 200},
            "subscriptions": {"count": 3000, "k": 4},
            "events": {"count": events, "deletes": 0.05, "inserts": 0.05},
            "network": {"ip_nodes": 500, "brokers": 30},
            "run": {"mode": mode, "progress": False},
            "timing": timing or {},
            "algorithm": {"approaches": ["paint-dense", "paint-sparse(1)", "unicast", "cn-relax"]},
        }
    )


@pytest.fixture(autouse=True)
def cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("CNSIM_CACHE", str(tmp_path_factory.getbasetemp() / "worlds"))


def test_timed_and_counting_modes_count_the_same_traffic(tmp_path):
    timed, summary = run(scenario(), tmp_path)
    counting, _ = run(scenario("counting"))
    pd.testing.assert_frame_equal(timed[COUNTS], counting[COUNTS])
    assert set(TIMED_METRICS) <= set(timed.columns)
    assert summary["simulated_time_s"] > 0
    s = summary["approaches"]["paint-dense"]
    assert 0 < s["p50_latency_first_s"] <= s["p50_latency_last_s"] <= s["p99_latency_last_s"]
    load = pd.read_parquet(tmp_path / "brokers.parquet")
    assert ((load["utilisation"] >= 0) & (load["utilisation"] <= 1)).all()
    # Every message a broker handles in counting mode costs it one service time,
    # the server's own broker included.
    busy = load["utilisation"] * summary["simulated_time_s"]
    service = scenario()["timing"]["broker_service_s"]
    np.testing.assert_allclose(busy, load["messages_handled"] * service, rtol=1e-9, atol=1e-12)


def test_latency_is_at_least_the_publishing_delay_and_first_before_last():
    frame, _ = run(scenario(timing={"server_service_s": 0.0, "broker_service_s": 0.0}))
    done = frame.dropna(subset=["latency_first_s"])
    assert (done["latency_first_s"] > 0).all()
    assert (done["latency_first_s"] <= done["latency_last_s"]).all()
    assert (frame["server_wait_s"] == 0).all()  # no service time, no waiting


def test_a_slow_server_builds_a_queue():
    slow = {"rate": 1000.0, "server_service_s": 0.01}
    frame, summary = run(scenario(timing=slow))
    dense = frame[frame.approach == "paint-dense"]
    assert dense["server_queue_len"].max() > 1 and dense["server_wait_s"].max() > 0.01
    fast, _ = run(scenario(timing={"rate": 1.0}))
    assert fast.loc[fast.approach == "paint-dense", "server_wait_s"].max() == 0
    assert summary["approaches"]["cn-relax"]["mean_server_queue_len"] == 0  # no server


def test_trace_arrivals_and_determinism(tmp_path):
    trace = tmp_path / "times.txt"
    trace.write_text("\n".join(str(0.5 * i) for i in range(1, 61)))
    timing = {"arrivals": "trace", "trace": str(trace)}
    a, sa = run(scenario(events=60, timing=timing))
    b, _ = run(scenario(events=60, timing=timing))
    timing_cols = ["server_time_s", "delivery_time_s"]
    pd.testing.assert_frame_equal(a.drop(columns=timing_cols), b.drop(columns=timing_cols))
    assert sa["simulated_time_s"] >= 30.0  # the last event is published at 30 s
    assert np.isfinite(a["reordered"]).all()
    with pytest.raises(ConfigError, match="at least 100"):  # before any work
        scenario(events=100, timing=timing)
    trace.write_text("0.5\nnan\n")
    with pytest.raises(ConfigError, match="finite"):
        scenario(events=2, timing=timing)


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        ({"overlay": {"kind": "ideal"}}, "needs an overlay of brokers"),
        ({"events": {"count": 10, "batch_size": 5}}, "events.batch_size = 5 must be 1"),
        ({"timing": {"arrivals": "trace"}}, "timing.trace"),
    ],
)
def test_bad_timed_configs(extra, words):
    base = {"run": {"mode": "timed"}, "network": {"ip_nodes": 100, "brokers": 10}}
    with pytest.raises(ConfigError, match=words):
        from_dict({**base, **extra})


def test_an_unordered_approach_is_not_held_back(monkeypatch):
    """CN-Relax declares no send order (no single sender; a subscriber keeps whole
    ranges): nothing is held back, so it counts no reordering and each latency is the
    arrival's. Forced to the server-based channel, the same messages are held back
    and arrive no earlier."""
    from cnsim.algorithms.cn_relax import CNRelax

    free, _ = run(scenario(events=200))
    monkeypatch.setattr(CNRelax, "ordered", True)
    held, _ = run(scenario(events=200))
    relax_free = free[free.approach == "cn-relax"].reset_index(drop=True)
    relax_held = held[held.approach == "cn-relax"].reset_index(drop=True)
    assert (relax_free.reordered == 0).all()
    assert relax_held.reordered.sum() > 0
    assert (relax_free.latency_last_s <= relax_held.latency_last_s + 1e-12).all()
    assert relax_free.latency_last_s.mean() < relax_held.latency_last_s.mean()
    for name in ("paint-dense", "unicast"):  # the server-based ones are untouched
        a, b = free[free.approach == name], held[held.approach == name]
        pd.testing.assert_frame_equal(a[TIMED_METRICS], b[TIMED_METRICS])
