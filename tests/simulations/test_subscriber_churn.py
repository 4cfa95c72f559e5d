"""Subscribers that come and go during a Paint, Unicast or CN-Relax run (``[churn]``):
every live subscription's list against the brute-force oracle after every batch, for
every kind, overlay and exact approach; the joining subscriptions' costs against a
count of what their first lists hold; the indexes' dead points against brute force;
the schedule's laws; and the run without churn unchanged."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cnsim import kdtree
from cnsim.brokers.gateways import Gateways
from cnsim.errors import ConfigError
from cnsim.simulations.config import from_dict
from cnsim.simulations.metrics import CATALOG
from cnsim.simulations.oracle import Truth
from cnsim.simulations.runner import Simulation, run
from cnsim.simulations.verify import verify
from cnsim.subscriptions.churn import Churn, lifetimes
from cnsim.subscriptions.index import SubscriptionIndex

COUNTS = CATALOG.names("batch", "counting", wall=False)
JOINS = CATALOG.names("batch", "joins")


@pytest.fixture(autouse=True)
def cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("CNSIM_CACHE", str(tmp_path_factory.getbasetemp() / "worlds"))


def scenario(churn=None, n_events=60, approaches=None, **sections):
    tables = {
        "seed": 7,
        "objects": {"count": 150},
        "subscriptions": {"count": 200, "k": 3},
        "events": {"count": n_events},
        "network": {"ip_nodes": 200, "brokers": 16},
        "run": {"progress": False},
        "algorithm": {"approaches": approaches or ["paint-dense", "paint-sparse", "unicast",
                                                   "cn-relax"]},
        "churn": {"joins": 3.0, "lifetime": "exponential", "mean_lifetime": 40.0}
        if churn is None else churn,
    }  # fmt: skip
    for section, values in sections.items():
        merged = {**tables.get(section, {}), **values} if isinstance(values, dict) else None
        tables[section] = values if merged is None else merged
    return from_dict(tables)


KINDS = {
    "range": {},
    "range-1.5d": {"kind": "range-1.5d"},
    "box": {"kind": "box", "dims": 2},
}


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("overlay", ["meghdoot", "ideal"])
def test_every_live_list_is_exact_after_every_event(kind, overlay):
    s = scenario(subscriptions=KINDS[kind], overlay={"kind": overlay})
    report = verify(s)
    assert report.ok, report.text()
    frame, summary = run(s)
    assert summary["churn"]["joined"] > 100 and summary["churn"]["left"] > 100


def test_batches_eps_and_pareto_lifetimes_under_churn():
    s = scenario(
        churn={"joins": 2.0, "lifetime": "pareto", "mean_lifetime": 30.0, "pareto_shape": 1.5},
        approaches=["paint-batch(paint-dense)", "paint-sparse(0.5)", "unicast", "cn-relax"],
        events={"batch_size": 4, "inserts": 0.1, "deletes": 0.1, "moves": 0.1},
    )
    report = verify(s)
    assert report.ok, report.text()


def _inside(truth: Truth, ids: np.ndarray) -> np.ndarray:
    points = truth.points()
    y = truth.y[: len(points)]
    out = []
    for j in ids:  # plain numpy, apart from the kernel it checks
        ok = ((truth.lo[j] <= points) & (points <= truth.hi[j])).all(axis=1) & np.isfinite(y)
        out.append(int(ok.sum()))
    return np.array(out, np.int64)


def test_join_costs_are_what_the_first_lists_hold():
    """A server approach asks one min_y per list entry plus one that finds the range
    exhausted, and sends the entries; CN-Relax's gateway sends the whole range."""
    s = scenario()
    sim = Simulation(s)
    truth = Truth(sim.workload)
    ev, k, object_bytes = sim.workload.events, s["subscriptions"]["k"], 8
    hops_of = {a.name: a.spec.entry for a in sim.approaches}
    joined = 0
    for b, outcomes in sim.steps():
        first, stop = list(sim.batches())[b]
        joining, _ = sim.churn.due(first, stop)
        held = _inside(truth, joining)
        for name, o in outcomes.items():
            hops = sim.network.join_ip_hops(joining, hops_of[name])
            entries = held if name == "cn-relax" else np.minimum(held, k)
            calls = 0 if name == "cn-relax" else int(np.minimum(held + 1, k).sum())
            assert o.joins["joins"] == len(joining) == o.joins["join_msgs"]
            assert o.joins["join_calls"] == calls
            assert o.joins["join_bytes"] == entries.sum() * object_bytes
            assert o.joins["join_ip_bytes"] == (entries * hops).sum() * object_bytes
            assert o.joins["live_subs"] == sim.live.sum()
        truth.apply(ev.updates(first, stop))
        joined += len(joining)
    assert joined > 100


def test_the_schedule_draws_poisson_joins_and_lifetimes_of_the_asked_mean():
    rng = np.random.default_rng(1)
    for law, shape in (("exponential", 2.0), ("pareto", 3.0)):
        section = {"joins": 0.0, "lifetime": law, "mean_lifetime": 50.0, "pareto_shape": shape}
        assert abs(lifetimes(section, 200_000, rng).mean() / 50.0 - 1) < 0.02
    section = {"joins": 2.5, "lifetime": "exponential", "mean_lifetime": 20.0, "pareto_shape": 2.0}
    churn = Churn.draw(section, 100, 4000, rng)
    assert abs(len(churn.join_at) / 4000 / 2.5 - 1) < 0.03
    # every id joins at most once and leaves at most once, after it joined
    seen_join, seen_leave = [], []
    for first in range(0, 4000, 7):
        joining, leaving = churn.due(first, min(first + 7, 4000))
        seen_join += joining.tolist()
        seen_leave += leaving.tolist()
    assert len(set(seen_join)) == len(seen_join) and len(set(seen_leave)) == len(seen_leave)
    born = np.concatenate([np.zeros(100, np.int64), churn.join_at])
    assert (churn.leave_at > born).all()


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31), st.integers(1, 60), st.integers(1, 9), st.floats(0.05, 1.0))
def test_a_part_of_the_pool_joins_and_leaves_as_in_the_pool(seed, m, batch, share):
    """``Churn.restricted``: the schedule of some of the pool's subscriptions (a
    partition of a spread run), renumbered in order, gives at every batch exactly the
    pool's joins and leaves among them."""
    rng = np.random.default_rng(seed)
    section = {"joins": 1.5, "lifetime": "pareto", "mean_lifetime": 12.0, "pareto_shape": 2.0}
    churn = Churn.draw(section, m, 80, rng)
    ids = np.flatnonzero(rng.random(churn.pool) < share)
    part = churn.restricted(ids)
    assert part.initial == int((ids < m).sum()) and part.pool == len(ids)
    for first in range(0, 80, batch):
        stop = min(first + batch, 80)
        joining, leaving = churn.due(first, stop)
        got_joining, got_leaving = part.due(first, stop)
        assert list(ids[got_joining]) == [i for i in joining if i in set(ids)]
        assert list(ids[got_leaving]) == [i for i in leaving if i in set(ids)]


def test_without_churn_the_run_is_unchanged():
    plain, s_plain = run(scenario(churn={}))
    written = {"joins": 0.0, "lifetime": "none", "mean_lifetime": 1000.0, "pareto_shape": 2.0}
    again, s_again = run(scenario(churn=written))
    pd.testing.assert_frame_equal(plain[COUNTS], again[COUNTS])
    assert "churn" not in s_plain and "churn" not in s_plain["scenario"]
    assert not set(JOINS) & set(plain.columns)


def test_same_seed_same_outputs():
    a, _ = run(scenario())
    b, _ = run(scenario())
    pd.testing.assert_frame_equal(a[COUNTS + JOINS], b[COUNTS + JOINS])
    c, _ = run(scenario(seed=8))
    assert not a[JOINS].equals(c[JOINS])


def test_timed_mode_counts_what_counting_mode_counts():
    timed, _ = run(scenario(run={"mode": "timed", "progress": False}))
    counting, _ = run(scenario())
    pd.testing.assert_frame_equal(timed[COUNTS + JOINS], counting[COUNTS + JOINS])


@pytest.mark.parametrize(
    ("churn", "extra", "words"),
    [
        ({"joins": -1.0}, {}, r"churn.joins = -1.0"),
        ({"joins": float("nan")}, {}, r"churn.joins = nan"),
        ({"lifetime": "weibull"}, {}, r"churn.lifetime = 'weibull'"),
        ({"mean_lifetime": 5.0}, {}, r"churn.mean_lifetime = 5.0 is read only when"),
        ({"lifetime": "exponential", "pareto_shape": 3.0}, {}, r"churn.pareto_shape = 3.0"),
        ({"lifetime": "pareto", "pareto_shape": 1.0}, {}, r"churn.pareto_shape = 1.0"),
        ({"joins": 1.0}, {"algorithm": {"approaches": ["ranked"]}}, r"ranked delivery"),
    ],
)
def test_bad_churn_is_refused_in_one_line(churn, extra, words):
    with pytest.raises(ConfigError, match=words) as e:
        scenario(churn=churn, **extra)
    assert "\n" not in str(e.value)


# -- the indexes' dead points ---------------------------------------------------------------


def _reaches(q, pts, lower_open):
    return np.flatnonzero(kdtree.reaches_np(q, pts, lower_open))


OPEN = {2: (True, False), 3: (True, False, False), 4: (True, False, True, False)}


@settings(max_examples=40, deadline=None)
@given(
    d=st.sampled_from([2, 3, 4]),
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 300),
    rounds=st.integers(1, 4),
)
def test_dead_points_are_never_reported_nor_counted(d, seed, n, rounds):
    rng = np.random.default_rng(seed)
    lower_open = OPEN[d]
    pts = np.round(rng.random((n, d)), 2)  # ties on purpose
    index = SubscriptionIndex(*pts.T, lower_open=lower_open)
    zone = rng.integers(0, 5, n)
    gateways = Gateways(pts, zone, 5, lower_open)
    live = np.ones(n, bool)
    for _ in range(rounds):
        flip = rng.random(n) < 0.3
        for alive in (True, False):
            ids = np.flatnonzero(flip & (live != alive))
            index.set_alive(ids, alive)
            gateways.set_alive(ids, alive)
            live[ids] = alive
        for _ in range(5):
            lo = rng.random(d) - 0.2
            q = np.column_stack([lo, lo + rng.random(d) * 0.8]).ravel()
            q[rng.random(2 * d) < 0.2] = np.inf * np.sign(rng.random() - 0.5)
            want = _reaches(q, pts, lower_open)
            want = want[live[want]]
            got = np.sort(index.report(q[None, :])[1])
            np.testing.assert_array_equal(got, want)
            count, *box = index.snap(q)
            assert count == len(want)
            if count:
                np.testing.assert_array_equal(box[0::2], pts[want].min(axis=0))
                np.testing.assert_array_equal(box[1::2], pts[want].max(axis=0))
            offsets, pos = gateways.deliver_positions(
                q[None, :], np.array([0, 5]), np.arange(5)
            )
            np.testing.assert_array_equal(np.sort(gateways.ids[pos]), want)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 200), k=st.integers(1, 12))
def test_one_search_top_k_is_k_rounds_of_min_y(seed, n, k):
    from cnsim.server.object_index import ObjectIndex
    from cnsim.subscriptions.churn import top_k_by_rounds

    rng = np.random.default_rng(seed)
    x, y = np.round(rng.random(n), 1), np.round(rng.random(n), 1)  # ties in x and y
    y[rng.random(n) < 0.2] = np.inf
    objects = ObjectIndex(x, y)
    lo = np.round(rng.random(20), 1)
    hi = lo + np.round(rng.random(20), 1)
    got = objects.top_k_many(lo, hi, k)
    want = top_k_by_rounds(
        lambda rows, y0, id0: objects.min_y_many(lo[rows], hi[rows], y0, id0), objects.y, 20, k
    )
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    for j in range(20):  # and both are the brute-force top k
        inside = np.flatnonzero((lo[j] <= x) & (x <= hi[j]) & np.isfinite(y))
        best = inside[np.lexsort((inside, y[inside]))][:k]
        np.testing.assert_array_equal(got[0][j, : len(best)], best)
        assert (got[0][j, len(best) :] == -1).all()


def test_churn_over_the_distributed_object_database():
    s = scenario(server={"count": 4}, approaches=["paint-dense", "unicast"])
    report = verify(s)
    assert report.ok, report.text()


# -- the content-based overlay: joins and leaves forwarded over the tree ---------------------


@pytest.mark.parametrize("covering", ["none", "g1", "poset"])
def test_over_the_tree_every_event_reaches_exactly_the_live_ranges(covering):
    s = scenario(approaches=["cn-relax"], overlay={"kind": "content-based", "covering": covering})
    report = verify(s)
    assert report.ok, report.text()


def test_covering_prunes_the_joins_and_leaves_forwarded():
    sent = {}
    for covering in ("none", "g1"):
        tables = {"kind": "content-based", "covering": covering}
        frame, summary = run(scenario(approaches=["cn-relax"], overlay=tables))
        assert summary["churn"]["joined"] > 100
        sent[covering] = int(frame["join_forward_msgs"].sum())
    assert 0 < sent["g1"] < sent["none"]
    meghdoot, _ = run(scenario())  # a subscription goes to its zone's broker directly
    assert (meghdoot["join_forward_msgs"] == 0).all()


def test_churn_beside_tree_faults_or_in_a_command_stream_is_refused():
    with pytest.raises(ConfigError, match=r"cannot run beside \[faults\] over the content"):
        scenario(approaches=["cn-relax"], overlay={"kind": "content-based"},
                 faults={"rate": 0.01})  # fmt: skip
    with pytest.raises(ConfigError, match=r"churn.joins = 3.0 does not apply to seed 001"):
        scenario(approaches=["cn-relax"], overlay={"kind": "content-based"},
                 subscriptions={"kind": "box", "dims": 2})  # fmt: skip
