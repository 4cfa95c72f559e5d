"""Joins and leaves during a ranked-delivery run ([ranked] commands, churn):
the schedule against a straightforward replay, every event's recipients against a
brute-force top-k over the subscriptions live at that moment, the zones' bounds against
the live maxima, the config's rules."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cnsim
from cnsim.brokers.ranked import RankedZones
from cnsim.brokers.ranked_churn import RankedChurn
from cnsim.errors import ConfigError
from cnsim.simulations.config import Scenario
from cnsim.simulations.ranked import global_top_k
from cnsim.simulations.runner import Simulation
from cnsim.simulations.verify import verify


def scenario(**ranked) -> Scenario:
    return Scenario(
        seed=ranked.pop("seed", 5),
        objects={"count": 80},
        subscriptions={"count": ranked.pop("m", 400), "k": 3,
                       "distribution": ranked.pop("distribution", "uniform")},
        events={"count": ranked.pop("events", 40), "batch_size": ranked.pop("batch", 1)},
        network={"ip_nodes": 300, "brokers": 20},
        algorithm={"approaches": ranked.pop("approaches", ["ranked"])},
        run={"progress": False, "mode": ranked.pop("mode", "counting")},
        ranked={"k": 5, "commands": 300, "churn": 0.5, **ranked},
    )  # fmt: skip


@pytest.fixture(autouse=True)
def cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("CNSIM_CACHE", str(tmp_path_factory.getbasetemp() / "worlds"))


# ------------------------------------------------------------------ the schedule
@settings(max_examples=60, deadline=None)
@given(
    m=st.integers(0, 30),
    events=st.integers(0, 25),
    commands=st.integers(0, 60),
    churn=st.sampled_from([0.0, 0.3, 0.5, 0.9, 1.0]),
    seed=st.integers(0, 2**16),
)
def test_schedule_against_a_replay(m, events, commands, churn, seed):
    ch = RankedChurn.draw(np.random.default_rng(seed), m, events, commands, churn,
                          "uniform", 0.1, "uniform", 50)  # fmt: skip
    assert len(ch) == commands and ch.n_joins == int((~ch.leave).sum())
    # seed 001's spreading: event e follows command floor((e + 1) C / E) - 1
    for e in range(events):
        assert ch.upto(e) == ((e + 1) * commands) // events
    # joins get m, m + 1, ... in order; a leave removes a live subscription
    live = set(range(m))
    joined = m
    states = [set(live)]
    for c in range(commands):
        t = int(ch.target[c])
        if ch.leave[c]:
            assert t in live
            live.remove(t)
        else:
            assert t == joined and t not in live
            joined += 1
            live.add(t)
        states.append(set(live))
    for e in range(events + 1):
        want = states[ch.upto(e)]
        assert set(np.flatnonzero(ch.live_before(e)).tolist()) == want
    if churn == 0.0:
        assert not ch.leave.any()
    assert (ch.l <= ch.r).all() and len(ch.node) == ch.n_joins


# ------------------------------------------------------------------ a run
def _replay_check(sim: Simulation) -> int:
    """Drive the run; every event's recipients against brute force over the live set;
    returns the number of events checked."""
    ranked = sim.network.ranked
    ch, w = ranked.churn, sim.workload
    checked = 0
    for b, outcomes in sim.steps():
        o = outcomes["ranked"]
        alive = ch.live_before(b)
        l, r = np.concatenate([w.l, ch.l]), np.concatenate([w.r, ch.r])
        s = np.concatenate([ranked.scores[: ch.m], ch.score])
        # the zones' state now is the state at this event
        got_alive = ranked.net.columns()[3]
        assert np.array_equal(got_alive, alive[: len(got_alive)])
        assert not alive[len(got_alive) :].any()
        for i, x in enumerate(o.messages.x):
            got = o.delivery.subs[o.delivery.offsets[i] : o.delivery.offsets[i + 1]]
            np.testing.assert_array_equal(got, global_top_k(l, r, s, x, ranked.k, alive))
            checked += 1
        # every zone's bound is the maximum score of its live subscriptions
        net = ranked.net
        zl, zr, zs, za = net.columns()
        zone = net._zone[: len(zl)]
        want = np.full(net.zones.n_zones, -np.inf)
        np.maximum.at(want, zone[za], zs[za])
        np.testing.assert_array_equal(net.bound, want)
    return checked


@pytest.mark.parametrize(
    ("pruning", "scores", "churn", "distribution"),
    [
        ("threshold", "uniform", 0.5, "uniform"),
        ("flood", "uniform", 0.5, "uniform"),
        ("threshold", "length", 0.8, "clustered"),
        ("threshold", "uniform", 0.0, "uniform"),  # joins only
        ("threshold", "uniform", 1.0, "uniform"),  # leaves only: the network empties
    ],
)
def test_every_event_reaches_the_live_top_k(pruning, scores, churn, distribution):
    sc = scenario(pruning=pruning, scores=scores, churn=churn, distribution=distribution,
                  m=200 if churn == 1.0 else 400)  # fmt: skip
    sim = Simulation(sc)
    assert _replay_check(sim) > 0
    ch = sim.network.ranked.churn
    assert sim.network.ranked.applied == ch.upto(len(sim.workload.events) - 1)
    if churn == 1.0:  # more leaves than subscriptions: the last events reach nobody
        assert len(sim.network.ranked.net) == 0
    assert verify(sc).ok


def test_verify_and_metrics_of_a_run():
    sc = scenario()
    report = verify(sc)
    assert report.ok, report.text()
    result = cnsim.run(sc)
    s = result.summary["approaches"]["ranked"]
    sim = Simulation(sc)  # the schedule's totals reach the summary
    sched = sim.network.ranked.churn
    n = sched.upto(len(sim.workload.events) - 1)
    assert s["total_churn_joins"] == int((~sched.leave[:n]).sum())
    assert s["total_churn_leaves"] == int(sched.leave[:n].sum())
    assert s["total_churn_joins"] + s["total_churn_leaves"] == n == 300
    assert s["total_churn_bound_msgs"] == s["total_churn_bound_changes"] * 19  # 20 zones
    assert s["total_churn_bound_changes"] > 0
    # deterministic: the same scenario gives the same rows
    again = cnsim.run(sc)
    cols = [c for c in result.events.columns if not c.endswith("_s") and "wall" not in c]
    pd.testing.assert_frame_equal(result.events[cols], again.events[cols])
    assert sc.as_dict()["ranked"]["commands"] == 300


def test_verify_catches_a_leave_the_zones_missed(monkeypatch):
    monkeypatch.setattr(RankedZones, "delete", lambda self, i: None)  # leaves ignored
    report = verify(scenario(churn=0.9))
    assert not report.ok
    assert ("ranked", "ranked-top-k") in report.failures


def test_without_commands_nothing_changes():
    sc = Scenario(algorithm={"approaches": ["ranked"]}, ranked={"k": 3})
    assert "commands" not in sc.as_dict()["ranked"]
    assert "churn" not in sc.as_dict()["ranked"]
    sim = Simulation(scenario(commands=0))
    assert sim.network.ranked.churn is None


@pytest.mark.parametrize(
    ("sections", "words"),
    [
        ({"batch": 2}, "ranked.commands = 300 needs one event per batch in counting mode"),
        ({"mode": "timed"}, "ranked.commands = 300 needs one event per batch in counting mode"),
        ({"commands": -1}, "ranked.commands = -1"),
        ({"approaches": ["cn-relax"]}, "ranked.commands = 300 applies to ranked delivery only"),
        ({"churn": 1.5}, "ranked.churn = 1.5"),
        ({"commands": 0, "churn": 0.2}, "ranked.churn = 0.2 applies only to join/leave commands"),
    ],
)
def test_bad_configs(sections, words):
    with pytest.raises(ConfigError, match=words.replace("(", r"\(").replace(".", r"\.")):
        scenario(**sections)
