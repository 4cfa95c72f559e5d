"""Ranked delivery as a run: ``cnsim run`` / ``cnsim verify`` of approach
``ranked`` over Meghdoot, its metrics, its oracle, and counting against timed mode."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import cnsim
from cnsim.brokers.ranked import RankedZones
from cnsim.cli import app
from cnsim.errors import ConfigError
from cnsim.simulations.config import Scenario
from cnsim.simulations.metrics import CATALOG
from cnsim.simulations.ranked import global_top_k
from cnsim.simulations.runner import Simulation
from cnsim.simulations.verify import verify

COUNTS = CATALOG.names("batch", "counting", wall=False) + CATALOG.names("batch", "ranked")
TIMED = CATALOG.names("batch", "timed")


def scenario(**ranked) -> Scenario:
    run = {"progress": False, "mode": ranked.pop("mode", "counting")}
    return Scenario(
        seed=11,
        objects={"count": 100},
        subscriptions={"count": 3000, "k": 3},
        events={"count": ranked.pop("events", 40), "inserts": 0.05, "deletes": 0.05},
        network={"ip_nodes": 300, "brokers": 20},
        algorithm={"approaches": ranked.pop("approaches", ["ranked", "cn-relax"])},
        run=run,
        ranked={"k": 7, **ranked},
    )


@pytest.fixture(autouse=True)
def cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("CNSIM_CACHE", str(tmp_path_factory.getbasetemp() / "worlds"))


def _recipients(sim: Simulation):
    """Every ranked event's x and recipients, driving the simulation."""
    out = []
    for _, outcomes in sim.steps():
        o = outcomes["ranked"]
        d = o.delivery
        out += [
            (x, d.subs[d.offsets[i] : d.offsets[i + 1]].copy()) for i, x in enumerate(o.messages.x)
        ]
    return out


@pytest.mark.parametrize("scores", ["uniform", "length", "ties"])
@pytest.mark.parametrize("pruning", ["threshold", "flood"])
def test_every_event_reaches_the_global_top_k(scores, pruning, monkeypatch):
    if scores == "ties":  # few distinct scores: ranks decided by subscription id
        import cnsim.subscriptions.ranked.scores as module

        monkeypatch.setattr(
            module, "generate_scores", lambda rng, l, r, model: rng.integers(0, 4, len(l)) / 4
        )
    sim = Simulation(scenario(pruning=pruning, scores="uniform" if scores == "ties" else scores))
    w, ranked = sim.workload, sim.network.ranked
    if scores == "ties":
        assert len(np.unique(ranked.scores)) == 4
    seen = _recipients(sim)
    assert len(seen) == len(w.events.obj)
    for x, got in seen:
        want = global_top_k(w.l, w.r, ranked.scores, x, 7)
        np.testing.assert_array_equal(got, want)
        # the oracle itself, against a plain sort of the matching subscriptions
        hit = [j for j in range(len(w.l)) if w.l[j] <= x <= w.r[j]]
        assert want.tolist() == sorted(hit, key=lambda j: (-ranked.scores[j], j))[:7]


def test_run_and_verify_through_the_cli(tmp_path):
    path = tmp_path / "ranked.toml"
    text = Path("examples/ranked.toml").read_text(encoding="utf-8")
    path.write_text(text.replace("= 20000", "= 3000").replace("count = 200", "count = 30"))
    runner = CliRunner()
    out = tmp_path / "out"
    res = runner.invoke(app, ["run", str(path), "--out", str(out)])
    assert res.exit_code == 0, res.output
    summary = json.loads((out / "summary.json").read_text())
    s = summary["approaches"]["ranked"]
    assert s["mean_delivered_msgs"] == 10  # [ranked] k of the example, every event matches
    assert 0 < s["pruning_ratio_zones"] <= 1 and 0 < s["pruning_ratio_ip_bytes"] <= 1
    assert s["bound_msgs"] > 0 and s["subscriber_memory_bytes"] == 0
    events = pd.read_parquet(out / "events.parquet")
    assert set(CATALOG.names("batch", "ranked")) <= set(events.columns)
    res = runner.invoke(app, ["verify", str(path)])
    assert res.exit_code == 0, res.output
    assert "all checks passed (ranked, cn-relax)" in res.output


def test_run_through_the_api_and_the_metrics():
    threshold = cnsim.run(scenario())
    flood = cnsim.run(scenario(pruning="flood"))
    t = threshold.events[threshold.events.approach == "ranked"].reset_index(drop=True)
    f = flood.events[flood.events.approach == "ranked"].reset_index(drop=True)
    # the flood measured beside the threshold run is the flood run's own cost
    np.testing.assert_array_equal(t["flood_zones_visited"], f["zones_visited"])
    np.testing.assert_array_equal(t["flood_msgs"], f["ranked_msgs"])
    np.testing.assert_array_equal(t["flood_ip_bytes"], f["ip_bytes"])
    np.testing.assert_array_equal(t["delivered_msgs"], f["delivered_msgs"])
    assert (t["zones_visited"] <= t["flood_zones_visited"]).all()
    assert (t["delivered_msgs"] == 7).all()  # every range-holding point has >= 7 matches
    s = flood.summary["approaches"]["ranked"]
    assert s["pruning_ratio_zones"] == s["pruning_ratio_msgs"] == s["pruning_ratio_ip_bytes"] == 1
    s = threshold.summary["approaches"]["ranked"]
    assert s["pruning_ratio_zones"] == t["zones_visited"].sum() / t["flood_zones_visited"].sum()
    # a ranked run's messages travel overlay links: hops are the messages, bytes measured
    assert (t["overlay_bytes"] > 0).any()
    cn_relax = threshold.events[threshold.events.approach == "cn-relax"]
    assert (cn_relax["zones_visited"] == 0).all()  # ranked columns are ranked delivery's
    assert cnsim.verify(scenario(pruning="flood", events=15)).ok


def test_verify_catches_a_wrong_recipient(monkeypatch):
    real = RankedZones.local_top_k

    def drop_best(self, z, x, k):
        return real(self, z, x, k)[1:]  # every zone forgets its best

    monkeypatch.setattr(RankedZones, "local_top_k", drop_best)
    report = verify(scenario(events=10))
    assert not report.ok
    assert ("ranked", "ranked-top-k") in report.failures
    assert "ranked-top-k failed" in report.text()


def test_timed_mode_counts_as_counting_mode_and_gives_latency(tmp_path):
    for pruning in ("threshold", "flood"):
        timed = cnsim.run(scenario(mode="timed", pruning=pruning, events=30))
        counting = cnsim.run(scenario(pruning=pruning, events=30))
        pd.testing.assert_frame_equal(timed.events[COUNTS], counting.events[COUNTS])
        s = timed.summary["approaches"]["ranked"]
        assert 0 < s["p50_latency_first_s"] <= s["p50_latency_last_s"]
        frame = timed.events[timed.events.approach == "ranked"]
        done = frame.dropna(subset=["latency_first_s"])
        assert len(done) == len(frame) and (done["reordered"] == 0).all()
        load = timed.brokers[timed.brokers.approach == "ranked"]
        busy = load["utilisation"] * timed.summary["simulated_time_s"]
        service = scenario()["timing"]["broker_service_s"]
        np.testing.assert_allclose(busy, load["messages_handled"] * service, rtol=1e-9)


def test_existing_scenarios_are_recorded_as_before():
    plain = Scenario(overlay={"kind": "ideal"})
    assert "ranked" not in plain.as_dict()
    ranked = Scenario(algorithm={"approaches": ["ranked"]}, ranked={"k": 3})
    assert ranked.as_dict()["ranked"]["k"] == 3


@pytest.mark.parametrize(
    ("sections", "words"),
    [
        ({"overlay": {"kind": "ideal"}}, "ranked delivery needs zones that keep score bounds"),
        ({"ranked": {"regions": 4}}, "ranked.regions = 4 applies to the content-based"),
        ({"ranked": {"pruning": "best"}}, "ranked.pruning = 'best'"),
        ({"ranked": {"scores": "zipf"}}, "ranked.scores = 'zipf'"),
        ({"ranked": {"k": 0}}, "ranked.k = 0"),
        ({"ranked": {"index": "btree"}}, "ranked.index = 'btree'"),
    ],
)
def test_bad_ranked_configs(sections, words):
    with pytest.raises(ConfigError, match=words.replace("(", r"\(").replace(".", r"\.")):
        Scenario(algorithm={"approaches": ["ranked"]}, **sections)
