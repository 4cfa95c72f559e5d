"""G's forwarding decisions over a whole command stream in numba (``GStream``) against
the Python ``FullGraph`` and ``PosetGraph`` one command at a time, as the overlay drives
them (forward, withdraw what the forwarded one covers; on unsubscribe the uncovered
first, then the unsubscription): the same messages in the same order, the same
covering queries, nodes visited and point comparisons per command, and the forwarded
set equal to the maximal live subscriptions by brute force."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cnsim.errors import InputError
from cnsim.subscriptions.covering import INDEXES, GStream, box_points, make_graph
from cnsim.subscriptions.covering.engine import W_SUB, W_UNSUB, W_WITHDRAW
from cnsim.subscriptions.covering.workload import SUBSCRIBE, command_stream

SMALL = {
    "naive": {},
    "kdtree": {"overflow": 3, "underflow": 1},
    "zorder": {"bits": 2, "low": 0, "high": 7},
}


def by_hand(kind, index, d, op, sid, lo, hi):
    """The overlay's messages for one neighbour from the Python graph, command by
    command: ``(row, kind, sid)`` and the per-command costs."""
    g = make_graph(kind, d, index, **SMALL[index])
    msgs, cost = [], np.zeros((len(op), 3), np.int64)
    for i in range(len(op)):
        before = g.stats()
        s = int(sid[i])
        if op[i] == SUBSCRIBE:
            if g.subscribe(s, lo[i], hi[i]):
                msgs.append((i, W_SUB, s))
                msgs += [(i, W_WITHDRAW, t) for t in g.withdraw_covered(s)]
        else:
            was = g.forwarded(s)
            for t in g.unsubscribe(s):
                msgs.append((i, W_SUB, t))
                msgs += [(i, W_WITHDRAW, c) for c in g.withdraw_covered(t)]
            if was:
                msgs.append((i, W_UNSUB, s))
        now = g.stats()
        for o in ("subscribe", "unsubscribe"):
            for j, key in enumerate(("queries", "nodes_visited", "point_comparisons")):
                cost[i, j] += now[o][key] - before[o][key]
    return msgs, cost, g


def maximal(points: dict, order: dict) -> set:
    """Live ids no other live one strictly covers (identical boxes: the earlier covers)."""
    out = set()
    for s, ps in points.items():
        if not any(
            (pt >= ps).all() and ((pt != ps).any() or order[t] < order[s])
            for t, pt in points.items()
            if t != s
        ):
            out.add(s)
    return out


def check(index, d, op, sid, lo, hi, chunks=1):
    want_g, cost_g, g = by_hand("full", index, d, op, sid, lo, hi)
    want_p, cost_p, _ = by_hand("poset", index, d, op, sid, lo, hi)
    assert want_g == want_p and np.array_equal(cost_g, cost_p)  # G and the poset agree
    gs = GStream(d, index, **SMALL[index])
    got, cost = [], np.zeros((len(op), 3), np.int64)
    cuts = np.linspace(0, len(op), chunks + 1).astype(int)
    for a, b in zip(cuts[:-1], cuts[1:], strict=True):  # state carries over between calls
        c = np.zeros((b - a, 3), np.int64)
        row, kind, ids = gs.run(op[a:b], sid[a:b], lo[a:b], hi[a:b], c)
        got += list(zip((row + a).tolist(), kind.tolist(), ids.tolist(), strict=True))
        cost[a:b] = c
    assert got == want_g
    assert np.array_equal(cost, cost_g)
    assert gs.forwarded_set() == g.forwarded_set()
    points, order, told = {}, {}, set()
    for i in range(len(op)):
        if op[i] == SUBSCRIBE:
            points[int(sid[i])] = box_points(lo[i], hi[i])[0]
            order[int(sid[i])] = i
        else:
            del points[int(sid[i])], order[int(sid[i])]
    for _, k, s in got:  # the neighbour's view, replayed: never told twice
        assert (s in told) == (k != W_SUB)
        told.symmetric_difference_update({s})
    assert told == maximal(points, order) == gs.forwarded_set()
    assert len(gs) == len(points)


@st.composite
def streams(draw, max_ops=50):
    d = draw(st.integers(1, 8))
    g = draw(st.sampled_from([1, 2, 4, 7]))
    ops = draw(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 10**6)), max_size=max_ops))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    op, sid, lo, hi, live, nxt = [], [], [], [], [], 0
    for kind, pick in ops:
        if kind == 2 and live:  # unsubscribe
            s = live.pop(pick % len(live))
            op.append(1), sid.append(s), lo.append(np.zeros(d)), hi.append(np.zeros(d))
            continue
        if kind == 1 and live:  # a duplicate of a live box
            j = sid.index(live[pick % len(live)])
            a, b = lo[j], hi[j]
        else:
            e = np.sort(rng.integers(0, g + 1, (d, 2)), axis=1).astype(float)
            a, b = e[:, 0], e[:, 1]
        op.append(0), sid.append(nxt), lo.append(a), hi.append(b)
        live.append(nxt)
        nxt += 1
    n = len(op)
    return (d, np.array(op, np.int8), np.array(sid, np.int64),
            np.array(lo).reshape(n, d), np.array(hi).reshape(n, d))  # fmt: skip


@pytest.mark.parametrize("index", sorted(INDEXES))
@settings(max_examples=40, deadline=None)
@given(s=streams(), chunks=st.integers(1, 3))
def test_gstream_against_the_graphs_and_brute_force(index, s, chunks):
    check(index, *s, chunks=chunks)


@pytest.mark.parametrize("index", sorted(INDEXES))
def test_gstream_long_stream(index):
    """Seed 001's command stream on a coarse domain: many covers, ties, withdrawals."""
    cs = command_stream(400, 2, 0.4, seed=5, bits=3)
    check(index, 2, cs.op, cs.sid, cs.lo[cs.sid], cs.hi[cs.sid], chunks=2)


def test_gstream_errors():
    g = GStream(2)
    z = np.zeros((1, 2))
    with pytest.raises(InputError, match="not subscribed"):
        g.run(np.array([1], np.int8), np.array([3]), z, z)
    with pytest.raises(InputError, match="op must be"):
        g.run(np.array([2], np.int8), np.array([3]), z, z)
    with pytest.raises(InputError, match="lower edge above"):
        g.run(np.array([0], np.int8), np.array([3]), np.ones((1, 2)), z)
