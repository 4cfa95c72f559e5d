"""Relation graphs (seed 001 §III) against brute force after every operation:
G, G_k (k = 1..4), the strict poset; Property 1; what is forwarded."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cnsim.errors import InputError
from cnsim.subscriptions.covering import INDEXES, box_points, make_graph
from cnsim.subscriptions.covering.workload import UNSUBSCRIBE, command_stream

SMALL = {
    "naive": {},
    "kdtree": {"overflow": 3, "underflow": 1},
    "zorder": {"bits": 2, "low": 0, "high": 7},
}
GRAPHS = [("gk", 1), ("gk", 2), ("gk", 4), ("full", 1), ("poset", 1)]


def relation(boxes: dict, order: dict) -> set[tuple]:
    """Strict covering pairs (t, s) among live subscriptions, by brute force."""
    pairs = set()
    for t, pt in boxes.items():
        for s, ps in boxes.items():
            if t == s or not (pt >= ps).all():
                continue
            if (pt != ps).any() or order[t] < order[s]:
                pairs.add((t, s))
    return pairs


class Harness:
    """Drives a graph and checks it, keeping the neighbour's view of what was forwarded."""

    def __init__(self, kind, k, index, d):
        self.g = make_graph(kind, d, index, k=k, **SMALL.get(index, {}))
        self.kind, self.k = kind, k
        self.boxes: dict[int, np.ndarray] = {}
        self.order: dict[int, int] = {}
        self.neighbour: set[int] = set()
        self.n_sub = 0
        self.n_requeried = 0

    def subscribe(self, sid, lo, hi):
        self.n_sub += 1
        fwd = self.g.subscribe(sid, lo, hi)
        self.boxes[sid] = box_points(lo, hi)[0]
        self.order[sid] = self.n_sub
        if fwd:
            self.neighbour.add(sid)
        rel = self.check()
        if self.kind == "gk":  # examined now: min(k, |C(s)|) in-edges
            n_cov = sum(1 for t, s in rel if s == sid)
            assert len(self.g.coverers(sid)) == min(self.k, n_cov)
        return fwd

    def unsubscribe(self, sid):
        requeried = [c for c in self._children(sid) if self.g.coverers(c) == [sid]]
        if self.g.forwarded(sid):
            self.neighbour.remove(sid)
        now = self.g.unsubscribe(sid)
        del self.boxes[sid], self.order[sid]
        assert not (set(now) & self.neighbour), "forwarded twice"
        self.neighbour |= set(now)
        if self.kind == "gk":
            self.n_requeried += len(requeried)
        rel = self.check()
        if self.kind == "gk":
            assert set(now) <= set(requeried)
            for t in requeried:
                n_cov = sum(1 for a, s in rel if s == t)
                assert len(self.g.coverers(t)) == min(self.k, n_cov)
        return now

    def _children(self, sid):
        return [s for t, s in self.g.edges() if t == sid]

    def check(self) -> set[tuple]:
        g = self.g
        rel = relation(self.boxes, self.order)
        edges = g.edges()
        assert len(g) == len(self.boxes)
        assert edges <= rel, f"edge that is not covering: {edges - rel}"
        covered = {s for _, s in rel}
        indeg = {s: 0 for s in self.boxes}
        for _, s in edges:
            indeg[s] += 1
        # the neighbour's view is the graph's; every live subscription is forwarded or
        # covered by a forwarded one (so the neighbour loses nothing)
        assert g.forwarded_set() == self.neighbour
        for s in self.boxes:
            assert s in self.neighbour or any((f, s) in rel for f in self.neighbour), s
        if self.kind == "full":
            assert edges == rel
        if self.kind == "poset":
            reduced = {
                (t, s)
                for t, s in rel
                if not any((t, u) in rel and (u, s) in rel for u in self.boxes)
            }
            assert edges == reduced
        if self.kind in ("full", "poset"):  # Property 1, exactly
            for s in self.boxes:
                assert (indeg[s] > 0) == (s in covered)
                if indeg[s] == 0:
                    assert s in self.neighbour
        if self.kind == "gk":
            ex = self.g.examined
            for s in self.boxes:
                assert indeg[s] <= self.k
                assert (indeg[s] == 0) == (s in self.neighbour)
                if indeg[s] == 0:  # Property 1 for everything live when s was examined
                    slot = self.g._slot[s]
                    for t, u in rel:
                        if u == s:
                            assert g.index.seq[g._slot[t]] > ex[slot], (t, s)
        st_ = g.stats()
        if self.kind == "gk":
            assert st_["subscribe"]["queries"] == self.n_sub
            assert st_["unsubscribe"]["queries"] == self.n_requeried
        else:
            assert st_["subscribe"]["queries"] == 2 * self.n_sub
            assert st_["unsubscribe"]["queries"] == 0
        return rel


@st.composite
def sequences(draw, max_ops=60):
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
    return d, draw(st.lists(op, max_size=max_ops))


def play(h: Harness, ops):
    nxt = 0
    for op in ops:
        live = sorted(h.boxes)
        if op[0] == "sub":
            h.subscribe(nxt, *op[1])
        elif op[0] == "dup":
            if not live:
                continue
            p = h.boxes[live[op[1] % len(live)]]
            h.subscribe(nxt, -p[0::2], p[1::2])
        else:
            if live:
                h.unsubscribe(live[op[1] % len(live)])
            continue
        nxt += 1


@pytest.mark.parametrize("index", sorted(INDEXES))
@pytest.mark.parametrize("kind,k", GRAPHS)
@given(seq=sequences())
def test_graph_against_brute_force(kind, k, index, seq):
    d, ops = seq
    play(Harness(kind, k, index, d), ops)


@pytest.mark.parametrize("index", sorted(INDEXES))
@pytest.mark.parametrize("kind,k", GRAPHS)
def test_long_command_stream(kind, k, index):
    """Seed 001's command stream on a coarse domain (many covers and ties), p = 40%
    (brute-force checks after every command: kept short; the numba G_k loop's long
    streams are in test_covering_engine.py)."""
    cs = command_stream(150, 2, 0.4, seed=3, bits=3)
    h = Harness(kind, k, index, 2)
    for i in range(len(cs)):
        if cs.op[i] == UNSUBSCRIBE:
            h.unsubscribe(int(cs.sid[i]))
        else:
            h.subscribe(i, cs.lo[i], cs.hi[i])


def test_gk_keeps_a_subscription_covered_by_a_later_one_forwarded():
    """§III-C adds in-edges only when a node is examined: the literal Property 1
    (in-degree > 0 in G implies in-degree > 0 in G_k) fails for a subscription that
    only later arrivals cover; it stays forwarded, which is safe (§III-A)."""
    for kind in ("gk", "full", "poset"):
        g = make_graph(kind, 1, "naive")
        assert g.subscribe("small", [2], [3])
        assert g.subscribe("big", [0], [9])
        if kind == "gk":
            assert g.coverers("small") == []  # covered in G, in-degree 0 in G_1
        else:
            assert g.coverers("small") == ["big"]
        assert g.forwarded("small")
        assert g.unsubscribe("big") == []  # already forwarded: not again


def test_unsubscribe_forwards_the_uncovered():
    g = make_graph("g1", 2, "naive")
    assert g.subscribe("a", [0, 0], [10, 10])
    assert not g.subscribe("b", [1, 1], [5, 5])
    assert not g.subscribe("c", [2, 2], [3, 3])
    assert not g.subscribe("a2", [0, 0], [10, 10])  # identical: covered by the older
    assert g.unsubscribe("a") == ["a2"]  # b is re-covered by a2, a2 by nothing
    g2 = make_graph("poset", 2, "naive")
    for sid, lo, hi in [("a", [0, 0], [10, 10]), ("b", [1, 1], [5, 5]), ("c", [2, 2], [3, 3])]:
        g2.subscribe(sid, lo, hi)
    assert g2.edges() == {("a", "b"), ("b", "c")}
    assert g2.unsubscribe("a") == ["b"]
    assert g2.edges() == {("b", "c")}


def test_graph_errors():
    g = make_graph("g1", 2, "naive")
    g.subscribe(1, [0, 0], [1, 1])
    with pytest.raises(InputError):
        g.subscribe(1, [0, 0], [1, 1])
    with pytest.raises(InputError):
        g.unsubscribe(2)
    with pytest.raises(InputError):
        g.subscribe(2, [0, 0, 0], [1, 1, 1])
    with pytest.raises(InputError):
        make_graph("gk", 2, "naive", k=0)
    with pytest.raises(InputError):
        make_graph("nope", 2)
    with pytest.raises(InputError):
        make_graph("g1", 2, "nope")
