"""Timed mode for seed 001's command stream (cnsim.simulations.timed.StreamClock): the
same counts as counting mode, delays and latencies against tree-distance oracles,
queues."""

import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import shortest_path

from cnsim.simulations.config import from_dict
from cnsim.simulations.runner import StreamSimulation, simulate
from cnsim.simulations.timed import Timer, command_times


@pytest.fixture(autouse=True)
def cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("CNSIM_CACHE", str(tmp_path_factory.getbasetemp() / "worlds"))


def scenario(covering="g1", mode="timed", service=1e-5, bandwidth=100.0, d=2, **kw):
    return from_dict(
        {
            "seed": 11,
            "subscriptions": {"count": 240, "churn": 0.25, "kind": "box", "dims": d},
            "events": {"count": 60},
            "network": {"ip_nodes": 300, "brokers": 18},
            "overlay": {"kind": "content-based", "covering": covering, "covering_k": 2},
            "algorithm": {"approaches": ["cn-relax"]},
            "run": {"progress": False, "mode": mode},
            "timing": {"rate": 50.0, "broker_service_s": service, "bandwidth_mbps": bandwidth},
            **kw,
        }
    )


@pytest.mark.parametrize("covering", ["none", "g1", "gk", "full", "poset"])
def test_timed_and_counting_modes_agree_on_every_count(covering):
    timed = simulate(scenario(covering))
    counting = simulate(scenario(covering, mode="counting"))
    for col in counting.events.columns:
        assert timed.events[col].tolist() == counting.events[col].tolist(), col
    assert timed.summary["totals"] == counting.summary["totals"]
    b = timed.brokers
    t = timed.summary["totals"]
    # every broker serves: each command at its home, each subscription message at its
    # receiver, each event at its publisher's broker and at every hop's end
    hops = timed.events["overlay_bytes"].sum() // 16
    want = timed.summary["commands"] + t["sub_msgs"] + t["unsub_msgs"] + len(timed.events) + hops
    assert b["messages_served"].sum() == want
    assert ((b["utilisation"] >= 0) & (b["utilisation"] <= 1)).all()
    ev = timed.events
    hit = ev["delivered_msgs"] > 0
    assert (ev.loc[hit, "latency_first_s"] <= ev.loc[hit, "latency_last_s"]).all()
    assert (ev.loc[hit, "latency_first_s"] > 0).all()
    assert ev.loc[~hit, "latency_last_s"].isna().all()


def tree_distances(network):
    """Seconds between brokers along the overlay tree."""
    t, lat = network.tree, np.asarray(network.world.broker_latency, float) / 1000.0
    w = csr_matrix((lat[t.src, t.nbr] + 1e-12, (t.src, t.nbr)), shape=(t.n, t.n))
    return shortest_path(w, directed=False)


@pytest.mark.parametrize("covering", ["none", "g1"])
def test_delays_and_latencies_follow_the_tree_without_queueing(covering):
    sc = scenario(covering, service=0.0, bandwidth=1e9)
    sim = StreamSimulation(sc)
    timer = Timer(sim, sc)
    list(timer.replay(sim.steps()))
    clock, net = timer.clocks["cn-relax"], sim.network
    dist = tree_distances(net)
    st, home = sim.commands.stream, net.home
    delay = clock.delays()
    eps = 1e-6
    for c in range(len(st)):
        s = int(st.sid[c])
        h = home[s]
        if covering == "none":  # the whole tree hears every command
            assert net.subscription_messages() is None
            want = clock.sub_last[s] + dist[h].max()
        else:  # the farthest broker a message of c reached
            m = net.subscription_messages()
            dst = m["dst"][m["cmd"] == c]
            want = clock.sub_last[s] + (dist[h, dst].max() if len(dst) else 0.0)
        assert abs(delay[c] - want) < eps, (c, delay[c], want)
    for e, (broker, subs, _, _) in enumerate(clock.paths):
        if not len(subs):
            continue
        reach = clock.pub_entry[e] + dist[broker, home[subs]] + clock.sub_last[subs]
        assert abs(clock.latency[e, 0] - reach.min()) < eps
        assert abs(clock.latency[e, 1] - reach.max()) < eps


def test_queues_build_up_when_brokers_are_slow():
    fast = simulate(scenario("g1", service=1e-6))
    slow = simulate(scenario("g1", service=2e-2))
    assert slow.brokers["wait_max_s"].max() > 0 and fast.brokers["wait_max_s"].max() < 1e-3
    assert (
        slow.summary["subscription_delay_s"]["mean"] > fast.summary["subscription_delay_s"]["mean"]
    )
    assert slow.events["latency_last_s"].mean() > fast.events["latency_last_s"].mean()
    again = simulate(scenario("g1", service=2e-2))
    assert again.events.equals(slow.events)  # deterministic
    assert again.brokers.equals(slow.brokers)


def test_commands_are_issued_between_their_events():
    t = np.array([1.0, 2.0, 4.0])
    after = np.array([1, 1, 4])  # commands 0-1 before event 0, none before 1, 2-4 before 2
    times = command_times(t, after, 7)
    assert np.allclose(times[:2], [1 / 3, 2 / 3])
    assert np.allclose(times[2:5], [2.5, 3.0, 3.5])
    assert (times[5:] > 4.0).all() and np.all(np.diff(times) > 0)


@pytest.mark.parametrize("covering", ["g1", "poset"])  # batch replay, reference brokers
def test_timed_cn_relax_over_content_based_ranges_counts_as_counting(covering):
    from cnsim.simulations.runner import simulate

    base = {
        "seed": 2,
        "objects": {"count": 300},
        "subscriptions": {"count": 500, "k": 3},
        "events": {"count": 40},
        "network": {"ip_nodes": 300, "brokers": 20},
        "overlay": {"kind": "content-based", "covering": covering},
        "algorithm": {"approaches": ["cn-relax"]},
    }
    timed = simulate(from_dict({**base, "run": {"progress": False, "mode": "timed"}})).events
    counting = simulate(from_dict({**base, "run": {"progress": False}})).events
    for col in counting.columns:
        if not col.endswith("_s"):  # wall times differ
            assert timed[col].equals(counting[col]), col
    assert (timed["latency_last_s"] >= timed["latency_first_s"]).all()


def test_an_event_at_its_broker_before_its_route_is_served_at_its_own_arrival():
    """The driver stops at each publication time as SimPy rounds it; an event whose
    publisher sits on its broker's node can reach the broker before the driver hands
    over its route. Here the route of every event that arrives before all later ones
    is handed over 0.1 µs after it arrived: each is served at its own arrival, so the
    run comes out as when every route is there first."""
    sc = scenario("g1", service=1e-3)
    sim = StreamSimulation(sc)
    timer = Timer(sim, sc)
    list(timer.replay(sim.steps()))
    want = timer.clocks["cn-relax"]
    sim = StreamSimulation(sc)
    late = Timer(sim, sc)
    clock, endpoints = late.clocks["cn-relax"], sim.network.endpoints
    arrival = late.times + clock.pub_entry
    first_later = np.append(np.minimum.accumulate(arrival[::-1])[::-1][1:], np.inf)
    early = arrival < first_later  # no later event arrives before it
    for e, outcomes in sim.steps():
        stop = min(arrival[e] + 1e-7, first_later[e]) if early[e] else late.times[e]
        if stop > late.env.now:
            late.env.run(until=stop)
        assert (e in clock._early) == early[e]  # at its broker, no route yet
        for name, o in outcomes.items():
            late.clocks[name].publish(e, endpoints.entry_delay_s(o.spec, e), o)
    late.env.run()
    assert not clock._early and early.sum() > len(early) // 2
    got, ref = clock.columns(), want.columns()
    for name in ref:
        assert np.allclose(got[name], ref[name], rtol=0, atol=1e-12, equal_nan=True), name
    for name, values in want.broker_columns().items():
        assert np.allclose(clock.broker_columns()[name], values, rtol=0, atol=1e-12), name
