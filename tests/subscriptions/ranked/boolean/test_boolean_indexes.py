"""Every Boolean-expression index against brute force under random insert / delete
sequences: matching and top-k (ties by id), empty expressions, != and not in,
attributes absent from the event, range events."""

from __future__ import annotations

import numpy as np
import pytest
from expression_strategies import OPS
from expression_strategies import expression as expressions
from hypothesis import given, settings
from hypothesis import strategies as st

from cnsim.errors import InputError
from cnsim.subscriptions.ranked.boolean import (
    REGISTRY,
    brute_match,
    brute_top_k,
    parse,
    parse_many,
)

NAMES = sorted(REGISTRY)
WEIGHTS = st.sampled_from([0.0, 0.5, 1.0, 2.0]) | st.floats(0, 3, allow_subnormal=False)


def expression(max_size=5, ops=OPS, n_attrs=8):
    return expressions(max_size, ops, n_attrs, WEIGHTS)


def events(point_only):
    if point_only:
        return expression(max_size=8, ops=["="])
    return st.one_of(expression(max_size=8, ops=["="]), expression(max_size=8))


def run_ops(cls, ops, params):
    ix = cls(**params)
    live = []
    for op in ops:
        kind, arg, k = op
        if kind == "ins":
            live.append(ix.insert(arg))
        elif kind == "del" and live:
            ix.delete(live.pop(arg % len(live)))
        elif kind == "q":
            subs, alive = ix.subscriptions(), ix.alive()
            ev = parse(arg)
            np.testing.assert_array_equal(ix.match(arg), brute_match(subs, ev, alive))
            np.testing.assert_array_equal(ix.top_k(arg, k), brute_top_k(subs, ev, k, alive))
    assert len(ix) == len(live)
    return ix


def op_lists(point_only):
    return st.lists(
        st.one_of(
            st.tuples(st.just("ins"), expression(), st.just(0)),
            st.tuples(st.just("ins"), expression(), st.just(0)),
            st.tuples(st.just("ins"), expression(), st.just(0)),
            st.tuples(st.just("del"), st.integers(0, 1000), st.just(0)),
            st.tuples(st.just("q"), events(point_only), st.integers(0, 6)),
        ),
        max_size=120,
    )


SMALL = {"scan": {}, "betree_star": {"leaf_capacity": 3}, "betree": {"leaf_capacity": 3},
         "kindex": {}}  # fmt: skip


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
@pytest.mark.slow
def test_random_sequences(name, data):
    cls = REGISTRY[name]
    ops = data.draw(op_lists(getattr(cls, "point_events_only", False)))
    run_ops(cls, ops, SMALL.get(name, {}))


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=20, deadline=None)
@given(
    subs=st.lists(expression(max_size=4), min_size=0, max_size=150),
    evs=st.lists(expression(max_size=8, ops=["="]), min_size=1, max_size=10),
    k=st.integers(1, 8),
)
def test_bulk_and_batch(name, subs, evs, k):
    cls = REGISTRY[name]
    ix = cls(subs, **SMALL.get(name, {}))
    S = ix.subscriptions()
    out = ix.top_k_batch(evs, k)
    counts = ix.count_batch(evs)
    for q, ev in enumerate(evs):
        e = parse(ev)
        want = brute_top_k(S, e, k)
        np.testing.assert_array_equal(out[q, : len(want)], want)
        assert (out[q, len(want) :] == -1).all()
        assert counts[q] == len(brute_match(S, e))


@pytest.mark.parametrize("name", NAMES)
def test_edge_cases(name):
    cls = REGISTRY[name]
    ix = cls(**SMALL.get(name, {}))
    assert list(ix.match("a1 = 3")) == []
    e0 = ix.insert("")  # the empty subscription matches every event, score 0
    e1 = ix.insert("a1 != 3 : 1")
    e2 = ix.insert("a1 not in (3, 4) : 1, a2 = 5 : 1")
    e3 = ix.insert("a7 = 1 : 5")  # a7 absent from the events below
    assert list(ix.match("")) == [e0]  # the empty event matches only empty subscriptions
    assert list(ix.match("a1 = 3 : 1")) == [e0]
    assert list(ix.match("a1 = 5 : 1, a2 = 5 : 1")) == [e0, e1, e2]
    assert list(ix.match("a1 = 4 : 1, a2 = 5 : 1")) == [e0, e1]
    # equal scores: ties by id
    ids = [ix.insert("a2 = 5 : 1") for _ in range(4)]
    assert list(ix.top_k("a2 = 5 : 1", 3)) == ids[:3]
    assert list(ix.top_k("a2 = 5 : 1, a1 = 9 : 1", 3)) == [e2, e1, ids[0]]
    ix.delete(ids[0])
    assert list(ix.top_k("a2 = 5 : 1", 3)) == ids[1:]
    assert list(ix.top_k("a2 = 5 : 1", 0)) == []
    with pytest.raises(InputError):
        ix.delete(ids[0])
    with pytest.raises(InputError):
        ix.top_k("a2 = 5", -1)
    ix.delete(e3)
    assert len(ix) == 6


def test_range_events_scan_betree():
    """Range events: a subscription matches when each predicate shares a value with the
    event's predicate on its attribute."""
    for name in ("scan", "betree_star", "betree"):
        if name not in REGISTRY:
            continue
        ix = REGISTRY[name](**SMALL.get(name, {}))
        a = ix.insert("a1 between 1 and 3")
        b = ix.insert("a1 != 2")
        c = ix.insert("a1 in (7, 9)")
        d = ix.insert("a1 > 3")
        assert list(ix.match("a1 between 3 and 8")) == [a, b, c, d]
        assert list(ix.match("a1 = 2")) == [a]
        assert list(ix.match("a1 in (2, 8)")) == [a, b, d]
        assert list(ix.match("a1 not in (2, 9)")) == [a, b, c, d]
        assert list(ix.match("a1 < 3")) == [a, b]
        assert list(ix.match("a1 <= 3")) == [a, b]
        assert list(ix.match("a1 > 3")) == [b, c, d]


def test_parse_errors_name_the_token():
    with pytest.raises(InputError, match="'x'"):
        parse("a3 < x")
    with pytest.raises(InputError, match="'b3'"):
        parse("b3 = 4")
    with pytest.raises(InputError, match="end of input"):
        parse("a3 between 5")
    with pytest.raises(InputError, match="twice"):
        parse("a3 = 1, a3 = 2")
    with pytest.raises(InputError, match=r"'\$'"):
        parse("a3 $ 3")
    e = parse("a3 between 10 and 20 : 0.7, a9 in (3, 5) : 0.2, a1 < 4")
    assert e.text() == "a1 < 4 : 1, a3 between 10 and 20 : 0.7, a9 in (3, 5) : 0.2"
    assert e.lo[0] == -np.inf and e.hi[0] == np.nextafter(4, -np.inf)
    named = parse("age between 22 and 36 : 0.4", attributes={"age": 12})
    assert named.attr[0] == 12


def test_from_arrays():
    from cnsim.subscriptions.ranked.boolean import Expressions

    e = Expressions.from_arrays(
        indptr=[0, 2, 2, 3],
        attr=[9, 3, 1],
        op=["in", "between", "!="],
        weight=[0.2, 0.7, 1.0],
        value_indptr=[0, 2, 4, 5],
        values=[5, 3, 10, 20, 4],
    )
    assert len(e) == 3
    assert e.text(0) == "a3 between 10 and 20 : 0.7, a9 in (3, 5) : 0.2"
    assert e.text(1) == ""
    with pytest.raises(InputError, match="takes 2"):
        Expressions.from_arrays([0, 1], [1], ["between"], [1.0], [0, 1], [3])
    with pytest.raises(InputError, match="two predicates"):
        Expressions.from_arrays([0, 2], [1, 1], [2, 2], [1.0, 1.0], [0, 1, 2], [3, 4])


def test_table1_mapping():
    """Seed 002 Table I, row by row (epsilon: the neighbouring float64)."""
    inf = np.inf
    below, above = np.nextafter(4.0, -inf), np.nextafter(4.0, inf)
    rows = {
        "a1 < 4": (-inf, below),
        "a1 <= 4": (-inf, 4.0),
        "a1 = 4": (4.0, 4.0),
        "a1 != 4": (-inf, inf),
        "a1 >= 4": (4.0, inf),
        "a1 > 4": (above, inf),
        "a1 in (7, 4, 9)": (4.0, 9.0),
        "a1 not in (7, 4, 9)": (-inf, inf),
        "a1 between 4 and 9": (4.0, 9.0),
    }
    for text, want in rows.items():
        e = parse(text)
        assert (e.lo[0], e.hi[0]) == want, text
    # and the exact test behind the filter: Table I's boxes alone would match these
    subs = parse_many(["a1 != 4", "a1 not in (4, 5)", "a1 in (3, 5)", "a1 < 4", "a1 > 4"])
    assert list(brute_match(subs, parse("a1 = 4"))) == []
    for name in NAMES:
        ix = REGISTRY[name](subs)
        assert list(ix.match("a1 = 4")) == []
        assert list(ix.match("a1 = 5")) == [0, 2, 4]


def test_betree_parameters_default_to_the_papers():
    """Seed 002 §VII-B: A by match probability (Table II(a)), alpha = 10%, beta = 4, the
    exhaustive split; bad values are rejected with the key and the value."""
    cls = REGISTRY["betree_star"]
    for p, a in ((0.0001, 5), (0.001, 5), (0.0099, 5), (0.01, 20), (0.09, 20), (0.1, 160)):
        assert a == cls(match_probability=p).A
    ix = cls()
    assert (ix.A, ix.alpha, ix.beta, ix.split) == (5, 0.1, 4.0, "exhaustive")
    assert ix.recycle_below == 2 and (ix.ranking, ix.merge) == ("popularity", True)
    for kw, key in (({"leaf_capacity": 0}, "leaf_capacity"), ({"alpha": 0.7}, "alpha"),
                    ({"beta": 0.5}, "beta"), ({"split": "greedy"}, "split"),
                    ({"ranking": "loss"}, "ranking must be .* got 'loss'"),
                    ({"build_threads": 0}, "build_threads = 0; allowed: an integer >= 1"),
                    ({"build_threads": 2.0}, "build_threads = 2.0; allowed"),
                    ({"build_threads": True}, "build_threads = True; allowed"),
                    ({"build_threads": 10**6}, "<= 256")):  # fmt: skip
        with pytest.raises(InputError, match=key):
            cls(**kw)
