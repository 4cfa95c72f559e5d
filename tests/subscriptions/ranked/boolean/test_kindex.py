"""The k-index against brute force where its discretisation matters: values that are
not integers of the domain (FRAC), values outside it, intervals wider than
``max_cells`` (ANY), != / not in with integer and fractional exclusions, rebuilds after
inserts and deletes; the two-pass numba build against the first (reference) build,
array for array; top-k with the partitions visited by bound and by size, for k = 1, 5
and large k, with many equal scores."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cnsim.errors import InputError
from cnsim.subscriptions.ranked.boolean import KIndex, brute_match, brute_top_k, parse
from cnsim.subscriptions.ranked.boolean.kindex import _build_numpy

VALUES = st.sampled_from([-3, -1, 0, 0.5, 1, 2, 2.5, 3, 4, 5, 7, 9, 11, 12.25])
OPS = ["<", "<=", "=", "!=", ">=", ">", "in", "not in", "between"]
WEIGHTS = st.sampled_from([0.0, 0.5, 1.0, 2.0]) | st.floats(0, 3, allow_subnormal=False)
FEW = st.sampled_from([0.0, 0.5, 1.0])  # scores and bounds tie often


@st.composite
def predicate(draw, ops=OPS, weights=WEIGHTS):
    a = draw(st.integers(0, 5))
    op = draw(st.sampled_from(ops))
    if op in ("in", "not in"):
        rhs = "(" + ", ".join(map(str, draw(st.lists(VALUES, min_size=1, max_size=4)))) + ")"
    elif op == "between":
        v = draw(VALUES)
        rhs = f"{v} and {v + draw(st.sampled_from([0, 0.5, 1, 3, 20]))}"
    else:
        rhs = str(draw(VALUES))
    return a, f"a{a} {op} {rhs} : {draw(weights)!r}"


@st.composite
def expression(draw, max_size=4, ops=OPS, weights=WEIGHTS):
    preds = draw(st.lists(predicate(ops, weights), max_size=max_size, unique_by=lambda p: p[0]))
    return ", ".join(p[1] for p in preds)


@settings(max_examples=80, deadline=None)
@given(
    subs=st.lists(expression(), max_size=60),
    evs=st.lists(expression(max_size=6, ops=["="]), min_size=1, max_size=6),
    dels=st.lists(st.integers(0, 100), max_size=30),
    more=st.lists(expression(), max_size=10),
    k=st.integers(1, 6),
    max_cells=st.sampled_from([1, 3, 64]),
)
def test_discretisation_against_brute_force(subs, evs, dels, more, k, max_cells):
    ix = KIndex(subs, domain=(0, 10), max_cells=max_cells)
    live = list(range(len(subs)))
    for d in dels:  # deletes: first lazily (dead ids skipped), then a rebuild
        if live:
            ix.delete(live.pop(d % len(live)))
    for phase in range(2):
        S, alive = ix.subscriptions(), ix.alive()
        out = ix.top_k_batch(evs, k)
        for q, ev in enumerate(evs):
            e = parse(ev)
            np.testing.assert_array_equal(ix.match(ev), brute_match(S, e, alive))
            want = brute_top_k(S, e, k, alive)
            np.testing.assert_array_equal(ix.top_k(ev, k), want)
            np.testing.assert_array_equal(out[q, : len(want)], want)
        if phase == 0:
            ix.insert_many(more) if more else None


def test_point_events_only():
    ix = KIndex(["a1 between 1 and 3"])
    with pytest.raises(InputError, match="point events"):
        ix.match("a1 between 3 and 8")
    with pytest.raises(InputError, match="point events"):
        ix.top_k_batch(["a1 = 2", "a1 in (2, 3)"], 1)
    with pytest.raises(InputError, match="domain"):
        KIndex(domain=(5, 1))
    with pytest.raises(InputError, match="max_cells"):
        KIndex(max_cells=0)
    with pytest.raises(InputError, match="partition_order must be 'bound' or 'size', got 'k'"):
        KIndex(partition_order="k")


def test_structure():
    """Partitions by size, the Z list, enumeration and ANY."""
    ix = KIndex(["", "a1 = 3", "a1 between 2 and 4, a2 > 5", "a1 != 3"], domain=(0, 100),
                max_cells=10)  # fmt: skip
    s = ix.stats()
    # partition 0 (Z), 1 (a1 = 3; a1 != 3), 2 (the between and the open range)
    assert s["partitions"] == 3
    # entries: Z 1, a1=3: 1, between: 3 cells + FRAC, a2 > 5: ANY, != 3: ANY + not-in 3
    assert s["entries"] == 1 + 1 + 4 + 1 + 2
    assert list(ix.match("a1 = 3, a2 = 6")) == [0, 1, 2]
    assert list(ix.match("a1 = 3.5, a2 = 6")) == [0, 2, 3]
    assert list(ix.match("a1 = 200, a2 = 6")) == [0, 3]


def assert_built_as_reference(ix):
    """The index's lists equal the first build's, dtype and value, array for array."""
    ix._build()
    want = list(_build_numpy(ix))
    if len(want[1]) == 0:  # no lists: the reference's np.append left a stray l_end [0]
        assert want[3].tolist() == [0]
        want[3] = want[3][:0]
    names = ("pk_ptr", "l_key", "l_start", "l_end", "l_ub", "sid", "neg", "dlo", "dhi")
    assert len(ix._built) == len(want) == len(names)
    for name, got, ref in zip(names, ix._built, want, strict=True):
        if isinstance(ref, np.ndarray):
            assert got.dtype == ref.dtype, name
            np.testing.assert_array_equal(got, ref, err_msg=name)
        else:
            assert got == ref, name


@settings(max_examples=150, deadline=None)
@given(
    subs=st.lists(expression(max_size=5), max_size=80),
    dels=st.lists(st.integers(0, 100), max_size=40),
    more=st.lists(expression(), max_size=20),
    max_cells=st.sampled_from([1, 2, 3, 64]),
    domain=st.sampled_from([(0, 10), (-2, 5), (3, 3)]),
)
def test_build_equals_reference(subs, dels, more, max_cells, domain):
    """=, in (several values on FRAC: one entry), != / not in (ANY + "not in" entries),
    wide intervals (ANY), values outside the domain, empty expressions (the Z list),
    after deletions (dead ids left out) and after more inserts."""
    ix = KIndex(subs, domain=domain, max_cells=max_cells)
    assert_built_as_reference(ix)
    live = list(range(len(subs)))
    for d in dels:
        if live:
            ix.delete(live.pop(d % len(live)))
    assert_built_as_reference(ix)
    ix.insert_many(more) if more else None
    assert_built_as_reference(ix)


def test_build_equals_reference_examples():
    """Hand-picked entries: both an "in" and several FRAC values, "not in" on integers
    and fractions, a range covering exactly max_cells integers and one more."""
    subs = ["", "a1 in (0.5, 2.5, 3)", "a1 not in (2, 2.5, 11), a2 = 0.5",
            "a3 between 1 and 3", "a3 between 1 and 4, a1 != 0", "a4 > 7.5, a0 < 0",
            "a5 >= 10, a6 <= -1", ""]  # fmt: skip
    ix = KIndex(subs, domain=(0, 10), max_cells=3)
    assert_built_as_reference(ix)
    ix.delete(0)
    ix.delete(7)
    assert_built_as_reference(ix)
    assert KIndex([])._kernel()[1][0].tolist() == [0]  # no lists: one partition pointer


@pytest.mark.parametrize("order", ["bound", "size"])
@settings(max_examples=60, deadline=None)
@given(
    subs=st.lists(expression(max_size=4, weights=FEW), max_size=80),
    evs=st.lists(expression(max_size=6, ops=["="], weights=FEW), min_size=1, max_size=5),
    dels=st.lists(st.integers(0, 100), max_size=10),
    k=st.sampled_from([1, 2, 5, 50, 1000]),
)
def test_top_k_by_partition_order(order, subs, evs, dels, k):
    """Top-k with the partitions visited by descending bound (stopping at the first that
    cannot beat the k-th score) or by size, against brute force; weights from a few
    values so that scores and bounds tie often."""
    ix = KIndex(subs, domain=(0, 10), max_cells=3, partition_order=order)
    live = list(range(len(subs)))
    for d in dels:
        if live:
            ix.delete(live.pop(d % len(live)))
    S, alive = ix.subscriptions(), ix.alive()
    out = ix.top_k_batch(evs, k)
    for q, ev in enumerate(evs):
        want = brute_top_k(S, parse(ev), k, alive)
        np.testing.assert_array_equal(ix.top_k(ev, k), want)
        np.testing.assert_array_equal(out[q, : len(want)], want)
        assert (out[q, len(want) :] == -1).all()


@pytest.mark.parametrize("order", ["bound", "size"])
def test_equal_bounds_and_scores_ties_by_id(order):
    """Every partition's bound equals the best score (1.0, inflated alike), visited by
    larger K first on equal bounds, the smallest id in the last one: it must still
    win; with the Z list's bound 0 visited last."""
    ix = KIndex(["a1 = 1 : 1", "a1 = 1 : 0.5, a2 = 1 : 0.5", "",
                 "a1 = 1 : 0.25, a2 = 1 : 0.25, a3 = 1 : 0.5", "a2 = 1 : 1", ""],
                partition_order=order)  # fmt: skip
    ev = "a1 = 1 : 1, a2 = 1 : 1, a3 = 1 : 1"
    assert list(ix.top_k(ev, 1)) == [0]
    assert list(ix.top_k(ev, 3)) == [0, 1, 3]
    assert list(ix.top_k(ev, 5)) == [0, 1, 3, 4, 2]
    assert list(ix.top_k(ev, 100)) == [0, 1, 3, 4, 2, 5]
    assert ix.top_k_batch([ev, "a2 = 1 : 1"], 2).tolist() == [[0, 1], [4, 2]]
    ix.delete(0)
    assert list(ix.top_k(ev, 2)) == [1, 3]
