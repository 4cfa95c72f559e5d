"""BE*-tree construction: the O(n) exhaustive split (given ranks) equals the plain O(n^2)
definition; the bulk (BE*-B) build answers like brute force and stays fully dynamic
(inserts, deletes, recycling) afterwards."""

from __future__ import annotations

import math

import numpy as np
import pytest
from expression_strategies import OPS
from expression_strategies import expression as expressions
from hypothesis import given, settings
from hypothesis import strategies as st

from cnsim.subscriptions.ranked.boolean import REGISTRY, brute_match, brute_top_k, parse
from cnsim.subscriptions.ranked.boolean._build import exhaustive
from cnsim.subscriptions.ranked.boolean.betree import _length, _union_length

INF = math.inf


def expression(max_size=5, ops=OPS):
    return expressions(max_size, ops, 8, st.sampled_from([0.0, 0.5, 1.0, 2.0, 0.3]))


def exhaustive_reference(iv: np.ndarray, alpha: int):
    """The plain definition (the pre-numba implementation, kept as the oracle)."""
    n = len(iv)
    best, best_key = None, None
    lo, hi = iv[:, 0], iv[:, 1]
    for mirror in (False, True):
        a, b = (-hi, -lo) if mirror else (lo, hi)
        order = np.lexsort((a, b))
        a_s, b_s = a[order], b[order]
        pref_lo = np.minimum.accumulate(a_s)
        for cut in range(alpha, n - alpha + 1):
            llo, lhi = pref_lo[cut - 1], b_s[cut - 1]
            rest_a, rest_b = a_s[cut:], b_s[cut:]
            far = rest_a > lhi
            if far.sum() < alpha:
                continue
            olap = ~far
            if olap.any():
                olo, ohi = rest_a[olap].min(), rest_b[olap].max()
                overlap = _length(olo, ohi)
            else:
                olo, ohi, overlap = INF, -INF, 0.0
            rlo, rhi = rest_a[far].min(), rest_b[far].max()
            coverage = _union_length([(llo, lhi), (olo, ohi), (rlo, rhi)])
            key = (overlap, coverage)
            if best_key is None or key < best_key:
                side = np.ones(n, np.int64)
                side[order[:cut]] = 2 if mirror else 0
                side[order[cut:][far]] = 0 if mirror else 2
                best, best_key = side, key
    return best


# Table I intervals: finite, or open to one side, or the whole line (!=, not in)
WIDE = st.tuples(st.sampled_from([-INF, 0.0]), st.sampled_from([INF, 0.0]), st.integers(-20, 20))


@settings(max_examples=300, deadline=None)
@given(
    ivs=st.lists(st.tuples(st.integers(-20, 20), st.integers(0, 8)), min_size=2, max_size=40),
    wide=st.lists(st.tuples(st.integers(0, 39), WIDE), max_size=4),
    alpha=st.integers(1, 6),
)
def test_exhaustive_equals_reference(ivs, wide, alpha):
    iv = np.array([(a, a + w) for a, w in ivs], float)
    for t, (x, y, v) in wide:  # a few infinite intervals
        if t < len(iv):
            iv[t] = (x + v, y + v)
    if len(iv) < 2 * alpha:
        return
    want = exhaustive_reference(iv, alpha)
    side, ok = exhaustive(iv[:, 0].copy(), iv[:, 1].copy(), alpha)
    assert ok == (want is not None)
    if ok:
        np.testing.assert_array_equal(side, want)


def _check(ix, evs, k):
    S, alive = ix.subscriptions(), ix.alive()
    for ev in evs:
        e = parse(ev)
        np.testing.assert_array_equal(ix.match(ev), brute_match(S, e, alive))
        np.testing.assert_array_equal(ix.top_k(ev, k), brute_top_k(S, e, k, alive))


@settings(max_examples=60, deadline=None)
@given(
    name=st.sampled_from(["betree_star", "betree"]),
    subs=st.lists(expression(max_size=5), min_size=2, max_size=200),
    evs=st.lists(expression(max_size=8, ops=["="]), min_size=1, max_size=6),
    ops=st.lists(st.one_of(st.integers(0, 10**6), expression(max_size=5)), max_size=80),
    cap=st.sampled_from([1, 2, 3, 5]),
    k=st.integers(1, 6),
    ranking=st.sampled_from(["popularity", "selectivity"]),
)
@pytest.mark.slow
def test_bulk_then_dynamic(name, subs, evs, ops, cap, k, ranking):
    ix = REGISTRY[name](subs, leaf_capacity=cap, ranking=ranking)
    _check(ix, evs, k)
    live = list(range(len(subs)))
    for op in ops:  # deletes (with recycling) and inserts after the bulk build
        if isinstance(op, int):
            if live:
                ix.delete(live.pop(op % len(live)))
        else:
            live.append(ix.insert(op))
    assert len(ix) == len(live)
    _check(ix, evs, k)
    ix.insert_many(subs)  # a second batch into a non-empty tree: one by one
    _check(ix, evs, k)


@pytest.mark.slow  # the bench workload built both ways (14 s)
def test_bulk_matches_dynamic_answers():
    """The bulk and the one-by-one build answer every query identically."""
    from cnsim.subscriptions.ranked.boolean.workload import workload

    subs, events, w = workload(3, 50, n=3000, dist="zipf")
    a = REGISTRY["betree_star"](subs, match_probability=w["match_prob"])
    b = REGISTRY["betree_star"](subs, match_probability=w["match_prob"], bulk=False)
    np.testing.assert_array_equal(a.top_k_batch(events, 5), b.top_k_batch(events, 5))
    np.testing.assert_array_equal(a.count_batch(events), b.count_batch(events))


def _tables_equal(a, b) -> None:
    """Two BE*-trees hold the same nodes, numbered alike, with the same contents."""
    assert a.stats() == b.stats()
    tables = ("cn_sum", "cn_bucket", "cn_cap", "pn_attr", "pn_root", "pn_cnode", "pn_count",
              "pn_sum", "bk_lo", "bk_hi", "bk_olo", "bk_ohi", "bk_left", "bk_right",
              "bk_parent", "bk_cnode", "bk_pnode", "bk_split", "sub_cnode")  # fmt: skip
    for name in tables:
        np.testing.assert_array_equal(np.asarray(getattr(a, name)), np.asarray(getattr(b, name)))
    for p in range(len(a.pn_attr)):
        assert a.dims_of(p) == b.dims_of(p)
    if a.rigid:
        for k in range(len(a.bk_lo)):
            assert a.cell(k) == b.cell(k)
    for c in range(len(a.cn_bucket)):
        for slab in ("_leaf", "_pdir"):
            sa, sb = getattr(a, slab), getattr(b, slab)
            for k in range(len(sa.pools)):
                assert list(sa.col(c, k)) == list(sb.col(c, k)), (slab, c)
    for lst in range(len(a._sum.start)):
        for k in (0, 1):
            assert list(a._sum.col(lst, k)) == list(b._sum.col(lst, k))
    pairs = [(a.bucket_box(k), b.bucket_box(k)) for k in range(len(a.bk_lo))]
    pairs += [(a.cnode_box(c), b.cnode_box(c)) for c in range(len(a.cn_bucket))]
    for x, y in pairs:
        assert (x is None and y is None) or np.array_equal(x, y)


def _python_bulk(cls, subs, **kw):
    ix = cls(**kw)
    ix.numba_bulk = False  # the Python build, the reference
    ix.insert_many(subs)
    return ix


@settings(max_examples=40, deadline=None)
@given(
    subs=st.lists(expression(max_size=5), min_size=2, max_size=150),
    cap=st.sampled_from([1, 2, 3, 5]),
    split=st.sampled_from(["exhaustive", "approximate"]),
    ranking=st.sampled_from(["popularity", "selectivity"]),
)
def test_numba_bulk_builds_the_python_tree(subs, cap, split, ranking):
    cls = REGISTRY["betree_star"]
    kw = {"leaf_capacity": cap, "split": split, "ranking": ranking}
    _tables_equal(cls(subs, **kw), _python_bulk(cls, subs, **kw))


def test_numba_bulk_builds_the_python_tree_on_the_bench_workload():
    from cnsim.subscriptions.ranked.boolean.workload import workload

    cls = REGISTRY["betree_star"]
    for dist, split in (("uniform", "exhaustive"), ("zipf", "approximate")):
        subs, events, w = workload(5, 30, n=2500, dist=dist)
        kw = {"match_probability": w["match_prob"], "split": split}
        a, b = cls(subs, **kw), _python_bulk(cls, subs, **kw)
        _tables_equal(a, b)
        assert a.stats()["max_partition_depth"] > 1  # deep enough to mean something
        np.testing.assert_array_equal(a.top_k_batch(events, 5), b.top_k_batch(events, 5))


@settings(max_examples=60, deadline=None)
@given(keys=st.lists(st.one_of(st.integers(-5, 40), st.integers(-(2**40), 2**40)), max_size=300))
def test_argsort_int_is_the_stable_sort(keys):
    from cnsim.subscriptions.ranked.boolean._build import argsort_int

    a = np.array(keys, np.int64)
    np.testing.assert_array_equal(argsort_int(a), np.argsort(a, kind="stable"))


@settings(max_examples=40, deadline=None)
@given(
    subs=st.lists(expression(max_size=5), min_size=2, max_size=150),
    cap=st.sampled_from([1, 2, 3, 5]),
    domain=st.sampled_from([(0.0, 16.0), (0.0, 2.0**32), (-3.0, 7.0)]),
)
def test_numba_bulk_builds_the_python_betree(subs, cap, domain):
    """The BE-tree's bulk load (grid cuts, atomic cells partitioned) in numba is the
    Python build node for node, and answers alike after deletes and inserts."""
    cls = REGISTRY["betree"]
    kw = {"leaf_capacity": cap, "domain": domain}
    a, b = cls(subs, **kw), _python_bulk(cls, subs, **kw)
    _tables_equal(a, b)
    for ix in (a, b):
        for i in range(0, len(subs), 3):
            ix.delete(i)
        ix.insert_many(subs[:20])
    _tables_equal(a, b)


def test_numba_bulk_builds_the_python_betree_on_the_bench_workload():
    from cnsim.subscriptions.ranked.boolean.workload import make_index as _make
    from cnsim.subscriptions.ranked.boolean.workload import workload

    for dist in ("uniform", "zipf"):
        subs, events, w = workload(5, 30, n=2500, dist=dist)
        a = _make("betree", w, bulk=True)
        a.insert_many(subs)
        b = _make("betree", w, bulk=True)
        b.numba_bulk = False
        b.insert_many(subs)
        _tables_equal(a, b)
        assert a.stats()["buckets"] > 100  # grid cuts down to the ranges' size
        np.testing.assert_array_equal(a.top_k_batch(events, 5), b.top_k_batch(events, 5))


def _python_inserts(cls, subs, **kw):
    ix = cls(bulk=False, **kw)
    ix.numba_insert = False  # Algorithm 1 per expression in Python, the reference
    ix.insert_many(subs)
    return ix


@settings(max_examples=40, deadline=None)
@given(
    subs=st.lists(expression(max_size=5), min_size=2, max_size=150),
    more=st.lists(expression(max_size=5), min_size=2, max_size=60),
    dels=st.lists(st.integers(0, 10**6), max_size=40),
    cap=st.sampled_from([1, 2, 3, 5]),
    split=st.sampled_from(["exhaustive", "approximate"]),
    beta=st.sampled_from([1.0, 4.0]),
    bulk=st.booleans(),
    ranking=st.sampled_from(["popularity", "selectivity"]),
)
def test_numba_inserts_build_the_python_tree(subs, more, dels, cap, split, beta, bulk, ranking):
    """One-by-one insertion in numba (insert_many) builds the tree the Python
    Algorithm 1 builds, node for node: into an empty tree, and into a tree already
    built (in bulk or one by one) and thinned by deletions (recycling)."""
    cls = REGISTRY["betree_star"]
    kw = {"leaf_capacity": cap, "split": split, "beta": beta, "ranking": ranking}
    a, b = cls(subs, bulk=bulk, **kw), cls(bulk=bulk, **kw)
    b.numba_insert = False
    b.insert_many(subs)
    _tables_equal(a, b)
    for ix in (a, b):
        live = list(range(len(subs)))
        for d in dels:
            if live:
                ix.delete(live.pop(d % len(live)))
        ix.insert_many(more)
    _tables_equal(a, b)
    evs = [parse(e) for e in more[:4]]
    for e in evs:
        np.testing.assert_array_equal(a.top_k(e, 3), b.top_k(e, 3))


@pytest.mark.slow  # the bench workload, numba against Python inserts (8 s)
def test_numba_inserts_build_the_python_tree_on_the_bench_workload(monkeypatch):
    """... also when the kernel stops for room again and again (its tables start with
    a quarter of their size free and grow by doubling): it resumes where it stopped."""
    from cnsim.subscriptions.ranked.boolean import _insert
    from cnsim.subscriptions.ranked.boolean.workload import workload

    calls = []
    kernel = _insert.insert_many
    monkeypatch.setattr(_insert, "insert_many", lambda *a: calls.append(a[13]) or kernel(*a))
    cls = REGISTRY["betree_star"]
    for dist, split in (("uniform", "exhaustive"), ("zipf", "approximate")):
        subs, events, w = workload(7, 30, n=2500, dist=dist)
        kw = {"match_probability": w["match_prob"], "split": split}
        calls.clear()
        a, b = cls(subs, bulk=False, **kw), _python_inserts(cls, subs, **kw)
        assert len(calls) >= 5 and 0 < calls[-1] <= 2500  # resumed mid-way
        _tables_equal(a, b)
        assert a.stats()["p_nodes"] > 50 and a.stats()["buckets"] > 500
        np.testing.assert_array_equal(a.top_k_batch(events, 5), b.top_k_batch(events, 5))
        np.testing.assert_array_equal(a.count_batch(events), b.count_batch(events))


DEEP_DIRECTORY = """
import sys, threading
from cnsim.subscriptions.ranked.boolean import REGISTRY
from cnsim.subscriptions.ranked.boolean.expressions import parse_many
n = 2000
subs = parse_many([f"a0 between {i} and {i + 1} : 1.0" for i in range(n)])
tree = REGISTRY["betree_star"](leaf_capacity=2, bulk=False)
tree.insert_many(subs)
scan = REGISTRY["scan"]()
scan.insert_many(subs)
events = parse_many([f"a0 = {v}" for v in (0, 1, n // 2, n - 1, n)])
out = {}
threading.stack_size(256 * 1024)  # the C stack a 1,000-deep recursion overflows
t = threading.Thread(target=lambda: out.update(c=tree.count_batch(events),
                                               k=tree.top_k_batch(events, 3)))
t.start()
t.join()
assert (out["c"] == scan.count_batch(events)).all(), out
assert (out["k"] == scan.top_k_batch(events, 3)).all(), out
print(tree.stats()["buckets"])
"""


@pytest.mark.slow
def test_a_deep_c_directory_is_searched_without_deep_recursion():
    """Expressions inserted in order on one attribute make a c-directory ~1,000
    buckets deep (leaf capacity 2); the search walks it on an explicit stack, so
    matching runs in a thread with a 256 KB C stack (the recursive search overflowed
    it, and a 300,000-expression tree at 9% match probability the main 8 MB stack).
    In a subprocess, so a regression fails this test instead of killing the run."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", DEEP_DIRECTORY], capture_output=True,
                          text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert int(done.stdout.split()[-1]) > 1000  # the directory was built that deep


def rank_reference(subs, ids, used, n_buckets=10):
    """§V-B's selectivity rank written out plainly (the oracle of ``rank_attribute``):
    per unused attribute, gain = expressions with it, loss = mean size of the non-empty
    buckets of an equi-width histogram of their intervals over the finite endpoints."""
    ivs: dict[int, list] = {}
    for i in ids:
        for j in range(subs.indptr[i], subs.indptr[i + 1]):  # Table I intervals: lo, hi
            a = int(subs.attr[j])
            if a not in used:
                ivs.setdefault(a, []).append((subs.lo[j], subs.hi[j]))
    best, best_rank = -1, -INF
    for a in sorted(ivs):
        fin = [v for iv in ivs[a] for v in iv if math.isfinite(v)]
        gain = len(ivs[a])
        loss = float(gain)
        width = (max(fin) - min(fin)) / n_buckets if fin else 0.0
        if width > 0:  # (a range too narrow to divide, e.g. [-5e-324, 0]: one bucket)
            f0, f1 = min(fin), max(fin)
            hist = [0] * n_buckets
            for lo, hi in ivs[a]:
                b0 = int(min(n_buckets - 1, (max(lo, f0) - f0) / width))
                b1 = int(min(n_buckets - 1, (min(hi, f1) - f0) / width))
                for b in range(b0, b1 + 1):
                    hist[b] += 1
            full = [h for h in hist if h]
            loss = sum(full) / len(full)
        if gain - loss > best_rank:
            best, best_rank = a, gain - loss
    return best


@settings(max_examples=100, deadline=None)
@given(
    subs=st.lists(expression(max_size=5), min_size=1, max_size=60),
    used=st.sets(st.integers(0, 8), max_size=4),
)
def test_rank_attribute_is_the_selectivity_rank(subs, used):
    from cnsim.subscriptions.ranked.boolean import parse_many
    from cnsim.subscriptions.ranked.boolean._build import rank_attribute

    ix = REGISTRY["scan"](subs)
    st_ = ix._store
    ids = np.arange(len(subs), dtype=np.int64)
    got = rank_attribute(st_.s_start, st_.s_end, st_.p_attr, st_.p_lo, st_.p_hi, ids,
                         np.array(sorted(used), np.int64), 10)  # fmt: skip
    assert got == rank_reference(parse_many(subs), ids, used)


def test_selectivity_ranking_with_a_range_too_narrow_to_divide():
    """``< 0`` and ``<= 0`` give the finite endpoints -5e-324 and 0: a range whose tenth
    underflows to 0 is one bucket (it divided by zero before)."""
    subs = ["a1 < 0 : 0.0", "a1 <= 0 : 0.0", "a2 = 3", "a2 = 4"]
    for name in ("betree_star", "betree"):
        for bulk in (True, False):
            ix = REGISTRY[name](subs, leaf_capacity=1, ranking="selectivity", bulk=bulk)
            for ev in ("a1 = -1", "a1 = 0", "a2 = 4"):
                want = brute_match(ix.subscriptions(), parse(ev), ix.alive())
                np.testing.assert_array_equal(ix.match(ev), want)


def test_selectivity_ranking_prefers_the_spread_attribute():
    """An attribute present everywhere but with one value cannot cut anything (rank 0);
    a rarer one spread over its range wins; popularity picks the former."""
    subs = [f"a1 = 5, a2 between {10 * v} and {10 * v + 1}" for v in range(8)]
    subs += ["a1 = 5", "a1 = 5"]
    pop = REGISTRY["betree_star"](subs, leaf_capacity=2)
    sel = REGISTRY["betree_star"](subs, leaf_capacity=2, ranking="selectivity")
    assert list(pop._pdir.col(0, 0))[0] == 1 and list(sel._pdir.col(0, 0))[0] == 2
    for v in (5, 20, 71):
        e = parse(f"a1 = 5, a2 = {v}")
        want = brute_match(sel.subscriptions(), e, sel.alive())
        np.testing.assert_array_equal(sel.match(e), want)
        np.testing.assert_array_equal(pop.match(e), want)


# ------------------------------------------------- the build's numba pieces, one by one


@settings(max_examples=150, deadline=None)
@given(
    vals=st.lists(
        st.one_of(
            st.integers(-6, 6).map(float), st.sampled_from([-INF, INF, -0.0, 0.0, 0.5, 1e300])
        ),
        max_size=60,
    ),
    seed=st.integers(0, 2**16),
)
def test_ranks_and_counting_orders_are_numpys_sorts(vals, seed):
    """``dense_ranks`` ranks like ``np.unique``; the splits' orders, counting sorts of
    those ranks, are ``np.lexsort``'s (ties by position)."""
    from cnsim.subscriptions.ranked.boolean._build import _lexorder, dense_ranks

    x = np.array(vals, float)
    r, m = dense_ranks(x)
    uniq = np.unique(x)
    assert m == len(uniq)
    np.testing.assert_array_equal(r, np.searchsorted(uniq, x))
    y = np.random.default_rng(seed).permutation(x)
    np.testing.assert_array_equal(_lexorder(x, y), np.lexsort((x, y)))
    np.testing.assert_array_equal(_lexorder(-y, -x), np.lexsort((-y, -x)))


@settings(max_examples=300, deadline=None)
@given(
    ends=st.lists(
        st.one_of(
            st.integers(-4, 4).map(float), st.sampled_from([-INF, INF, 0.5, -0.0, np.nan])
        ),
        min_size=6,
        max_size=6,
    )
)
def test_union_length3_is_the_union_length(ends):
    """The exhaustive split's coverage of three intervals (empty ones skipped) is
    ``_union_length``'s, to the bit."""
    from cnsim.subscriptions.ranked.boolean._build import union_length3

    pairs = list(zip(ends[::2], ends[1::2], strict=True))
    want = _union_length(pairs)
    got = union_length3(*ends)
    assert np.array_equal([got], [want], equal_nan=True) and np.signbit(got) == np.signbit(want)


@settings(max_examples=150, deadline=None)
@given(
    lo=st.lists(st.integers(-5, 5).map(float), max_size=60),
    widths=st.lists(st.sampled_from([0.0, 0.5, 1.0, 3.0, INF]), min_size=60, max_size=60),
    sides=st.lists(st.sampled_from([0, 1, 2]), min_size=60, max_size=60),
)
def test_split_orders_are_numpys_and_restrict_to_each_side(lo, widths, sides):
    """The exhaustive split's four orders are numpy's stable sorts (ties by position),
    and :func:`child_orders` of any sides gives each side's own orders: what BE*-B
    carries down a c-directory instead of sorting at every split."""
    from cnsim.subscriptions.ranked.boolean._build import child_orders, split_orders

    def numpys(lo, hi):
        return np.stack([np.argsort(lo, kind="stable"), np.lexsort((lo, hi)),
                         np.argsort(-hi, kind="stable"), np.lexsort((-hi, -lo))])  # fmt: skip

    lo = np.array(lo, float)
    hi = lo + np.array(widths[: lo.size])
    od = split_orders(lo, hi)
    np.testing.assert_array_equal(od, numpys(lo, hi).reshape(4, -1))
    side = np.array(sides[: lo.size], np.int64)
    for got, s in zip(child_orders(od, side), (0, 2), strict=True):
        sel = side == s
        np.testing.assert_array_equal(got, numpys(lo[sel], hi[sel]).reshape(4, -1))


@settings(max_examples=100, deadline=None)
@given(
    vals=st.lists(
        st.one_of(
            st.integers(-6, 6).map(float),
            st.floats(allow_nan=False, width=64),
            st.sampled_from([-INF, INF, -0.0, 0.0, 0.5, -1e-300, 5e-324]),
        ),
        min_size=1,
        max_size=80,
    ),
    copies=st.integers(1, 40),
    seed=st.integers(0, 2**16),
)
def test_radix_ranks_are_numpys_sorts(vals, copies, seed):
    """From ``RADIX_MIN`` values on, ``dense_ranks`` sorts by radix (``radix_order``):
    still ``np.unique``'s ranks, the order ascending."""
    from cnsim.subscriptions.ranked.boolean._build import RADIX_MIN, dense_ranks, radix_order

    rng = np.random.default_rng(seed)
    x = rng.permutation(np.tile(np.array(vals, float), max(copies, -(-RADIX_MIN // len(vals)))))
    assert x.size >= RADIX_MIN
    o, _ = radix_order(x)
    assert sorted(o.tolist()) == list(range(x.size)) and np.all(x[o][1:] >= x[o][:-1])
    r, m = dense_ranks(x)
    uniq = np.unique(x)
    assert m == len(uniq)
    np.testing.assert_array_equal(r, np.searchsorted(uniq, x))


def _store(texts):
    from cnsim.subscriptions.ranked.boolean.base import Store
    from cnsim.subscriptions.ranked.boolean.expressions import parse_many

    st_ = Store()
    return st_, st_.append(parse_many(texts)) if texts else np.empty(0, np.int64)


def _attrs(store, i):
    return [int(a) for a in store.p_attr[store.s_start[i] : store.s_end[i]]]


@settings(max_examples=120, deadline=None)
@given(
    texts=st.lists(expression(max_size=6), max_size=40),
    used=st.sets(st.integers(0, 7), max_size=3),
    cap=st.integers(0, 6),
)
def test_partition_plan_and_summary_follow_their_definitions(texts, used, cap):
    """Algorithm 4's plan (popularity: the unused attribute most of the remaining
    expressions have, ties by the smaller, takes all of them, while more than ``cap``
    remain) and the weight summary (max weight per attribute), from their definitions."""
    from cnsim.subscriptions.ranked.boolean._build import partition_plan, summary

    store, ids = _store(texts)
    ids = np.random.default_rng(len(texts)).permutation(ids)
    attrs, gptr, members, rest, capped = partition_plan(
        store.s_start, store.s_end, store.p_attr, store.p_lo, store.p_hi, ids,
        np.array(sorted(used), np.int64), cap,
    )  # fmt: skip
    left, taken, want = [int(i) for i in ids], set(used), []
    want_capped = False
    while len(left) > cap:
        counts: dict[int, int] = {}
        for i in left:
            for a in _attrs(store, i):
                if a not in taken:
                    counts[a] = counts.get(a, 0) + 1
        if not counts:
            want_capped = True
            break
        a = min(counts, key=lambda x: (-counts[x], x))
        want.append((a, [i for i in left if a in _attrs(store, i)]))
        left = [i for i in left if a not in _attrs(store, i)]
        taken.add(a)
    got = [(int(attrs[g]), members[gptr[g] : gptr[g + 1]].tolist()) for g in range(len(attrs))]
    assert got == want and rest.tolist() == left and bool(capped) == want_capped
    ka, kw = summary(store.s_start, store.s_end, store.p_attr, store.p_w, ids)
    best: dict[int, float] = {}
    for i in ids:
        for j in range(store.s_start[i], store.s_end[i]):
            a = int(store.p_attr[j])
            best[a] = max(best.get(a, -INF), float(store.p_w[j]))
    assert ka.tolist() == sorted(best) and kw.tolist() == [best[a] for a in sorted(best)]
    # the plan with its groups' intervals and summaries (BE*-B's): the same plan, each
    # member's interval on its group's attribute, each group's and the rest's summary
    from cnsim.subscriptions.ranked.boolean._build import gather, partition_gathered

    st_ = (store.s_start, store.s_end, store.p_attr)
    attrs2, gptr2, members2, rest2, capped2, iv, kptr, kattr, kw2 = partition_gathered(
        *st_, store.p_lo, store.p_hi, store.p_w, ids, np.array(sorted(used), np.int64), cap
    )
    np.testing.assert_array_equal(attrs2, attrs)
    np.testing.assert_array_equal(gptr2, gptr)
    np.testing.assert_array_equal(members2, members)
    np.testing.assert_array_equal(rest2, rest)
    assert capped2 == capped and len(kptr) == len(attrs) + 2
    for g in range(len(attrs) + 1):
        grp = members[gptr[g] : gptr[g + 1]] if g < len(attrs) else rest
        want_a, want_w = summary(*st_, store.p_w, grp)
        np.testing.assert_array_equal(kattr[kptr[g] : kptr[g + 1]], want_a)
        np.testing.assert_array_equal(kw2[kptr[g] : kptr[g + 1]], want_w)
        if g < len(attrs):
            np.testing.assert_array_equal(iv[gptr[g] : gptr[g + 1], 0],
                                          gather(*st_, store.p_lo, grp, attrs[g]))  # fmt: skip
            np.testing.assert_array_equal(iv[gptr[g] : gptr[g + 1], 1],
                                          gather(*st_, store.p_hi, grp, attrs[g]))  # fmt: skip


@pytest.mark.parametrize("dist", ["uniform", "zipf"])
def test_seeded_bench_builds_keep_the_invariants_and_match_like_brute_force(dist):
    """The bench workload at a fixed seed, built by every path (BE*-B, one by one in
    numba, the BE-tree's bulk load): each tree holds every invariant of
    ``test_betree_invariants`` and answers every event like the scan."""
    from test_betree_invariants import check_invariants

    from cnsim.subscriptions.ranked.boolean.workload import make_index, workload

    subs, events, w = workload(11, 40, n=1500, dist=dist)
    scan = make_index("scan", w)
    scan.insert_many(subs)
    for name, bulk in (("betree_star", True), ("betree_star", False), ("betree", True)):
        ix = make_index(name, w, bulk=bulk)
        ix.insert_many(subs)
        assert ix.stats()["p_nodes"] > 10 and ix.stats()["buckets"] > 100
        check_invariants(ix)
        np.testing.assert_array_equal(ix.count_batch(events), scan.count_batch(events))
        np.testing.assert_array_equal(ix.top_k_batch(events, 5), scan.top_k_batch(events, 5))


@settings(max_examples=80, deadline=None)
@given(
    texts=st.lists(expression(max_size=6), max_size=40),
    extra=st.integers(0, 5),
    cap=st.integers(0, 6),
)
def test_root_localized_copies_and_renumbers_the_root_partition(texts, extra, cap):
    """BE*-B's local copy after the root partition (``root_localized``): every
    expression's predicates copied unchanged under its new number, the new numbers a
    permutation that puts each group's members together (groups in order, by lower
    bound) then the rest, and the members and rest lists renumbered in their order."""
    from cnsim.subscriptions.ranked.boolean._build import partition_gathered, root_localized

    store, ids = _store(texts)
    ids = np.random.default_rng(len(texts)).permutation(ids)[extra:]  # (not all the store)
    cols = (store.s_start, store.s_end, store.p_attr, store.p_lo, store.p_hi, store.p_w)
    none = np.empty(0, np.int64)
    attrs, gptr, members, rest, _, iv, *_ = partition_gathered(*cols, ids, none, cap)
    loc = root_localized(*cols, ids, gptr, members, rest, iv)
    ns, ne, na, nlo, nhi, nw, nmem, nrest, back = loc
    assert sorted(back.tolist()) == sorted(ids.tolist()) and ns.size == ids.size
    np.testing.assert_array_equal(back[nmem], members)
    np.testing.assert_array_equal(back[nrest], rest)
    assert sorted(nrest.tolist()) == list(range(members.size, ids.size))
    for g in range(len(attrs)):  # a group's members: one block, ascending lower bounds
        new = nmem[gptr[g] : gptr[g + 1]]
        assert sorted(new.tolist()) == list(range(gptr[g], gptr[g + 1]))
        lo = iv[gptr[g] : gptr[g + 1], 0][np.argsort(new)]
        assert np.all(lo[1:] >= lo[:-1])
    for k, i in enumerate(back):
        old, cp = slice(store.s_start[i], store.s_end[i]), slice(ns[k], ne[k])
        for a, b in ((store.p_attr, na), (store.p_lo, nlo), (store.p_hi, nhi), (store.p_w, nw)):
            np.testing.assert_array_equal(a[old], b[cp])


def _threads_against_one(subs, threads, grain, rigid=False, cap=5, split="exhaustive",
                         ranking="popularity") -> None:  # fmt: skip
    """BE*-B (with ``rigid`` the BE-tree's bulk load) of ``subs`` on ``threads`` threads,
    every task of ``grain`` expressions or more built apart, gives the one-thread
    build's tables, every column row for row."""
    from cnsim.subscriptions.ranked.boolean._bulk_threads import build_tables
    from cnsim.subscriptions.ranked.boolean.base import Store, as_expressions

    store = Store()
    ids = store.append(as_expressions(subs, "subs"))
    cols = (store.s_start, store.s_end, store.p_attr, store.p_lo, store.p_hi, store.p_w)
    prm = (cap, 0.1, split == "exhaustive", rigid, 0.0, 16.0, ranking == "selectivity")
    a = build_tables(cols, ids, *prm, threads, grain)
    b = build_tables(cols, ids, *prm, 1, 0)
    assert a[0].keys() == b[0].keys() and a[1] == b[1]
    for name in a[0]:
        np.testing.assert_array_equal(a[0][name], b[0][name], err_msg=name)


@settings(max_examples=60, deadline=None)
@given(
    subs=st.lists(expression(max_size=5), min_size=2, max_size=150),
    cap=st.sampled_from([1, 2, 3, 5]),
    split=st.sampled_from(["exhaustive", "approximate"]),
    ranking=st.sampled_from(["popularity", "selectivity"]),
    rigid=st.booleans(),
    threads=st.integers(2, 3),
    grain=st.integers(0, 160),
)
def test_threaded_bulk_builds_the_one_thread_tables(subs, cap, split, ranking, rigid, threads,
                                                    grain):  # fmt: skip
    """BE*-B with every task of ``grain`` expressions or more built apart on threads
    (nested: a subtree's own large tasks too) and numbered in gives the one-thread
    build's tables (:func:`_threads_against_one`)."""
    _threads_against_one(subs, threads, grain, rigid, cap, split, ranking)


@pytest.mark.parametrize("dist", ["uniform", "zipf"])
def test_build_threads_give_the_same_tree(dist, monkeypatch):
    """A BE*-tree of the benchmark's workload built on two threads (above the size that
    turns them on) is the one-thread tree, node for node, and answers alike; finer
    grains too, with subtrees of every kind of task built apart."""
    from cnsim.subscriptions.ranked.boolean import _build
    from cnsim.subscriptions.ranked.boolean._bulk_threads import GRAINS, MIN_THREADED, grain_for
    from cnsim.subscriptions.ranked.boolean.workload import make_index, workload

    n = MIN_THREADED + 5_000
    subs, events, w = workload(3, 20, n=n, dist=dist)
    one = make_index("betree_star", w, bulk=True)
    one.insert_many(subs)
    two = make_index("betree_star", w, bulk=True, build_threads=2)
    two.insert_many(subs)
    _tables_equal(one, two)
    for name in ("cn_sum", "cn_bucket", "pn_dims", "bk_lo", "bk_ohi", "bx"):
        a, b = (np.asarray(getattr(ix, name)) for ix in (one, two))
        np.testing.assert_array_equal(a, b, err_msg=name)
    np.testing.assert_array_equal(one.top_k_batch(events, 5), two.top_k_batch(events, 5))
    assert grain_for(n, 2) == n // (2 * GRAINS) and grain_for(MIN_THREADED - 1, 2) == 0
    kinds = set()
    grow = _build.grow_subtree

    def recorded(*args):
        kinds.add(int(args[3][_build.TASK_KIND]))
        return grow(*args)

    monkeypatch.setattr(_build, "grow_subtree", recorded)
    small, _, _ = workload(4, 1, n=3_000, dist=dist)
    for grain in (30, 750):
        _threads_against_one(small, 2, grain)
        _threads_against_one(small, 3, grain, rigid=True)
    assert kinds == {0, 1, 2}
