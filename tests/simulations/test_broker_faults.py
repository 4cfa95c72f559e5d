"""Brokers that fail and come back during a run over the Meghdoot overlay
(``[faults]``): verify after every batch (every subscription not lost exact, the
notifications lost equal to what the ideal CN would have delivered to the lost ones),
the takeover rule, losses ending with re-subscription, replicas that lose nothing,
hand-backs on repair, and the run without faults unchanged."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from cnsim.errors import ConfigError
from cnsim.simulations.config import from_dict
from cnsim.simulations.metrics import CATALOG
from cnsim.simulations.runner import Simulation, run
from cnsim.simulations.seeds import Seeds
from cnsim.simulations.timed import publication_times
from cnsim.simulations.verify import verify

COUNTS = CATALOG.names("batch", "counting", wall=False)
FAULTS = CATALOG.names("batch", "faults")


@pytest.fixture(autouse=True)
def cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("CNSIM_CACHE", str(tmp_path_factory.getbasetemp() / "worlds"))


def scenario(faults=None, n_events=80, approaches=None, churn=None, **sections):
    tables = {
        "seed": 4,
        "objects": {"count": 150},
        "subscriptions": {"count": 300, "k": 3},
        "events": {"count": n_events},
        "network": {"ip_nodes": 200, "brokers": 16},
        "run": {"progress": False},
        "algorithm": {"approaches": approaches or ["paint-dense", "paint-sparse", "unicast",
                                                   "cn-relax"]},
        "faults": {"rate": 0.1, "repair_time": 20.0, "detection": 4}
        if faults is None else faults,
    }  # fmt: skip
    if churn is not None:
        tables["churn"] = churn
    for section, values in sections.items():
        tables[section] = {**tables.get(section, {}), **values}
    return from_dict(tables)


@pytest.mark.parametrize(
    "extra",
    [
        {},
        {"subscriptions": {"kind": "box", "dims": 2}},
        {"subscriptions": {"kind": "range-1.5d"}},
        {"churn": {"joins": 2.0, "lifetime": "exponential", "mean_lifetime": 40.0}},
        {"events": {"batch_size": 3, "inserts": 0.1, "deletes": 0.1}},
    ],
    ids=["range", "box", "range-1.5d", "churn", "batches"],
)
def test_every_list_not_lost_is_exact_and_the_loss_is_counted(extra):
    approaches = None
    if "events" in extra:
        approaches = ["paint-batch(paint-dense)", "paint-sparse", "unicast", "cn-relax"]
    s = scenario(approaches=approaches, **extra)
    report = verify(s)
    assert report.ok, report.text()
    frame, summary = run(s)
    rows = frame[frame.approach == "paint-sparse"]
    assert rows["failures"].sum() >= 3 and frame["lost_msgs"].sum() > 0  # CN-Relax's, at least
    assert rows["resubscriptions"].sum() > 0 and rows["repairs"].sum() > 0


def test_a_lost_zone_is_exact_again_after_the_detection_delay():
    """One failure at event 10, detection 5, never repaired: the zone's subscriptions
    are lost over events 10-14 and re-subscribe before event 15, all of them."""
    s = scenario({"brokers": [3], "at": [10], "detection": 5})
    sim = Simulation(s)
    zone = int(np.flatnonzero(sim.network.zones.owner == 3)[0])
    held = len(sim.network.zone_subscriptions(zone))
    lost = {}
    for b, outcomes in sim.steps():
        o = outcomes["paint-dense"]
        lost[b] = (o.faults["lost_subs"], o.faults["resubscriptions"])
    assert all(lost[b] == (0, 0) for b in range(10))
    assert all(lost[b] == (held, 0) for b in range(10, 15))
    assert lost[15] == (0, held) and all(lost[b] == (0, 0) for b in range(16, 80))
    report = verify(s)
    assert report.ok, report.text()
    frame, summary = run(s)
    assert summary["approaches"]["unicast"]["repair_events"] == 5.0
    # every notification dropped over events 10-14 arrives with the re-subscription
    # before event 15: late by 15 - its event
    rows = frame[frame.approach == "cn-relax"]
    lost = rows["lost_msgs"].to_numpy()
    assert lost[:10].sum() == 0 and lost[15:].sum() == 0 and lost.sum() > 0
    s_relax = summary["approaches"]["cn-relax"]
    assert s_relax["late_msgs"] == lost.sum()
    delay = (lost[10:15] * (15 - np.arange(10, 15))).sum() / lost.sum()
    assert s_relax["late_delay_events"] == pytest.approx(delay)


def test_takeover_goes_to_the_smallest_neighbour_and_repair_gives_back():
    s = scenario({"brokers": [5], "at": [2], "repair_time": 1e-9, "replication": 1})
    sim = Simulation(s)
    net = sim.network
    zones = net.zones
    zone = int(np.flatnonzero(zones.owner == 5)[0])
    nbr = zones.neighbours(zone)
    smallest = nbr[np.lexsort((nbr, zones.volumes()[nbr]))[0]]
    expected = int(zones.owner[smallest])
    held_before = net.held.copy()
    steps = sim.steps()
    for _ in range(3):  # events 0, 1, 2: the failure before event 2
        b, outcomes = next(steps)
    assert zones.owner[zone] == expected
    subs = net.zone_subscriptions(zone)
    assert (net.gateway[subs] == expected).all()
    assert net.held[5] == 0 and net.held[expected] == held_before[expected] + held_before[5]
    assert outcomes["paint-dense"].faults["lost_subs"] == 0  # the replica serves
    b, outcomes = next(steps)  # back before event 3: the zone handed back
    assert zones.owner[zone] == 5 and (net.held == held_before).all()
    f = outcomes["paint-dense"].faults
    assert f["repairs"] == 1 and f["repair_msgs"] == 1
    assert f["repair_bytes"] == held_before[5] * 4 * 3  # (l, r) and an id, 4 bytes each
    hops = int(net.world.broker_hops[expected, 5])
    assert f["repair_ip_bytes"] == f["repair_bytes"] * hops


def test_timed_mode_counts_what_counting_mode_counts():
    s = scenario(run={"mode": "timed", "progress": False})
    timed, summary = run(s)
    times = publication_times(s["timing"], 80, Seeds(s.seed))
    counting, _ = run(scenario())
    pd.testing.assert_frame_equal(timed[COUNTS + FAULTS], counting[COUNTS + FAULTS])
    assert timed["failures"].sum() >= 3 and summary["simulated_time_s"] > 0
    assert timed["latency_last_s"].notna().any()
    for name, s in summary["approaches"].items():  # stale count x time to the next event
        part = timed[timed.approach == name]
        spans = np.diff(np.append(times, summary["simulated_time_s"]))
        want = float((part["stale_subs"] * spans).sum())
        assert s["stale_subscriber_s"] == pytest.approx(want)
    assert summary["approaches"]["cn-relax"]["stale_subscriber_s"] > 0


def test_replicas_lose_nothing():
    frame, summary = run(scenario({"rate": 0.05, "repair_time": 15.0, "replication": 2}))
    assert frame["failures"].sum() >= 3
    assert (frame["lost_subs"] == 0).all() and (frame["lost_msgs"] == 0).all()
    assert summary["approaches"]["cn-relax"]["repair_events"] is None  # none was lost


def test_without_faults_the_run_is_unchanged_and_a_seed_gives_one_run():
    plain, summary = run(scenario({}))
    defaults = {"rate": 0.0, "brokers": [], "at": [], "repair_time": 0.0, "replication": 0,
                "detection": 10}  # fmt: skip
    again, _ = run(scenario(defaults))
    pd.testing.assert_frame_equal(plain[COUNTS], again[COUNTS])
    assert "faults" not in summary["scenario"] and not set(FAULTS) & set(plain.columns)
    a, _ = run(scenario())
    b, _ = run(scenario())
    pd.testing.assert_frame_equal(a[COUNTS + FAULTS], b[COUNTS + FAULTS])


@pytest.mark.parametrize(
    ("faults", "extra", "words"),
    [
        ({"rate": -0.5}, {}, r"faults.rate = -0.5"),
        ({"rate": float("nan")}, {}, r"faults.rate = nan"),
        ({"brokers": [99], "at": [3]}, {}, r"faults.brokers = \[99\] names brokers the network"),
        ({"brokers": [2, 3], "at": [3]}, {}, r"faults.at = \[3\] does not give one event"),
        ({"brokers": [2], "at": [500]}, {}, r"faults.at = \[500\] names events the run"),
        ({"rate": 0.1}, {"overlay": {"kind": "ideal"}}, r"faults.rate = 0.1 needs an overlay"),
        ({"rate": 0.1, "brokers": [2], "at": [1]}, {}, r"faults.rate = 0.1 is set beside"),
        ({"replication": 1}, {}, r"faults.replication = 1 is read only when brokers or links fail"),
    ],
)
def test_bad_faults_are_refused_in_one_line(faults, extra, words):
    with pytest.raises(ConfigError, match=words) as e:
        scenario(faults, **extra)
    assert "\n" not in str(e.value)


def test_more_replicas_than_neighbours_and_the_servers_broker_are_refused():
    with pytest.raises(ConfigError, match=r"faults.replication = 64 is more than the \d+ neigh"):
        Simulation(scenario({"rate": 0.1, "replication": 64}))
    server = Simulation(scenario({})).network.server
    with pytest.raises(ConfigError, match=rf"names broker {server}, the server's"):
        Simulation(scenario({"brokers": [server], "at": [1]}))


# -- the content-based overlay: the tree built anew -------------------------------------------


def tree_scenario(covering="g1", faults=None, **sections):
    s = {"overlay": {"kind": "content-based", "covering": covering}}
    return scenario(faults, approaches=["cn-relax"], **{**s, **sections})


@pytest.mark.parametrize("covering", ["none", "g1", "poset"])
def test_over_the_tree_deliveries_are_the_ideal_ones_but_to_the_lost(covering):
    report = verify(tree_scenario(covering))
    assert report.ok, report.text()


def test_covering_repairs_the_tree_with_fewer_messages_than_flooding():
    runs = {c: run(tree_scenario(c))[0] for c in ("none", "g1", "poset")}
    for frame in runs.values():  # the same failures, losses and re-subscriptions
        pd.testing.assert_frame_equal(
            frame[["failures", "lost_msgs", "resubscriptions"]],
            runs["none"][["failures", "lost_msgs", "resubscriptions"]],
        )
    msgs = {c: int(f["repair_msgs"].sum()) for c, f in runs.items()}
    assert msgs["poset"] <= msgs["g1"] < msgs["none"]


def test_a_failed_brokers_subscribers_are_lost_until_they_re_subscribe():
    s = tree_scenario(faults={"brokers": [6], "at": [10], "detection": 5})
    sim = Simulation(s)
    homed = int((sim.network.home == 6).sum())
    assert homed > 0
    seen = {b: (o["cn-relax"].faults["lost_subs"], o["cn-relax"].faults["resubscriptions"])
            for b, o in sim.steps()}  # fmt: skip
    assert all(seen[b] == (homed, 0) for b in range(10, 15)) and seen[15] == (0, homed)
    assert (sim.network.home != 6).all()  # re-subscribed elsewhere
    assert sim.network.broker_load()["subscriptions_held"][6] == 0


@pytest.mark.parametrize(
    ("faults", "extra", "words"),
    [
        ({"rate": 0.1, "replication": 1}, {}, r"faults.replication = 1 applies to the Meghdoot"),
        ({"rate": 0.1}, {"run": {"mode": "timed", "progress": False}}, r"timed mode does not"),
    ],
)
def test_what_the_tree_does_not_take_is_refused(faults, extra, words):
    with pytest.raises(ConfigError, match=words):
        tree_scenario(faults=faults, **extra)


def test_faults_in_a_command_stream_are_refused():
    with pytest.raises(ConfigError, match=r"faults.rate = 0.1 does not apply to seed 001"):
        from_dict({
            "subscriptions": {"kind": "box", "dims": 2, "count": 100},
            "overlay": {"kind": "content-based"},
            "algorithm": {"approaches": ["cn-relax"]},
            "network": {"ip_nodes": 200, "brokers": 16},
            "faults": {"rate": 0.1},
        })


def test_a_failed_link_rebuilds_the_tree_and_loses_nobody():
    s = tree_scenario(faults={"link_rate": 0.1, "repair_time": 10.0})
    report = verify(s)
    assert report.ok, report.text()
    frame, _ = run(s)
    assert frame["link_failures"].sum() >= 3 and frame["failures"].sum() == 0
    assert (frame["lost_subs"] == 0).all() and frame["repair_msgs"].sum() > 0
    sim = Simulation(s)
    for _step in sim.steps():
        edges = {tuple(e) for e in sim.network.faults.edges.tolist()}
        assert not edges & set(sim.network.faults.cut)  # no failed link in the tree


def test_link_failures_are_the_tree_overlays_only():
    with pytest.raises(ConfigError, match=r"faults.link_rate = 0.1 applies to the content"):
        scenario({"link_rate": 0.1})


@pytest.mark.parametrize("overlay", ["meghdoot", "content-based"])
def test_an_event_enters_at_a_broker_up(overlay):
    """A publisher whose nearest broker is down publishes at the broker up nearest it:
    its IP hops are to that one (and its events route from there)."""
    s = scenario({"rate": 0.15, "repair_time": 10.0, "detection": 4},
                 overlay={"kind": overlay}, approaches=["cn-relax"])  # fmt: skip
    sim = Simulation(s)
    e = sim.network.endpoints
    hops = sim.network.world.node_hops
    down_entries = 0
    for b, outcomes in sim.steps():
        up = sim.network.faults.up
        broker = int(e.nearest_broker[b])
        assert up[broker]
        node = e.publisher_node[b]
        best = hops[np.flatnonzero(up), node].min()
        assert hops[broker, node] == best  # the nearest broker up
        assert outcomes["cn-relax"].publish_ip_hops == best
        down_entries += int(sim.network._publisher_broker[b] != broker)
    assert down_entries > 0  # some events did enter elsewhere


@pytest.mark.parametrize("r", [0, 1, 2])
def test_replicas_are_kept_current_by_a_message_per_holder(r):
    """With churn, each join and leave updates its zone's r replica holders up (the
    run's join_forward_msgs over Meghdoot)."""
    churn = {"joins": 2.0, "lifetime": "exponential", "mean_lifetime": 40.0}
    frame, _ = run(scenario({"rate": 0.02, "repair_time": 10.0, "replication": r},
                            churn=churn, approaches=["paint-dense"]))  # fmt: skip
    changes = int(frame["joins"].sum() + frame["leaves"].sum())
    sent = int(frame["join_forward_msgs"].sum())
    assert changes > 100
    assert r * changes * 0.9 <= sent <= r * changes  # holders down send nothing
