"""The numba G_k command loop (``engine``, ``GkGraph``) against the plain-Python
reference (``ReferenceGkGraph``) and brute force: the same forwarding decisions, the
same graph, the same covering counts, and Property 1 after every operation — one
command at a time and whole streams in one call (``run_commands``), in chunks."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cnsim.errors import InputError
from cnsim.subscriptions.covering import GkGraph, ReferenceGkGraph, box_points, make_graph
from cnsim.subscriptions.covering.workload import SUBSCRIBE, UNSUBSCRIBE, command_stream

SMALL = {
    "naive": {},
    "kdtree": {"overflow": 3, "underflow": 1},
    "zorder": {"bits": 2, "low": 0, "high": 7, "block": 2},
}


def check_property_1(g: GkGraph, boxes: dict, order: dict, k: int) -> None:
    """In-edges are strict covers, at most k; forwarded iff in-degree 0; every live
    subscription is forwarded or covered by a forwarded one (nothing is lost)."""
    assert len(g) == len(boxes)
    if not boxes:
        return
    ids = list(boxes)
    pos = {s: i for i, s in enumerate(ids)}
    P = np.array([boxes[s] for s in ids])
    o = np.array([order[s] for s in ids])
    ge = (P[:, None, :] >= P[None, :, :]).all(axis=2)
    eq = (P[:, None, :] == P[None, :, :]).all(axis=2)
    cov = ge & (~eq | (o[:, None] < o[None, :]))  # cov[a, b]: a strictly covers b
    fwd = np.array([s in g.forwarded_set() for s in ids])
    for s in ids:
        c = [pos[t] for t in g.coverers(s)]
        assert len(c) <= k and len(set(c)) == len(c)
        assert cov[c, pos[s]].all(), s
        assert (not c) == fwd[pos[s]]
    assert (fwd | (cov & fwd[:, None]).any(axis=0)).all()


def stream_from(ops, d):
    """Commands (op, sid, lo, hi) from a drawn program; sids are command positions."""
    op, sid, lo, hi, live = [], [], [], [], []
    for o in ops:
        if o[0] == "sub":
            box = o[1]
        elif o[0] == "dup" and live:
            box = boxes_of[live[o[1] % len(live)]]
        elif o[0] == "unsub" and live:
            j = live.pop(o[1] % len(live))
            op.append(UNSUBSCRIBE)
            sid.append(j)
            lo.append(np.zeros(d))
            hi.append(np.zeros(d))
            continue
        else:
            continue
        i = len(op)
        boxes_of[i] = box
        live.append(i)
        op.append(SUBSCRIBE)
        sid.append(i)
        lo.append(np.asarray(box[0], float))
        hi.append(np.asarray(box[1], float))
    return (
        np.array(op, np.int8),
        np.array(sid, np.int64),
        np.array(lo).reshape(-1, d),
        np.array(hi).reshape(-1, d),
    )


boxes_of: dict = {}


@st.composite
def programs(draw, max_ops=80):
    d = draw(st.integers(1, 8))
    g = draw(st.sampled_from([1, 2, 4, 7]))
    edge = st.tuples(st.integers(0, g), st.integers(0, g)).map(sorted)
    box = st.lists(edge, min_size=d, max_size=d).map(
        lambda es: ([e[0] for e in es], [e[1] for e in es])
    )
    op = st.one_of(
        st.tuples(st.just("sub"), box),
        st.tuples(st.just("dup"), st.integers(0, 10**6)),
        st.tuples(st.just("unsub"), st.integers(0, 10**6)),
    )
    return d, draw(st.lists(op, max_size=max_ops)), draw(st.integers(1, 3))


def run_one_by_one(g, op, sid, lo, hi, check=None, every=1):
    """Per command: forwarded flags and re-forwarded lists (``check`` after every
    ``every``-th command and at the end)."""
    fwd, re = [], []
    boxes, order = {}, {}
    for i in range(len(op)):
        if op[i] == SUBSCRIBE:
            fwd.append(g.subscribe(int(sid[i]), lo[i], hi[i]))
            boxes[int(sid[i])] = box_points(lo[i], hi[i])[0]
            order[int(sid[i])] = i
            re.append(None)
        else:
            re.append(g.unsubscribe(int(sid[i])))
            del boxes[int(sid[i])], order[int(sid[i])]
            fwd.append(None)
        if check and (i % every == 0 or i == len(op) - 1):
            check(g, boxes, order)
    return fwd, re


def graph_state(g):
    return (
        g.edges(),
        g.forwarded_set(),
        {s: g.coverers(s) for s in g._slot},
        g.stats(),
        g.index.stats(),
        len(g),
    )


def compare(index, d, k, op, sid, lo, hi, chunks=(1.0,), every=1):
    ref = make_graph("gk", d, index, k=k, reference=True, **SMALL[index])
    fast = make_graph("gk", d, index, k=k, **SMALL[index])
    assert isinstance(ref, ReferenceGkGraph) and isinstance(fast, GkGraph)
    f_ref, r_ref = run_one_by_one(ref, op, sid, lo, hi)
    f_fast, r_fast = run_one_by_one(
        fast, op, sid, lo, hi, check=lambda g, b, o: check_property_1(g, b, o, k), every=every
    )
    assert f_fast == f_ref
    assert r_fast == r_ref  # orphans in slot order in both
    assert graph_state(fast) == graph_state(ref)
    # the whole stream in one call, or in chunks
    batch = make_graph("gk", d, index, k=k, **SMALL[index])
    cuts = sorted({0, len(op), *(int(c * len(op)) for c in chunks)})
    for a, b in zip(cuts, cuts[1:], strict=False):
        fw, ptr, rsid = batch.run_commands(op[a:b], sid[a:b], lo[a:b], hi[a:b])
        for i in range(a, b):
            if op[i] == SUBSCRIBE:
                assert fw[i - a] == f_ref[i]
            else:
                got = rsid[ptr[i - a] : ptr[i - a + 1]].tolist()
                assert got == r_ref[i]
    assert graph_state(batch) == graph_state(ref)
    assert batch.index.last == ref.index.last
    return ref


@pytest.mark.parametrize("index", sorted(SMALL))
@given(prog=programs())
def test_fast_gk_matches_reference_and_brute_force(index, prog):
    d, ops, k = prog
    boxes_of.clear()
    op, sid, lo, hi = stream_from(ops, d)
    compare(index, d, k, op, sid, lo, hi, chunks=(0.3, 0.7))


@pytest.mark.parametrize("index", sorted(SMALL))
@pytest.mark.parametrize("k", [1, 3])
def test_fast_gk_long_stream(index, k):
    """Seed 001's command stream, coarse domain (many covers, ties, orphans), p = 40%:
    grows every array (slots, tree nodes and buckets, Z-order blocks, re-forward
    buffer) through the loop's room requests."""
    cs = command_stream(800, 3, 0.4, seed=5, bits=3)
    ref = compare(index, 3, k, cs.op, cs.sid, cs.lo, cs.hi, chunks=(0.5,), every=40)
    assert ref.stats()["unsubscribe"]["queries"] > 0


def test_default_parameters_and_paper_scale_bits():
    """Default index parameters (k-d tree 32/8, Z-order 60 // D bits), 10 dims."""
    cs = command_stream(3000, 5, 0.15, seed=1, bits=10)
    for index in ("kdtree", "zorder"):
        params = {"low": 0, "high": 1023} if index == "zorder" else {}
        ref = make_graph("g1", 5, index, reference=True, **params)
        run_one_by_one(ref, cs.op, cs.sid, cs.lo, cs.hi)
        fast = make_graph("g1", 5, index, **params)
        fast.run_commands(cs.op, cs.sid, cs.lo, cs.hi)
        assert graph_state(fast) == graph_state(ref)


def test_mixing_batches_and_single_commands():
    g = make_graph("g1", 1, "kdtree")
    assert g.subscribe("outer", [0], [9])
    fw, ptr, rs = g.run_commands(
        np.array([0, 0, 1], np.int8), np.array([1, 2, 1]), [[1], [2], [0]], [[8], [3], [0]]
    )
    assert fw.tolist() == [False, False, False]
    assert g.coverers(2) == ["outer"]
    assert g.unsubscribe("outer") == [2]  # orphan re-queried: nothing covers it now
    assert g.forwarded_set() == {2}
    fw, ptr, rs = g.run_commands(np.array([1], np.int8), np.array([2]), [[0]], [[0]])
    assert len(g) == 0 and rs.tolist() == []


def test_batch_errors():
    g = make_graph("g1", 2, "naive")
    g.subscribe(7, [0, 0], [1, 1])
    bad = [
        (np.array([1]), np.array([3])),  # not subscribed
        (np.array([0, 0]), np.array([4, 4])),  # one id subscribed twice
        (np.array([0]), np.array([7])),  # already live
        (np.array([1, 1]), np.array([7, 7])),  # unsubscribed twice
        (np.array([2]), np.array([5])),  # not an op
    ]
    for op, sid in bad:
        n = len(op)
        with pytest.raises(InputError):
            g.run_commands(op, sid, np.zeros((n, 2)), np.ones((n, 2)))
    with pytest.raises(InputError):  # unsubscribed before its subscribe
        g.run_commands(np.array([1, 0]), np.array([9, 9]), np.zeros((2, 2)), np.ones((2, 2)))
    with pytest.raises(InputError):
        g.run_commands(np.array([0]), np.array([5]), [[2, 0]], [[1, 1]])
    assert len(g) == 1 and g.forwarded(7)
    with pytest.raises(InputError):
        make_graph("gk", 2, "naive", k=0)


@pytest.mark.parametrize("index", ["kdtree", "zorder"])
def test_gk_forwards_the_same_for_every_k(index):
    """RESULTS' claim (the overlay's G_1 and G_3 rows are equal): under G_k a
    subscription is forwarded exactly when it is first left without a live coverer,
    whatever k — k changes the covering work only."""
    cs = command_stream(1500, 2, 0.35, seed=9, bits=4)
    params = {**SMALL[index], "high": 15} if index == "zorder" else SMALL[index]
    runs = {}
    for k in (1, 2, 3, 6):
        g = make_graph("gk", 2, index, k=k, **params)
        fwd, ptr, rsid = g.run_commands(cs.op, cs.sid, cs.lo, cs.hi)
        runs[k] = (fwd.tolist(), ptr.tolist(), rsid.tolist(), g.stats())
    for k in (2, 3, 6):
        assert runs[k][:3] == runs[1][:3], k
    assert runs[6][3] != runs[1][3]  # but not the same work
    assert sum(runs[1][0]) < len(runs[1][0]) - 100 and len(runs[1][2]) > 10
