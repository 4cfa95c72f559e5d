"""Seed 001's command stream over the content-based overlay, run by the one run loop
(cnsim.simulations.runner.StreamSimulation) and checked against brute force at every
point of the stream."""

import numpy as np
import pandas as pd
import pytest
from streams import checked_rows

from cnsim.brokers.forwarding import COVERINGS
from cnsim.errors import ConfigError
from cnsim.simulations.config import from_dict
from cnsim.simulations.metrics import CATALOG
from cnsim.simulations.runner import StreamSimulation, simulate


@pytest.fixture(autouse=True)
def cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("CNSIM_CACHE", str(tmp_path_factory.getbasetemp() / "worlds"))


def scenario(covering="g1", index="kdtree", d=2, churn=0.3, commands=200, events=None, **kw):
    return from_dict(
        {
            "seed": 5,
            "subscriptions": {"count": commands, "churn": churn, "kind": "box", "dims": d},
            "events": {"count": commands if events is None else events},
            "network": {"ip_nodes": 300, "brokers": 16},
            "overlay": {"kind": "content-based", "covering": covering, "covering_index": index},
            "algorithm": {"approaches": ["cn-relax"]},
            "run": {"progress": False},
            **kw,
        }
    )


# Each covering over one index, in turn: the run loop is the same whatever the pair, and
# every covering with every index is forwarded against brute force by
# tests/brokers/test_content_based.py.
@pytest.mark.parametrize(
    "covering, index, d",
    [
        (covering, index, d)
        for i, covering in enumerate(COVERINGS)
        for j, (index, d) in enumerate([("kdtree", 1), ("naive", 3), ("zorder", 8)])
        if i % 3 == j
    ],
)
def test_every_event_matches_brute_force_after_every_command(covering, index, d):
    # one event after every command, each asserted against brute force
    sim, rows = checked_rows(scenario(covering, index, d))
    assert len(rows) == 200 and (sim.commands.after == np.arange(200)).all()
    assert (rows["sub_msgs"] >= 0).all() and (rows["routing_entries_max"] >= 0).all()
    frame = simulate(scenario(covering, index, d)).events
    assert (frame["command"] == np.arange(200)).all()
    pd.testing.assert_frame_equal(frame[rows.columns].astype(float), rows.astype(float))


def test_covering_changes_subscription_traffic_not_event_routing():
    runs = {c: simulate(scenario(c, churn=0.0, d=2, commands=300)) for c in COVERINGS}
    none = runs["none"]
    for c, r in runs.items():
        # covering is exact: events cross the same links and reach the same subscribers
        for col in ("delivered_msgs", "overlay_bytes", "ip_bytes"):
            assert r.events[col].tolist() == none.events[col].tolist(), (c, col)
        assert r.summary["totals"]["sub_msgs"] <= none.summary["totals"]["sub_msgs"]
        assert r.summary["totals"]["routing_entries"] <= none.summary["totals"]["routing_entries"]
    assert none.summary["totals"]["sub_msgs"] == 300 * 15  # flooding: every link once
    assert runs["g1"].summary["totals"]["sub_msgs"] < none.summary["totals"]["sub_msgs"]


def test_the_run_loop_runs_the_stream_deterministically():
    a = simulate(scenario(events=50))
    b = simulate(scenario(events=50))
    assert a.summary["commands"] == 200 and len(a.events) == 50
    assert a.events.equals(b.events)
    for m in CATALOG.select("batch", "churn"):
        assert m.name in a.events.columns
        for agg in m.aggregates:
            assert m.key(agg) in a.summary["approaches"]["cn-relax"]
    held = a.brokers["subscriptions_held"].sum()
    assert held == a.summary["totals"]["routing_entries"] + a.events["live"].iloc[-1]


def test_no_events_still_runs_every_command():
    """...and writes the whole event schema, typed as a run with events has it."""
    r = simulate(scenario(events=0, churn=0.0, commands=50))
    assert len(r.events) == 0 and r.summary["totals"]["sub_msgs"] > 0
    full = simulate(scenario(events=5, churn=0.0, commands=50)).events
    metrics = StreamSimulation(scenario(events=0, churn=0.0, commands=50)).metrics()
    columns = ["approach", "event", "command", "live", *(m.name for m in metrics)]
    assert list(r.events.columns) == list(full.columns) == columns
    assert r.events.dtypes.equals(full.dtypes)


@pytest.mark.parametrize(
    "changes, match",
    [
        ({"overlay": {"kind": "meghdoot"}}, "churn = 0.3 needs box subscriptions over the"),
        ({"subscriptions": {"churn": 0.3}}, "churn = 0.3 needs box subscriptions over the"),
        ({"subscriptions": {"churn": 0.3, "attributes": 3}}, "attributes = 3 is retired; allowed"),
    ],
)
def test_churn_needs_the_content_based_overlay(changes, match):
    with pytest.raises(ConfigError, match=match):
        scenario(**changes)


@pytest.mark.parametrize("covering", ["none", "gk", "poset", "full"])
def test_cnsim_verify_checks_a_churn_scenario(covering):
    from cnsim.simulations.verify import verify

    report = verify(scenario(covering, d=3, commands=150, events=60))
    assert report.ok, report.text()
    assert report.events == 60 and report.approaches == ["cn-relax"]


def test_verify_reports_a_broken_table(monkeypatch):
    from cnsim.brokers.forwarding import Forwarding
    from cnsim.simulations.verify import verify

    # an overlay that forgets to forward: events miss subscriptions, verify says so
    monkeypatch.setattr(Forwarding, "_send_sub", lambda self, link, sid: None)
    report = verify(scenario("none", churn=0.0, commands=40, events=20))
    assert not report.ok and "churn-reaches-boxes" in report.text()
