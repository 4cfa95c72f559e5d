"""The servers of the distributed object database as brokers of the overlay (seed 003
appendix C): server j at a broker of its own, every message entering the overlay at
the broker of the server that generated it, and every neighbour step of a first_k /
min_y walk one walk message between the two servers' brokers."""

import numpy as np
import pandas as pd
import pytest

from cnsim.brokers.endpoints import diagonal_servers
from cnsim.errors import ConfigError
from cnsim.server.distributed import WALK_BYTES, DistributedIndex
from cnsim.server.object_index import EAST, WEST, ObjectIndex
from cnsim.simulations.config import from_dict
from cnsim.simulations.runner import Simulation, simulate
from cnsim.simulations.verify import verify

MEGHDOOT = {
    "seed": 11,
    "objects": {"count": 120, "distribution": "clustered"},
    "subscriptions": {"count": 1200, "k": 4},
    "events": {"count": 80, "inserts": 0.1, "deletes": 0.1, "moves": 0.1},
    "network": {"ip_nodes": 300, "brokers": 30},
    "algorithm": {"approaches": ["paint-dense", "paint-sparse", "unicast", "cn-relax"]},
    "run": {"progress": False},
}


@pytest.fixture(autouse=True)
def cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("CNSIM_CACHE", str(tmp_path_factory.getbasetemp() / "worlds"))


def _links_between(s: int, first: int, last: int) -> np.ndarray:
    """One walk message over each link first .. last - 1 (link j: servers j, j + 1)."""
    out = np.zeros(s - 1, np.int64)
    out[first:last] = 1
    return out


def test_walk_messages_and_ip_hops_equal_a_step_by_step_oracle():
    rng = np.random.default_rng(5)
    n, s = 400, 9
    x, y = rng.random(n), rng.random(n)
    single, index = ObjectIndex(x, y), DistributedIndex(x, y, s)
    weights = rng.integers(1, 9, s - 1)
    index.counter.weigh_links(weights)
    zones = index.zones
    links = np.zeros(s - 1, np.int64)
    for _ in range(300):
        i = int(rng.integers(n))
        k = int(rng.integers(1, 60))
        index.route(x[i])
        start = int(zones.owner(x[i]))
        for direction, end in ((WEST, 0), (EAST, s - 1)):
            want = single.first_k(x[i], y[i], direction, k, i)
            got = index.first_k(x[i], y[i], direction, k, i)
            assert np.array_equal(got, want)
            # the walk stops at the server of the k-th object found, else at the end (first_k
            # returns x-values)
            last = int(zones.owner(want[k - 1])) if len(want) == k else end
            links += _links_between(s, min(start, last), max(start, last))
        lo, hi = np.sort(rng.random(2))
        a, b = int(zones.owner(lo)), int(zones.owner(hi))
        assert index.min_y(lo, hi, y[i], i) == single.min_y(lo, hi, y[i], i)
        links += _links_between(s, min(a, start), max(b, start))
    lo, hi = np.sort(rng.random((2, 50)), axis=0)
    y0, id0 = rng.random(50), rng.integers(n, size=50)
    index.route(0.5)
    got = index.min_y_many(lo, hi, y0, id0)
    assert np.array_equal(got, single.min_y_many(lo, hi, y0, id0))
    start = int(zones.owner(0.5))
    for lo_, hi_ in zip(lo, hi, strict=True):
        a, b = int(zones.owner(lo_)), int(zones.owner(hi_))
        links += _links_between(s, min(a, start), max(b, start))
    c = index.counter
    assert np.array_equal(c.link_msgs(), links)
    assert links.sum() == c.hops_first_k + c.hops_min_y  # walk messages = traversals
    assert c.walk_ip_hops == int((links * weights).sum())
    assert c.as_dict()["walk_ip_hops"] == c.walk_ip_hops
    handled = np.zeros(s, np.int64)
    handled[:-1] += links
    handled[1:] += links
    assert np.array_equal(c.walks_handled(), handled)


def test_servers_on_distinct_brokers_along_the_diagonal():
    sim = Simulation(from_dict({**MEGHDOOT, "server": {"count": 6}}))
    ends, can = sim.network.endpoints, sim.network.zones
    brokers = ends.server_brokers
    assert len(brokers) == 6 and len(set(brokers.tolist())) == 6
    assert brokers.max() < sim.network.world.n_brokers
    again = Simulation(from_dict({**MEGHDOOT, "server": {"count": 6}}))
    assert np.array_equal(again.network.endpoints.server_brokers, brokers)
    # server j at the zone of the diagonal point in the middle of its x-zone, unless a
    # server to its west took that zone first
    bounds = sim.server_load.zones.bounds
    m = (np.concatenate([[0.0], bounds]) + np.concatenate([bounds, [1.0]])) / 2
    zone = can.zone_of((m, m))
    assert can.owner[zone[0]] == brokers[0]
    for j in range(1, 6):
        if zone[j] not in zone[:j]:
            assert can.owner[zone[j]] == brokers[j]
    # as many servers as zones: every zone gets one, in order along the diagonal first
    every = diagonal_servers(can, np.linspace(0, 1, can.n_zones + 1)[1:-1])
    assert sorted(every.tolist()) == list(range(can.n_zones))
    m = (np.arange(can.n_zones) + 0.5) / can.n_zones
    assert every[0] == can.zone_of((m[:1], m[:1]))[0]
    hops = sim.network.world.broker_hops
    assert np.array_equal(ends.server_link_ip_hops(), hops[brokers[:-1], brokers[1:]])
    one = Simulation(from_dict(MEGHDOOT))
    assert one.network.endpoints.server_brokers is None
    assert one.server_load is None


def test_more_servers_than_brokers_is_a_one_line_config_error():
    with pytest.raises(
        ConfigError, match=r"^<dict>: server.count = 31 is more than the brokers"
    ) as e:
        from_dict({**MEGHDOOT, "server": {"count": 31}})
    assert "allowed: at most network.brokers = 30" in str(e.value)
    assert "\n" not in str(e.value)
    from_dict({**MEGHDOOT, "server": {"count": 30}})
    from_dict({**MEGHDOOT, "overlay": {"kind": "ideal"}, "server": {"count": 31}})


def test_verify_passes_with_4_servers_over_meghdoot():
    # batches of 5: Paint-Batch's messages leave from the servers of their objects
    approaches = [*MEGHDOOT["algorithm"]["approaches"], "paint-batch"]
    for batch in (1, 5):
        scenario = from_dict({**MEGHDOOT, "server": {"count": 4},
                              "events": {**MEGHDOOT["events"], "batch_size": batch},
                              "algorithm": {"approaches": approaches}})  # fmt: skip
        report = verify(scenario)
        assert report.ok, report.text()
        assert "paint-batch(paint-dense)" in report.text()


def test_every_message_enters_at_the_broker_of_its_server():
    sim = Simulation(from_dict({**MEGHDOOT, "server": {"count": 4}}))
    net, ev = sim.network, sim.workload.events
    ends = net.endpoints
    zones = sim.server_load.zones
    entered = {}  # approach -> brokers the messages left from
    for b, outcomes in sim.steps():
        servers = set(zones.owner(ev.x[ev.start[b] : ev.start[b + 1]]).tolist())
        own = {int(net.zone_of_broker[ends.server_brokers[j]]) for j in servers}
        for name, o in outcomes.items():
            if not len(o.messages) or o.spec.entry != "server":
                continue
            sources = set(o.traffic.paths.source.tolist())
            assert sources <= own, (name, b)
            if len(servers) == 1:
                assert sources == own
            entered.setdefault(name, set()).update(sources)
    every = {int(net.zone_of_broker[j]) for j in ends.server_brokers}
    for name in ("paint-dense", "paint-sparse", "unicast"):
        assert entered[name] == every  # all four servers sent messages
    # each server's broker handled at least the messages it sent
    load = net.broker_load()
    sent = {a.name: sim.server_load.messages[a.name] for a in sim.approaches
            if a.name in sim.server_load.messages}  # fmt: skip
    for name, msgs in sent.items():
        assert (load[name][ends.server_brokers] >= msgs).all()


def test_publish_hops_go_to_every_server_of_an_event():
    sim = Simulation(from_dict({**MEGHDOOT, "server": {"count": 4}}))
    ev, ends = sim.workload.events, sim.network.endpoints
    owner = sim.server_load.zones.owner(ev.x)
    spec = sim.approaches[0].spec
    world = sim.network.world
    want = 0
    for e in range(len(ev)):
        for j in sorted(set(owner[ev.start[e] : ev.start[e + 1]].tolist())):
            broker = ends.server_brokers[j]
            want += int(world.node_hops[broker, ends.publisher_node[e]])
    assert ends.publish_ip_hops(spec, 0, len(ev)) == want
    parts = [ends.publish_ip_hops(spec, f, min(f + 7, len(ev))) for f in range(0, len(ev), 7)]
    assert sum(parts) == want


def test_walk_metrics_in_the_run_and_servers_parquet():
    result = simulate(from_dict({**MEGHDOOT, "server": {"count": 5}}))
    frame, servers = result.events, result.servers
    sim = Simulation(from_dict({**MEGHDOOT, "server": {"count": 5}}))
    weights = sim.network.endpoints.server_link_ip_hops()
    assert (weights > 0).all()  # distinct brokers: no link of zero hops
    for name, part in frame.groupby("approach"):
        walks = part["server_walk_msgs"]
        assert (walks == part["traversed_first_k"] + part["traversed_min_y"]).all()
        if name == "cn-relax":
            assert walks.sum() == 0 and part["server_walk_ip_bytes"].sum() == 0
            continue
        assert walks.sum() > 0
        # bytes: WALK_BYTES per IP hop of each walk message; at least one hop a message
        ip = part["server_walk_ip_bytes"]
        assert (ip % WALK_BYTES == 0).all() and (ip >= walks * WALK_BYTES).all()
        rows = servers[servers.approach == name]
        assert rows["server_walks_handled"].sum() == 2 * walks.sum()
        s = result.summary["approaches"][name]
        assert s["total_server_walk_msgs"] == walks.sum()
        assert s["total_server_walk_ip_bytes"] == ip.sum()


def test_without_brokers_walks_are_counted_but_cost_no_ip_bytes():
    scenario = from_dict({**MEGHDOOT, "overlay": {"kind": "ideal"}, "server": {"count": 5}})
    frame = simulate(scenario).events
    paint = frame[frame.approach == "paint-dense"]
    assert paint["server_walk_msgs"].sum() > 0
    assert paint["server_walk_ip_bytes"].sum() == 0


def test_one_server_is_unchanged_by_the_server_brokers():
    # the single server: no walk columns, messages from the one server's zone
    result = simulate(from_dict(MEGHDOOT))
    assert "server_walk_msgs" not in result.events.columns
    assert result.servers is None
    sim = Simulation(from_dict(MEGHDOOT))
    server_zone = sim.network.zones.server_zone
    for _, outcomes in sim.steps():
        for o in outcomes.values():
            if o.spec.entry == "server" and len(o.messages):
                assert (np.asarray(o.traffic.paths.source) == server_zone).all()
    assert isinstance(result.events, pd.DataFrame)


def test_batch_messages_leave_from_the_servers_of_their_objects():
    scenario = from_dict({**MEGHDOOT, "server": {"count": 4},
                          "events": {**MEGHDOOT["events"], "batch_size": 5},
                          "algorithm": {"approaches": ["paint-batch"]}})  # fmt: skip
    sim = Simulation(scenario)
    net, ev, zones = sim.network, sim.workload.events, sim.server_load.zones
    brokers = net.endpoints.server_brokers
    mixed = 0
    for b, outcomes in sim.steps():
        (o,) = outcomes.values()
        if not len(o.messages):
            continue
        first, stop = b * 5, min(b * 5 + 5, len(ev))
        owner = zones.owner(ev.x[ev.start[first] : ev.start[stop]])
        if (owner == owner[0]).all():  # one server's batch: all its messages from it
            want = np.full(len(o.messages), owner[0])
        else:  # mixed: each message from the server owning the object it carries
            want = zones.owner(o.messages.x)
            mixed += 1
        assert np.array_equal(o.traffic.paths.source, net.zone_of_broker[brokers[want]])
    assert mixed > 0
