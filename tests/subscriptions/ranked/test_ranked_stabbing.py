"""Every top-k stabbing structure against brute force (seed 000, seed 004)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cnsim.errors import InputError
from cnsim.subscriptions.ranked import REGISTRY, brute_top_k
from cnsim.subscriptions.ranked.rtree import constraint_graph, sopt_arrangement
from cnsim.subscriptions.ranked.segment_tree import elementary
from cnsim.subscriptions.ranked.st_psa import STPSA

NAMES = sorted(REGISTRY)
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def build(name, l, r, s, b=3):
    """Small R-tree fan-out and forest groups, so that tiny inputs still have several
    levels and several trees."""
    params = {"b": b} if name in ("scored_rtree", "ir_tree", "sopt_rtree") else {}
    if name == "interval_forest":
        params = {"group_size": b}
    return REGISTRY[name](l, r, s, **params)


@st.composite
def interval_sets(draw, max_n=40):
    """Intervals on a coarse grid (nested, identical, zero-length, shared endpoints)
    or on floats, with duplicate-heavy or continuous scores."""
    n = draw(st.integers(0, max_n))
    grid = draw(st.booleans())
    if grid:
        a = np.array(draw(st.lists(st.integers(-5, 15), min_size=n, max_size=n)), float)
        w = np.array(draw(st.lists(st.integers(0, 6), min_size=n, max_size=n)), float)
    else:
        a = np.array(draw(st.lists(st.floats(-1, 1), min_size=n, max_size=n)))
        w = np.array(draw(st.lists(st.floats(0, 1), min_size=n, max_size=n)))
    if draw(st.booleans()):
        s = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), float)
    else:
        s = np.array(draw(st.lists(st.floats(-1e3, 1e3), min_size=n, max_size=n)))
    return a, a + w, s


def queries(l, r):
    """Every endpoint, points just beside them, between them and outside all."""
    with np.errstate(invalid="ignore"):
        mid = (l + r) / 2
    pts = np.concatenate(
        [l, r, np.nextafter(l, -np.inf), np.nextafter(r, np.inf), mid, [-100.0, 100.0, 0.0, 0.5]]
    )
    return np.unique(pts[~np.isnan(pts)])


@SETTINGS
@given(data=interval_sets(), b=st.sampled_from([2, 3, 50]))
@pytest.mark.slow
def test_top_k_equals_brute_force(data, b):
    l, r, s = data
    ks = (0, 1, 2, 5, len(l) + 3)
    for name in NAMES:
        ix = build(name, l, r, s, b)
        assert len(ix) == len(l)
        for q in queries(l, r):
            for k in ks:
                got = ix.top_k(q, k)
                assert got.dtype == np.int64
                np.testing.assert_array_equal(
                    got, brute_top_k(l, r, s, q, k), err_msg=f"{name} q={q} k={k}"
                )


@SETTINGS
@given(data=interval_sets(max_n=80))
def test_iter_desc_yields_the_stabbed_set_in_rank_order(data):
    l, r, s = data
    for name in NAMES:
        ix = build(name, l, r, s)
        for q in queries(l, r)[::3]:
            ids = np.array(list(ix.iter_desc(q)), np.int64)
            stabbed = np.flatnonzero((l <= q) & (q <= r))
            assert sorted(ids.tolist()) == stabbed.tolist(), name
            assert (np.diff(s[ids]) <= 0).all(), name
            np.testing.assert_array_equal(ids, brute_top_k(l, r, s, q, len(l)))


ADVERSARIAL = {
    "nested": (np.arange(30.0), 60 - np.arange(30.0), np.arange(30.0) % 4),
    "identical": (np.full(25, 2.0), np.full(25, 7.0), np.full(25, 1.0)),
    "zero_length": (np.arange(20.0) // 2, np.arange(20.0) // 2, -np.arange(20.0)),
    "chain": (np.arange(40.0), np.arange(40.0) + 1, np.ones(40)),
    "staircase": (np.arange(40.0), np.full(40, 40.0), np.arange(40.0)),
    "empty": (np.empty(0), np.empty(0), np.empty(0)),
    "infinite": (
        np.array([-np.inf, 0.0, 3.0]),
        np.array([np.inf, 5.0, np.inf]),
        np.array([1.0, 2.0, 2.0]),
    ),
}


@pytest.mark.parametrize("case", sorted(ADVERSARIAL))
@pytest.mark.parametrize("name", NAMES)
def test_adversarial_inputs(name, case):
    l, r, s = ADVERSARIAL[case]
    for b in (2, 50):
        ix = build(name, l, r, s, b)
        for q in list(queries(l, r)) + [-np.inf, np.inf]:
            for k in (0, 1, 3, 1000):
                np.testing.assert_array_equal(ix.top_k(q, k), brute_top_k(l, r, s, q, k))


@pytest.mark.parametrize("name", NAMES)
def test_random_large_default_fanout(name):
    rng = np.random.default_rng(7)
    n = 3000
    c = rng.random(n)
    w = rng.random(n) ** 4
    l, r, s = c - w, c + w, np.round(rng.normal(5000, 1500, n))
    ix = REGISTRY[name](l, r, s)
    qs = rng.random(40) * 1.2 - 0.1
    for k in (1, 25, 100):
        rows = ix.top_k_batch(qs, k)
        for q, row in zip(qs, rows, strict=True):
            exp = brute_top_k(l, r, s, q, k)
            np.testing.assert_array_equal(ix.top_k(q, k), exp)
            np.testing.assert_array_equal(row[row >= 0], exp)


@st.composite
def update_scripts(draw):
    base = draw(interval_sets(max_n=20))
    ops = draw(
        st.lists(
            st.tuples(
                st.booleans(),
                st.integers(-5, 15),
                st.integers(0, 5),
                st.integers(0, 3),
                st.integers(0, 10**6),
            ),
            min_size=1,
            max_size=60,
        )
    )
    return base, ops


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(script=update_scripts())
def test_insert_delete_equal_brute_force(script):
    (l, r, s), ops = script
    for name in NAMES:
        ix = build(name, l, r, s)
        L, R, S = list(l), list(r), list(s)
        alive = [True] * len(l)
        for is_insert, a, w, sc, pick in ops:
            live = np.flatnonzero(alive)
            if is_insert or not len(live):
                assert ix.insert(a, a + w, sc) == len(L)
                L.append(float(a))
                R.append(float(a + w))
                S.append(float(sc))
                alive.append(True)
            else:
                j = int(live[pick % len(live)])
                ix.delete(j)
                alive[j] = False
            la = np.where(alive, L, np.inf)  # dead intervals contain no point
            ra, sa = np.array(R), np.array(S)
            assert len(ix) == sum(alive)
            for q in (a - 0.5, a, a + 0.5, a + w):
                for k in (1, 4):
                    np.testing.assert_array_equal(
                        ix.top_k(q, k), brute_top_k(la, ra, sa, q, k), err_msg=name
                    )
        with pytest.raises(InputError):
            ix.delete(len(L) + 5)


def test_updates_survive_rebuilds():
    rng = np.random.default_rng(3)
    l = rng.random(200)
    r = l + rng.random(200) * 0.2
    s = rng.random(200)
    ix = REGISTRY["ir_tree"](l, r, s)
    for _ in range(300):  # past the buffer budget: several rebuilds
        a = rng.random()
        ix.insert(a, a + 0.1, rng.random())
    for j in range(0, 400, 2):  # past the tombstone budget
        ix.delete(j)
    L, R, S = ix._L[: ix._size], ix._R[: ix._size], ix._S[: ix._size]
    la = np.where(ix._alive[: ix._size], L, np.inf)
    for q in rng.random(30):
        np.testing.assert_array_equal(ix.top_k(q, 10), brute_top_k(la, R, S, q, 10))


@SETTINGS
@given(data=interval_sets(max_n=60))
def test_sopt_constraint_graph_and_arrangement(data):
    """Lemma 3.4 (|E| <= 3n) and Lemma 3.2's premise: the arrangement puts every
    interval after all better-ranked intervals it intersects."""
    l, r, s = data
    order = np.lexsort((np.arange(len(s)), -s))
    Lr, Rr = l[order], r[order]
    if len(l):
        _, A, B, n_cells = elementary(Lr, Rr)
        src, dst = constraint_graph(A, B, n_cells)
        assert len({(a, b) for a, b in zip(src, dst, strict=True)}) <= 3 * len(l)
        assert (src < dst).all()
    arr = sopt_arrangement(Lr, Rr)
    assert sorted(arr.tolist()) == list(range(len(l)))
    pos = np.empty(len(l), int)
    pos[arr] = np.arange(len(l))
    meet = (Lr[:, None] <= Rr[None, :]) & (Lr[None, :] <= Rr[:, None])
    i, j = np.nonzero(np.triu(meet, 1))
    assert (pos[i] < pos[j]).all()


def test_st_psa_memory_is_measured_and_capped():
    n = 400
    l, r = -np.arange(n, dtype=float), np.arange(n, dtype=float)  # fully nested
    s = np.arange(n, dtype=float)
    ix = STPSA(l, r, s)
    assert ix.nbytes() == STPSA.estimate_nbytes(l, r)
    # nested: cell c of 4n + 1 holds about n - |c - 2n| / 2 intervals -> quadratic
    assert ix._items.size > n * n
    with pytest.raises(InputError, match="max_bytes"):
        STPSA(l, r, s, max_bytes=10_000)


@pytest.mark.parametrize("name", NAMES)
def test_nbytes_positive_and_inputs_validated(name):
    l, r, s = np.array([0.0, 1.0]), np.array([2.0, 3.0]), np.array([1.0, 2.0])
    assert REGISTRY[name](l, r, s).nbytes() > 0
    with pytest.raises(InputError, match="l > r"):
        REGISTRY[name]([1.0], [0.0], [1.0])
    with pytest.raises(InputError, match="NaN"):
        REGISTRY[name]([np.nan], [0.0], [1.0])
    with pytest.raises(InputError, match="lengths"):
        REGISTRY[name]([0.0], [0.0, 1.0], [1.0])
    with pytest.raises(InputError, match="k must be"):
        REGISTRY[name](l, r, s).top_k(1.0, -1)
