"""The k-index against brute force where its discretisation matters: values that are
not integers of the domain (FRAC), values outside it, intervals wider than
``max_cells`` (ANY), != / not in with integer and fractional exclusions, rebuilds after
inserts and deletes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cnsim.errors import InputError
from cnsim.subscriptions.ranked.boolean import KIndex, brute_match, brute_top_k, parse

VALUES = st.sampled_from([-3, -1, 0, 0.5, 1, 2, 2.5, 3, 4, 5, 7, 9, 11, 12.25])
OPS = ["<", "<=", "=", "!=", ">=", ">", "in", "not in", "between"]
WEIGHTS = st.sampled_from([0.0, 0.5, 1.0, 2.0]) | st.floats(0, 3, allow_subnormal=False)


@st.composite
def predicate(draw, ops=OPS):
    a = draw(st.integers(0, 5))
    op = draw(st.sampled_from(ops))
    if op in ("in", "not in"):
        rhs = "(" + ", ".join(map(str, draw(st.lists(VALUES, min_size=1, max_size=4)))) + ")"
    elif op == "between":
        v = draw(VALUES)
        rhs = f"{v} and {v + draw(st.sampled_from([0, 0.5, 1, 3, 20]))}"
    else:
        rhs = str(draw(VALUES))
    return a, f"a{a} {op} {rhs} : {draw(WEIGHTS)!r}"


@st.composite
def expression(draw, max_size=4, ops=OPS):
    preds = draw(st.lists(predicate(ops), max_size=max_size, unique_by=lambda p: p[0]))
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
