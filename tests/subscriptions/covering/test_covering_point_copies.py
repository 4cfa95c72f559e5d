"""The k-d tree with and without point copies in its buckets (seed 001 §IV-C; the
layout of §V-C's comparison): the same answers, nodes visited and point comparisons,
query by query, through the index's Python API and through the G_k command loop."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cnsim.errors import InputError
from cnsim.subscriptions.covering import ALL, INDEXES, box_points, make_graph
from cnsim.subscriptions.covering.workload import command_stream


@st.composite
def programs(draw, max_ops=150):
    """Bucket limits, a dimension and operations on a small grid (ties everywhere):
    ("ins", lo, hi), ("del", j) (the j-th live, modulo), ("q", lo, hi, k, up)."""
    overflow = draw(st.integers(2, 6))
    underflow = draw(st.integers(0, overflow - 1))
    d = draw(st.integers(1, 4))
    g = draw(st.sampled_from([1, 3, 7]))
    edge = st.tuples(st.integers(0, g), st.integers(0, g)).map(sorted)
    box = st.lists(edge, min_size=d, max_size=d).map(
        lambda es: (np.array([e[0] for e in es], float), np.array([e[1] for e in es], float))
    )
    op = st.one_of(
        st.tuples(st.just("ins"), box),
        st.tuples(st.just("del"), st.integers(0, 10**6)),
        st.tuples(st.just("q"), box, st.sampled_from([1, 2, ALL]), st.booleans()),
    )
    return overflow, underflow, d, draw(st.lists(op, max_size=max_ops))


@given(prog=programs())
def test_same_answers_and_counts_query_by_query(prog):
    overflow, underflow, d, ops = prog
    a, b = (
        INDEXES["kdtree"](d, overflow=overflow, underflow=underflow, point_copies=c)
        for c in (True, False)
    )
    assert a.bpt.ndim == 3 and b.bpt.shape == (0, 0)
    live: list[int] = []
    free: list[int] = []
    nxt = seq = 0
    for o in ops:
        if o[0] == "ins":
            slot = free.pop() if free else nxt
            nxt += slot == nxt
            seq += 1
            p = box_points(*o[1])[0]
            a.insert(slot, p, seq)
            b.insert(slot, p, seq)
            live.append(slot)
            # every live point queried after each insert: splits are exercised
            for s in live:
                assert (
                    a.covering(a.P[s], a.seq[s], ALL).tolist()
                    == b.covering(b.P[s], b.seq[s], ALL).tolist()
                )
                assert a.last == b.last
        elif o[0] == "del" and live:
            slot = live.pop(o[1] % len(live))
            a.delete(slot)
            b.delete(slot)
            free.append(slot)
        elif o[0] == "q":
            q = box_points(*o[1])[0]
            ask = "covering" if o[3] else "covered"
            ra = getattr(a, ask)(q, seq + 1, o[2]).tolist()
            rb = getattr(b, ask)(q, seq + 1, o[2]).tolist()
            assert ra == rb  # the same slots in the same order
            assert a.last == b.last  # (nodes visited, point comparisons)
    assert a.stats() == b.stats()
    assert (a.splits, a.merges, a.leaves) == (b.splits, b.merges, b.leaves)


@pytest.mark.parametrize("k", [1, 3])
@pytest.mark.parametrize("p", [0.05, 0.4])
def test_same_run_through_the_command_loop(k, p):
    """A seeded seed-001 command stream through G_k's numba command loop: the same
    forwarding decisions, re-forwarded subscriptions and covering counts."""
    cs = command_stream(3000, 4, p, seed=11, bits=4)
    out = []
    for copies in (True, False):
        g = make_graph("gk", cs.d, "kdtree", k=k, overflow=6, underflow=5, point_copies=copies)
        fwd, _, rsid = g.run_commands(cs.op, cs.sid, cs.lo, cs.hi)
        out.append((fwd.tolist(), rsid.tolist(), g.stats(), g.index.splits, g.index.merges))
    assert out[0] == out[1]
    assert out[0][3] > 0 and out[0][4] > 0  # splits and merges happened


def test_same_run_one_command_at_a_time():
    """The overlay's way (one Python call per command) and the full graph's two-way
    queries (covering and covered)."""
    cs = command_stream(600, 3, 0.3, seed=5, bits=3)
    for kind in ("gk", "full"):
        res = []
        for copies in (True, False):
            g = make_graph(kind, cs.d, "kdtree", k=2, overflow=4, underflow=1, point_copies=copies)
            fwd = []
            for i in range(len(cs)):
                if cs.op[i]:
                    fwd.append(sorted(g.unsubscribe(int(cs.sid[i]))))
                else:
                    fwd.append(g.subscribe(i, cs.lo[i], cs.hi[i]))
            res.append((fwd, g.stats()))
        assert res[0] == res[1], kind


def test_point_copies_must_be_a_bool():
    with pytest.raises(InputError, match="point_copies"):
        INDEXES["kdtree"](2, point_copies="no")
    assert INDEXES["kdtree"](2).params["point_copies"] is True
