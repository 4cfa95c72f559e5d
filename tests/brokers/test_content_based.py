"""The content-based overlay (seed 001): the spanning tree, covering-pruned
subscription forwarding against brute force, and CN-Relax over it as over the ideal CN."""

import itertools

import numpy as np
import pytest
from scipy.sparse.csgraph import connected_components, minimum_spanning_tree

from cnsim.brokers.forwarding import COVERINGS, Covering, Forwarding
from cnsim.brokers.spanning import degree_bounded_tree, tree_of
from cnsim.errors import ConfigError
from cnsim.simulations.config import from_dict
from cnsim.simulations.runner import Simulation, run
from cnsim.simulations.verify import verify
from cnsim.subscriptions.covering import INDEXES
from cnsim.subscriptions.covering.workload import SUBSCRIBE, command_stream

BITS = 4  # a coarse domain: many covering pairs, identical boxes, shared edges


def random_tree(n=11, degree=3, seed=0):
    pts = np.random.default_rng(seed).random((n, 2))
    lat = np.linalg.norm(pts[:, None] - pts[None], axis=2)
    return tree_of(degree_bounded_tree(lat, degree), n), lat


# ---- the tree -------------------------------------------------------------------------------
@pytest.mark.parametrize("n, degree", [(1, 2), (2, 2), (7, 2), (40, 3), (40, 100)])
def test_tree_is_a_degree_bounded_spanning_tree(n, degree):
    tree, lat = random_tree(n, degree, seed=n)
    e = tree.edges()
    assert len(e) == n - 1 and tree.n_links == 2 * (n - 1)
    assert (tree.degree() <= degree).all()
    adj = np.zeros((n, n))
    adj[e[:, 0], e[:, 1]] = 1
    assert connected_components(adj, directed=False)[0] == 1
    assert (tree.nbr[tree.rev] == tree.src).all()
    assert (tree.rev[tree.rev] == np.arange(2 * len(e))).all()
    again, _ = random_tree(n, degree, seed=n)
    assert np.array_equal(again.edges(), e)  # deterministic
    if degree >= n - 1 and n > 1:  # unbounded: the minimum spanning tree
        mst = minimum_spanning_tree(lat).sum()
        assert np.isclose(lat[e[:, 0], e[:, 1]].sum(), mst)


# ---- forwarding against brute force ---------------------------------------------------------
def settings():
    """Every covering with every index, at d = 1 and d = 3. The quick run keeps half of
    them, pairwise: each covering and each index at both d, each pair at one of them."""
    for (i, covering), (j, index) in itertools.product(enumerate(COVERINGS), enumerate(INDEXES)):
        for d in (1, 3):
            full_only = d != (1, 3)[(i + j) % 2]
            yield pytest.param(covering, index, d, marks=[pytest.mark.slow] if full_only else [])


def replay(f, stream, homes, rng, check_every=1, events=3):
    """Run a command stream; after every ``check_every`` commands publish ``events``
    random points from random brokers and compare with brute force."""
    lo, hi = stream.lo, stream.hi
    live = np.zeros(len(stream), bool)
    top = 2**stream.bits
    for i in range(len(stream)):
        s = int(stream.sid[i])
        if stream.op[i] == SUBSCRIBE:
            f.subscribe(s, homes[s], lo[s], hi[s])
            live[s] = True
        else:
            f.unsubscribe(s)
            live[s] = False
        if i % check_every == 0:
            for _ in range(events):
                x = rng.integers(0, top, stream.d).astype(float)
                subs, hop_from, hop_to = f.publish(int(rng.integers(f.tree.n)), x)
                want = np.flatnonzero(live & (lo <= x).all(axis=1) & (x <= hi).all(axis=1))
                assert len(np.unique(subs)) == len(subs), "a subscription reached twice"
                assert np.array_equal(np.sort(subs), want), (i, x)
                assert len(set(hop_to.tolist())) == len(hop_to)  # a broker reached once
    return live


@pytest.mark.parametrize("covering, index, d", list(settings()))
def test_every_event_reaches_exactly_its_subscriptions(covering, index, d):
    tree, _ = random_tree(9, 3, seed=d)
    f = Forwarding(tree, d, Covering(covering, 2, index), (0, 2**BITS - 1))
    stream = command_stream(160, d, 0.3, seed=d, bits=BITS)
    homes = np.random.default_rng(d).integers(tree.n, size=len(stream))
    rng = np.random.default_rng(100 + d)
    live = replay(f, stream, homes, rng)
    check_tables(f, live)
    for s in np.flatnonzero(live):  # unsubscribing everything empties every table
        f.unsubscribe(int(s))
    assert f.routing_entries().sum() == 0 and f.local_subscriptions().sum() == 0


def check_tables(f: Forwarding, live: np.ndarray) -> None:
    """Each routing table is its link's forwarded set; every subscription its broker
    knows is forwarded or covered by a forwarded one; G and the poset keep no
    covered subscription in a table."""
    P = f.P
    for j in range(f.tree.n_links):
        table = f.tables[j]
        held = table.sids() if table is not None else np.empty(0, np.int64)
        assert live[held].all()
        if f.covering.floods:
            continue
        g = f.graphs[j]
        if g is None:
            assert not len(held)
            continue
        assert set(held.tolist()) == g.forwarded_set()
        known = np.array(sorted(g._slot), np.int64)
        fp = P[held]
        for s in known:  # covered by something forwarded (or forwarded itself)
            assert (fp >= P[s]).all(axis=1).any()
        if f.withdraws and len(held) > 1:
            # no held box contains another (identical boxes included: one covers the other)
            ge = (fp[:, None] >= fp[None]).all(axis=2)
            assert not (ge & ~np.eye(len(held), dtype=bool)).any(), "a covered one is held"


# G and the poset keep the same tables (test_batch_forwarding.py checks it command by
# command): the quick run checks each at two of the dimensions, the full run at all four.
@pytest.mark.parametrize(
    "covering, d",
    [
        pytest.param(c, d, marks=[pytest.mark.slow] if (c == "full") == (d in (2, 8)) else [])
        for c in ("full", "poset")
        for d in (1, 2, 4, 8)
    ],
)
def test_tables_never_hold_covered_subscriptions(covering, d):
    tree, _ = random_tree(12, 3, seed=d)
    f = Forwarding(tree, d, Covering(covering), (0, 2**BITS - 1))
    stream = command_stream(300, d, 0.25, seed=7 + d, bits=BITS)
    homes = np.random.default_rng(d).integers(tree.n, size=len(stream))
    live = np.zeros(len(stream), bool)
    for i in range(len(stream)):
        s = int(stream.sid[i])
        if stream.op[i] == SUBSCRIBE:
            f.subscribe(s, homes[s], stream.lo[s], stream.hi[s])
        else:
            f.unsubscribe(s)
        live[s] = stream.op[i] == SUBSCRIBE
        if i % 25 == 0:
            check_tables(f, live)
    check_tables(f, live)


# d = 5 takes twice as long as d = 1 and d = 2 together, d = 2 half again as long as
# d = 1: the quick run keeps d = 1 (boxes of every dimension are forwarded under each
# covering by test_every_event_reaches_exactly_its_subscriptions)
@pytest.mark.parametrize(
    "d", [1, pytest.param(2, marks=pytest.mark.slow), pytest.param(5, marks=pytest.mark.slow)]
)
def test_covering_forwards_no_more_subscriptions(d):
    tree, _ = random_tree(15, 3, seed=d)
    stream = command_stream(400, d, 0.0, seed=d, bits=BITS)
    homes = np.random.default_rng(d).integers(tree.n, size=len(stream))
    counts = {}
    for covering in COVERINGS:
        f = Forwarding(tree, d, Covering(covering, 3), (0, 2**BITS - 1))
        for s in range(len(stream)):
            f.subscribe(s, homes[s], stream.lo[s], stream.hi[s])
        counts[covering] = (f.sub_msgs, f.routing_entries().sum())
    assert counts["none"] == (400 * 14, 400 * 14)  # flooding: every link once
    for covering in COVERINGS[1:]:
        assert counts[covering][0] <= counts["none"][0]
        assert counts[covering][1] <= counts["none"][1]
    assert counts["poset"][1] == counts["full"][1] <= counts["g1"][1]


# ---- as a network of a run ------------------------------------------------------------------
@pytest.fixture(autouse=True)
def cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("CNSIM_CACHE", str(tmp_path_factory.getbasetemp() / "worlds"))


def scenario(kind="content-based", covering="g1", index="kdtree", approaches=("cn-relax",)):
    return from_dict(
        {
            "seed": 4,
            "objects": {"count": 120, "distribution": "clustered"},
            "subscriptions": {"count": 600, "k": 3},
            "events": {"count": 40, "inserts": 0.05, "deletes": 0.05, "moves": 0.05},
            "network": {"ip_nodes": 300, "brokers": 20},
            "overlay": {"kind": kind, "covering": covering, "covering_index": index},
            "algorithm": {"approaches": list(approaches)},
            "run": {"progress": False},
        }
    )


@pytest.mark.parametrize("covering", COVERINGS)
def test_cn_relax_over_content_based_delivers_as_over_the_ideal_cn(covering):
    cb = Simulation(scenario(covering=covering, index="naive" if covering == "full" else "kdtree"))
    ideal = Simulation(scenario("ideal"))
    for (_, a), (_, b) in zip(cb.steps(), ideal.steps(), strict=True):
        da, db = a["cn-relax"].delivery, b["cn-relax"].delivery
        assert np.array_equal(da.pairs(), db.pairs())
        assert np.array_equal(np.sort(da.obj), np.sort(db.obj))


def test_verify_and_run_over_content_based(tmp_path):
    report = verify(scenario(covering="poset", index="zorder"))
    assert report.ok, report.text()
    events, summary = run(scenario(), tmp_path)
    meghdoot, _ = run(scenario("meghdoot"))
    assert summary["overlay"] == "content-based"
    assert events["delivered_msgs"].tolist() == meghdoot["delivered_msgs"].tolist()
    assert events["publish_ip_bytes"].tolist() == meghdoot["publish_ip_bytes"].tolist()
    assert (events["ip_bytes"] >= events["overlay_bytes"]).all()
    assert events["overlay_bytes"].sum() > 0


@pytest.mark.parametrize("approach", ["paint-dense", "paint-sparse", "unicast"])
def test_server_approaches_are_rejected_before_any_work(approach):
    with pytest.raises(ConfigError, match="algorithm.approaches.*content-based"):
        scenario(approaches=("cn-relax", approach))


def test_bad_overlay_keys_are_rejected():
    with pytest.raises(ConfigError, match="overlay.covering = 'g2'.*'poset'"):
        from_dict({"overlay": {"covering": "g2"}})
    with pytest.raises(ConfigError, match="overlay.covering_index = 'rtree'.*'zorder'"):
        from_dict({"overlay": {"covering_index": "rtree"}})
    with pytest.raises(ConfigError, match="overlay.degree = 1"):
        from_dict({"overlay": {"degree": 1}})
