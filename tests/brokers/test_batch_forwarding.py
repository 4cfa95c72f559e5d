"""The batch replay of the content-based overlay (cnsim.brokers.batch_forwarding)
against the reference brokers (cnsim.brokers.forwarding, message by message) and
brute force: the same messages, covering work, routing entries, hops and deliveries."""

import numpy as np
import pandas as pd
import pytest
from streams import check_steps, checked_rows

from cnsim.brokers.batch_forwarding import (
    BatchForwarding,
    EventRouter,
    link_order,
    rooted,
)
from cnsim.brokers.forwarding import Covering, Forwarding
from cnsim.brokers.spanning import degree_bounded_tree, tree_of
from cnsim.errors import InputError
from cnsim.simulations.config import from_dict
from cnsim.simulations.runner import StreamSimulation, simulate
from cnsim.simulations.verify import verify
from cnsim.subscriptions.covering.workload import SUBSCRIBE, command_stream

BITS = 4  # a coarse domain: many covering pairs, identical boxes, shared edges


@pytest.fixture(autouse=True)
def cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("CNSIM_CACHE", str(tmp_path_factory.getbasetemp() / "worlds"))


def random_tree(n, degree=3, seed=0):
    pts = np.random.default_rng(seed).random((n, 2))
    lat = np.linalg.norm(pts[:, None] - pts[None], axis=2)
    return tree_of(degree_bounded_tree(lat, degree), n)


@pytest.mark.parametrize("n, degree", [(1, 2), (2, 2), (9, 2), (30, 3), (30, 29)])
def test_every_link_comes_after_the_links_it_hears_from(n, degree):
    tree = random_tree(n, degree, seed=n)
    order = link_order(tree)
    assert sorted(order.tolist()) == list(range(tree.n_links))
    pos = np.empty(tree.n_links, np.int64)
    pos[order] = np.arange(len(order))
    for j in range(tree.n_links):  # u -> v hears from every w -> u, w != v
        u, v = tree.src[j], tree.nbr[j]
        for i in tree.links(u):
            if tree.nbr[i] != v:
                assert pos[tree.rev[i]] < pos[j]
    parent, depth, bfs = rooted(tree)
    assert bfs[0] == 0 and sorted(bfs.tolist()) == list(range(n))
    assert (depth[1:] == depth[parent[1:]] + 1).all() if n > 1 else True


def reference_counts(tree, d, covering, k, index, stream, homes):
    """Per-command counters of the reference brokers, and their final entries."""
    f = Forwarding(tree, d, Covering(covering, k, index), (0, 2**BITS - 1))
    rows = []
    for i in range(len(stream)):
        before = f.stats()
        s = int(stream.sid[i])
        if stream.op[i] == SUBSCRIBE:
            f.subscribe(s, homes[s], stream.lo[s], stream.hi[s])
        else:
            f.unsubscribe(s)
        now = f.stats()
        rows.append([now[c] - before[c] for c in COUNTS] + [f.entries.max(initial=0)])
    return np.array(rows), f


COUNTS = [
    "sub_msgs",
    "unsub_msgs",
    "withdrawals",
    "covering_sub_queries",
    "covering_sub_nodes_visited",
    "covering_sub_point_comparisons",
    "covering_unsub_queries",
    "covering_unsub_nodes_visited",
    "covering_unsub_point_comparisons",
]


@pytest.mark.parametrize(
    "covering, k", [("none", 1), ("g1", 1), ("gk", 3), ("full", 1), ("poset", 1)]
)
@pytest.mark.parametrize(
    "index, d", [("kdtree", 1), ("naive", 2), ("zorder", 3), ("kdtree", 2), ("kdtree", 8)]
)
@pytest.mark.slow
def test_batch_replay_sends_what_the_reference_brokers_send(covering, k, index, d):
    tree = random_tree(13, 3, seed=d)
    stream = command_stream(250, d, 0.35, seed=10 + d, bits=BITS)
    homes = np.random.default_rng(d).integers(tree.n, size=len(stream))
    want, ref = reference_counts(tree, d, covering, k, index, stream, homes)
    b = BatchForwarding(tree, d, Covering(covering, k, index), (0, 2**BITS - 1))
    b.replay(stream.op, stream.sid, homes, stream.lo, stream.hi)
    _, mx = b.entries_after(np.arange(len(stream)))  # after every command
    got = np.column_stack([b.sub_msgs, b.unsub_msgs, b.withdraw_msgs, b.cover, mx])
    assert np.array_equal(got, want)
    if covering in ("full", "poset") and d <= 3:  # the withdrawals were exercised
        assert b.withdraw_msgs.sum() > 0
    assert np.array_equal(b.routing_entries(), ref.routing_entries())
    assert np.array_equal(b.local_subscriptions(), ref.local_subscriptions())
    totals = {k: v for k, v in ref.stats().items() if not k.startswith("match_")}
    assert {k: v for k, v in b.stats().items() if not k.startswith("match_")} == totals


@pytest.mark.parametrize("d", [1, 2, 4])
def test_events_take_the_reference_brokers_hops_in_their_order(d):
    tree = random_tree(17, 3, seed=d)
    stream = command_stream(200, d, 0.3, seed=d, bits=BITS)
    homes = np.random.default_rng(d).integers(tree.n, size=len(stream))
    f = Forwarding(tree, d, Covering("g1"), (0, 2**BITS - 1))
    router = EventRouter(tree, d, homes)
    live = np.zeros(len(stream), bool)
    rng = np.random.default_rng(7)
    for i in range(len(stream)):
        s = int(stream.sid[i])
        if stream.op[i] == SUBSCRIBE:
            f.subscribe(s, homes[s], stream.lo[s], stream.hi[s])
            router.subscribe(s, stream.lo[s], stream.hi[s])
        else:
            f.unsubscribe(s)
            router.unsubscribe(s)
        live[s] = stream.op[i] == SUBSCRIBE
        for _ in range(2):
            x = rng.integers(0, 2**BITS, d).astype(float)
            b = int(rng.integers(tree.n))
            subs, frm, to = router.publish(b, x)
            r_subs, r_frm, r_to = f.publish(b, x)
            assert np.array_equal(frm, r_frm) and np.array_equal(to, r_to)
            want = np.flatnonzero(
                live & (stream.lo <= x).all(axis=1) & (x <= stream.hi).all(axis=1)
            )
            assert np.array_equal(np.sort(subs), want) and len(np.unique(subs)) == len(subs)
            assert np.array_equal(np.sort(r_subs), want)
            # grouped by broker in visiting order: the brokers reached are the hops' ends
            assert set(homes[subs].tolist()) <= {b, *to.tolist()}
    assert router.match_cost[0] == 2 * len(stream)


def churn(covering, index="kdtree", d=2, commands=300, events=120, k=2, **kw):
    return from_dict(
        {
            "seed": 3,
            "subscriptions": {"count": commands, "churn": 0.3, "kind": "box", "dims": d},
            "events": {"count": events},
            "network": {"ip_nodes": 300, "brokers": 20},
            "overlay": {
                "kind": "content-based",
                "covering": covering,
                "covering_index": index,
                "covering_k": k,
            },
            "algorithm": {"approaches": ["cn-relax"]},
            "run": {"progress": False},
            **kw,
        }
    )


# The quick run compares each covering once, alternating between the two indexes; the
# full run compares every covering over both.
@pytest.mark.parametrize(
    "covering, index, d",
    [
        pytest.param(covering, index, d, marks=[] if i % 2 == j else [pytest.mark.slow])
        for i, covering in enumerate(["none", "g1", "gk", "full", "poset"])
        for j, (index, d) in enumerate([("kdtree", 2), ("zorder", 5)])
    ],
)
def test_churn_rows_equal_between_engines(covering, index, d):
    sc = churn(covering, index, d)
    ref, a = checked_rows(sc, "reference")  # each event against brute force
    bat, b = checked_rows(sc, "batch")
    assert not ref.network.batch and bat.network.batch
    assert list(a.columns) == list(b.columns)
    same = [c for c in a.columns if not c.startswith("match_")]
    pd.testing.assert_frame_equal(a[same], b[same])
    load_ref, load_bat = ref.network.broker_load(), bat.network.broker_load()
    assert np.array_equal(load_ref["cn-relax"], load_bat["cn-relax"])
    assert np.array_equal(load_ref["subscriptions_held"], load_bat["subscriptions_held"])
    assert (b["match_queries"] == 1).all()  # one query of the global index per event


def test_runs_use_the_batch_replay_where_it_applies_and_verify_compares_it():
    assert Covering("g1").batched and Covering("gk", 5).batched and Covering("none").batched
    assert Covering("poset").batched and Covering("full").batched
    assert not Covering("gk", 65).batched
    batched = [StreamSimulation(churn(c)).network.batch for c in ("g1", "poset")]
    assert all(batched)  # every setting
    assert not StreamSimulation(churn("full"), engine="reference").network.batch
    with pytest.raises(InputError, match="engine 'fast' is not one of auto, batch, reference"):
        StreamSimulation(churn("g1"), engine="fast")
    r = simulate(churn("gk", commands=200, events=50))
    assert r.summary["totals"]["match_queries"] == 50
    report = verify(churn("g1", commands=150, events=40))
    assert report.ok, report.text()
    for covering in ("full", "poset"):  # checks tables-hold-no-covered and churn-batch-agrees
        report = verify(churn(covering, commands=150, events=40))
        assert report.ok, report.text()


@pytest.mark.parametrize("index, d", [("kdtree", 2), ("naive", 1), ("zorder", 3)])
def test_g_and_the_poset_make_the_same_forwarding_decisions(index, d):
    """RESULTS' claim, on the reference brokers: every message, withdrawal and covering
    query (and its cost) the same, and every routing table the same set."""
    tree = random_tree(11, 3, seed=d)
    stream = command_stream(300, d, 0.35, seed=20 + d, bits=BITS)
    homes = np.random.default_rng(d).integers(tree.n, size=len(stream))
    g_rows, g = reference_counts(tree, d, "full", 1, index, stream, homes)
    p_rows, p = reference_counts(tree, d, "poset", 1, index, stream, homes)
    assert np.array_equal(g_rows, p_rows) and g_rows[:, 2].sum() > 0
    for a, b in zip(g.tables, p.tables, strict=True):
        assert (a is None and b is None) or np.array_equal(a.sids(), b.sids())
    assert g.covered_entries() == 0 and p.covered_entries() == 0


def test_verify_reports_a_g_batch_replay_that_disagrees(monkeypatch):
    import cnsim.brokers.batch_forwarding as bf

    real = bf.BatchForwarding.replay

    def lossy(self, *args):  # one withdrawal too few
        real(self, *args)
        self.withdraw_msgs[np.flatnonzero(self.withdraw_msgs)[0]] -= 1

    monkeypatch.setattr(bf.BatchForwarding, "replay", lossy)
    report = verify(churn("full", commands=150, events=40))
    assert not report.ok and "churn-batch-agrees" in report.text()


def test_verify_reports_a_batch_replay_that_disagrees(monkeypatch):
    import cnsim.brokers.batch_forwarding as bf

    real = bf.BatchForwarding.replay

    def lossy(self, *args):  # one subscription message too few
        real(self, *args)
        self.sub_msgs[np.flatnonzero(self.sub_msgs)[0]] -= 1

    monkeypatch.setattr(bf.BatchForwarding, "replay", lossy)
    report = verify(churn("g1", commands=100, events=30))
    assert not report.ok and "churn-batch-agrees" in report.text()


def test_content_based_network_builds_with_the_batch_replay(monkeypatch):
    sc = {
        "seed": 2,
        "objects": {"count": 200},
        "subscriptions": {"count": 400, "k": 3},
        "events": {"count": 30},
        "network": {"ip_nodes": 300, "brokers": 20},
        "algorithm": {"approaches": ["cn-relax"]},
        "run": {"progress": False},
    }
    frames = {}
    for covering in ("g1", "poset", "poset-reference"):  # batch replay; reference brokers
        if covering == "poset-reference":
            monkeypatch.setattr(Covering, "batched", property(lambda self: False))
        over = {"kind": "content-based", "covering": covering.split("-")[0]}
        frames[covering] = simulate(from_dict({**sc, "overlay": over})).events
    cols = ["delivered_msgs", "overlay_bytes", "ip_bytes", "last_hop_ip_bytes"]
    pd.testing.assert_frame_equal(frames["g1"][cols], frames["poset"][cols])
    pd.testing.assert_frame_equal(frames["g1"][cols], frames["poset-reference"][cols])


@pytest.mark.parametrize("covering", ["full", "poset"])
def test_the_message_log_of_g_and_the_poset_times_like_g_k(covering):
    """What timed mode needs for G and the poset: the kept message log
    (``keep_messages``) is complete and causal — every message's parent is a message of
    the same command into its sender, and, driven by ``StreamClock`` without queueing,
    every command's propagation delay is the tree distance to the farthest broker one
    of its messages (withdrawals included) reached, and every broker serves what
    counting mode counts."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import shortest_path

    from cnsim.simulations.timed import Timer

    sc = churn(covering, commands=240, events=60, run={"progress": False, "mode": "timed"},
               timing={"broker_service_s": 0.0, "bandwidth_mbps": 1e9})  # fmt: skip
    sim = StreamSimulation(sc)
    timer = Timer(sim, sc)
    rows = check_steps(sim, timer.replay(sim.steps()))
    clock, net = timer.clocks["cn-relax"], sim.network
    m, t = net.subscription_messages(), net.forwarding.stats()
    assert t["withdrawals"] > 0 and len(m["cmd"]) == t["sub_msgs"] + t["unsub_msgs"]
    par = m["parent"]
    kid = par >= 0
    assert (m["cmd"][par[kid]] == m["cmd"][kid]).all()
    assert (m["dst"][par[kid]] == m["src"][kid]).all()
    tr, lat = net.tree, np.asarray(net.world.broker_latency, float) / 1000.0
    w = csr_matrix((lat[tr.src, tr.nbr] + 1e-12, (tr.src, tr.nbr)), shape=(tr.n, tr.n))
    dist = shortest_path(w, directed=False)
    st, home, delay = sim.commands.stream, net.home, clock.delays()
    for c in range(len(st)):
        s = int(st.sid[c])
        dst = m["dst"][m["cmd"] == c]
        want = clock.sub_last[s] + (dist[home[s], dst].max() if len(dst) else 0.0)
        assert abs(delay[c] - want) < 1e-6, (c, delay[c], want)
    hops = sum(len(p[3]) for p in clock.paths)
    assert sum(clock.served) == len(st) + len(m["cmd"]) + len(rows) + hops
