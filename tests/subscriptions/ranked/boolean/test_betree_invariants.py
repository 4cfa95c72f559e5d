"""The BE*-tree's structural invariants (seed 002 §IV-B, §IV-C, §V-A) after random
builds, inserts, deletes and recycling, checked against the expressions themselves:

* every live expression sits in exactly one l-node, under p-nodes of attributes it has;
* every bucket's bound B^k and its c-node's box are the *exact* union of the boxes of
  the expressions below them, over all the partition attributes of their path: deletion
  shrinks them through the inactive dimensions (§IV-B), matching alone cannot see this;
* descendant repelling: the left and right children of a bucket never overlap on the
  active dimension (§V-A3);
* a p-node's count (its rank) is the number of expressions below it; one that falls
  below ``recycle_below`` is dissolved and its expressions reinserted (recycling);
* the l-node weight summaries are exact, the p-node summaries upper bounds (§III-C)."""

from __future__ import annotations

import numpy as np
from expression_strategies import expression
from hypothesis import given, settings
from hypothesis import strategies as st

from cnsim.subscriptions.ranked.boolean import REGISTRY, brute_match, parse

INF = np.inf

def _c_ids(ix, c: int) -> list[int]:
    out = list(ix._leaf.col(c))
    for p in ix._pdir.col(c, 1):
        out += _b_ids(ix, ix.pn_root[p])
    return out


def _b_ids(ix, b: int) -> list[int]:
    out = _c_ids(ix, ix.bk_cnode[b])
    for ch in (ix.bk_left[b], ix.bk_right[b]):
        if ch >= 0:
            out += _b_ids(ix, ch)
    return out


def _union(ix, ids, dims) -> np.ndarray:
    box = np.empty((len(dims), 2))
    box[:, 0], box[:, 1] = INF, -INF
    for i in ids:
        x = ix._box(int(i), dims)
        box[:, 0] = np.minimum(box[:, 0], x[:, 0])
        box[:, 1] = np.maximum(box[:, 1], x[:, 1])
    return box


def _summary(ix, lst: int) -> dict[int, float]:
    return dict(zip(ix._sum.col(lst, 0), ix._sum.col(lst, 1), strict=True))


def _max_weights(ix, ids) -> dict[int, float]:
    st = ix._store
    best: dict[int, float] = {}
    for i in ids:
        for j in range(int(st.s_start[i]), int(st.s_end[i])):
            a, w = int(st.p_attr[j]), float(st.p_w[j])
            best[a] = max(best.get(a, -1.0), w)
    return best


def check_invariants(ix) -> None:
    """Every invariant above, over the nodes reachable from the root."""
    alive = ix.alive()
    every = _c_ids(ix, 0)
    assert sorted(every) == list(np.flatnonzero(alive))  # each live id exactly once
    assert _summary(ix, ix.cn_sum[0]) == _max_weights(ix, ix._leaf.col(0))
    work = [(0, frozenset())]  # (c-node, attributes of its path)
    while work:
        c, used = work.pop()
        leaf = list(ix._leaf.col(c))
        for i in leaf:
            assert ix.sub_cnode[i] == c
            assert used <= set(ix._attrs(i).tolist())
        assert _summary(ix, ix.cn_sum[c]) == _max_weights(ix, leaf)  # exact
        attrs = list(ix._pdir.col(c, 0))
        assert attrs == sorted(attrs) and not used & set(attrs)
        for a, p in zip(attrs, ix._pdir.col(c, 1), strict=True):
            assert ix.pn_attr[p] == a and ix.pn_cnode[p] == c
            dims = ix.dims_of(p)
            assert set(dims) == used | {a} and dims[-1] == a
            below = _b_ids(ix, ix.pn_root[p])
            assert ix.pn_count[p] == len(below)
            bound = _summary(ix, ix.pn_sum[p])
            for at, w in _max_weights(ix, below).items():  # an upper bound
                assert bound[at] >= w
            todo = [ix.pn_root[p]]
            assert ix.bk_parent[todo[0]] < 0
            while todo:
                b = todo.pop()
                assert ix.bk_pnode[b] == p
                cb = ix.bk_cnode[b]
                assert ix.cn_bucket[cb] == b
                work.append((cb, used | {a}))
                if ix.rigid:
                    lo, hi = ix.cell(b)
                    for i in _b_ids(ix, b):  # enclosed by the cell on the active dim
                        ilo, ihi = ix._ival(i, a)
                        assert ix.bk_lo[b] <= ilo and ihi <= ix.bk_hi[b]
                else:
                    want = _union(ix, _b_ids(ix, b), dims)
                    np.testing.assert_array_equal(ix.bucket_box(b), want)  # tight, all dims
                    own = _union(ix, _c_ids(ix, cb), dims)
                    np.testing.assert_array_equal(ix.cnode_box(cb), own)
                    assert (ix.bk_lo[b], ix.bk_hi[b]) == tuple(want[-1])
                    assert (ix.bk_olo[b], ix.bk_ohi[b]) == tuple(own[-1])
                L, R = ix.bk_left[b], ix.bk_right[b]
                assert (L >= 0) == (R >= 0) == bool(ix.bk_split[b])
                if L >= 0:
                    assert ix.bk_parent[L] == b and ix.bk_parent[R] == b
                    if not ix.rigid:  # descendant repelling (an empty side meets nothing)
                        lo_l, hi_l, lo_r, hi_r = ix.bk_lo[L], ix.bk_hi[L], ix.bk_lo[R], ix.bk_hi[R]
                        assert lo_l > hi_l or lo_r > hi_r or hi_l < lo_r or hi_r < lo_l
                    todo += [L, R]


def _run(name, subs, ops, kw, bulk):
    ix = REGISTRY[name](**kw, bulk=bulk)
    ix.insert_many(subs)
    check_invariants(ix)
    live = list(range(len(subs)))
    for op in ops:
        if isinstance(op, int):
            if live:
                ix.delete(live.pop(op % len(live)))
        else:
            live.append(ix.insert(op))
        check_invariants(ix)
    return ix


@settings(max_examples=30, deadline=None)
@given(
    name=st.sampled_from(["betree_star", "betree"]),
    subs=st.lists(expression(max_size=4, n_attrs=5), max_size=50),
    ops=st.lists(st.one_of(st.integers(0, 10**6), expression(max_size=4, n_attrs=5)), max_size=25),
    cap=st.sampled_from([1, 2, 3]),
    split=st.sampled_from(["exhaustive", "approximate"]),
    beta=st.sampled_from([1.0, 4.0]),
    bulk=st.booleans(),
    ranking=st.sampled_from(["popularity", "selectivity"]),
)
def test_invariants_under_random_updates(name, subs, ops, cap, split, beta, bulk, ranking):
    kw = {"leaf_capacity": cap, "ranking": ranking}
    if name == "betree_star":
        kw |= {"split": split, "beta": beta}
    _run(name, subs, ops, kw, bulk)


def test_deletion_shrinks_bounds_on_active_and_inactive_dimensions():
    """§IV-B's pathological case: an expression over a large subspace inserted and removed
    again must not leave its extent in any bound, active or inactive dimension."""
    ix = REGISTRY["betree_star"](leaf_capacity=2, bulk=False, recycle_below=0)
    for v in range(8):  # a1 partitions the root; a1's (atomic) bucket is partitioned on a2
        ix.insert(f"a1 between 0 and 1, a2 between {2 * v} and {2 * v + 1}")
    check_invariants(ix)
    paths = [ix.dims_of(p) for p in range(len(ix.pn_attr))]
    assert (1, 2) in paths  # two levels: a2 is active under a1 (inactive)

    def boxes():  # every bound of the tree, bucket and c-node boxes
        buckets = [ix.bucket_box(b).copy() for b in range(len(ix.bk_lo))]
        return buckets + [ix.cnode_box(c).copy() for c in range(1, len(ix.cn_bucket))]

    def widened(now, was):
        return len(now) > len(was) or any(
            not np.array_equal(a, b) for a, b in zip(now, was, strict=False)
        )

    for wide in ("a1 between 0 and 1, a2 between -1000 and 1000",
                 "a1 between 0 and 1.5, a2 between 2 and 3",
                 "a1 between 0 and 1, a2 between 3 and 9",
                 "a1 between -500 and 500, a2 between 4 and 5"):  # fmt: skip
        n_b, n_c = len(ix.bk_lo), len(ix.cn_bucket)
        before = boxes()
        i = ix.insert(wide)
        check_invariants(ix)
        assert widened(boxes(), before)
        ix.delete(i)
        check_invariants(ix)  # every bound exact again, so the old ones as they were
        now = boxes()
        np.testing.assert_equal(now[:n_b] + now[len(ix.bk_lo) : len(ix.bk_lo) + n_c - 1], before)


def test_recycling_dissolves_p_nodes():
    """A p-node whose count falls below ``recycle_below`` leaves its p-directory and its
    expressions are reinserted above; answers stay exact."""
    ix = REGISTRY["betree_star"](leaf_capacity=2, recycle_below=3, bulk=False)
    ids = [ix.insert(f"a1 = {v}, a{2 + v % 3} between {v} and {v + 2}") for v in range(20)]
    check_invariants(ix)
    assert list(ix._pdir.col(0, 0)) == [1]  # the root partitioned on a1
    p = ix._pdir.col(0, 1)[0]
    for i in ids[:-2]:  # down to two expressions under a1's p-node
        ix.delete(i)
        check_invariants(ix)
    assert p not in set(ix._pdir.col(0, 1))  # dissolved: 2 < recycle_below
    assert sorted(ix._leaf.col(0)) == ids[-2:]  # reinserted into the root's l-node
    subs = ix.subscriptions()
    for v in (18, 19, 5):
        e = parse(f"a1 = {v}, a{2 + v % 3} = {v + 1}")
        np.testing.assert_array_equal(ix.match(e), brute_match(subs, e, ix.alive()))


def _split_buckets(ix, p: int) -> int:
    """Split buckets reachable in p-node p's c-directory."""
    n, todo = 0, [ix.pn_root[p]]
    while todo:
        b = todo.pop()
        if ix.bk_split[b]:
            n += 1
            todo += [ix.bk_left[b], ix.bk_right[b]]
    return n


def test_merge_rule_collapses_the_directory_after_deletions():
    """§IV-C's merge rule: once the expressions under a split fit their open parent
    again, the two leaf buckets merge into it (the directory shrinks back); with
    ``merge=False`` the split buckets stay.  Answers exact and invariants hold at every
    step, in the BE*-tree and the BE-tree."""
    for name, kw in (("betree_star", {}), ("betree", {"domain": (0.0, 64.0)})):
        trees = {m: REGISTRY[name](leaf_capacity=2, recycle_below=0, bulk=False, merge=m, **kw)
                 for m in (True, False)}  # fmt: skip
        for ix in trees.values():
            ids = [ix.insert(f"a1 between {4 * v} and {4 * v + 1}") for v in range(12)]
        p = trees[True]._pdir.col(0, 1)[0]
        assert _split_buckets(trees[True], p) > 0
        for i in ids[:-2]:
            for ix in trees.values():
                ix.delete(i)
                check_invariants(ix)
        on, off = trees[True], trees[False]
        assert on.stats()["merged"] > 0 and off.stats()["merged"] == 0, name
        assert _split_buckets(on, p) == 0  # two expressions left: one leaf bucket holds them
        assert _split_buckets(off, p) > 0
        assert sorted(on._leaf.col(on.bk_cnode[on.pn_root[p]])) == ids[-2:]
        subs = on.subscriptions()
        for v in (0, 40, 44, 45, 47):
            e = parse(f"a1 = {v}")
            want = brute_match(subs, e, on.alive())
            np.testing.assert_array_equal(on.match(e), want)
            np.testing.assert_array_equal(off.match(e), want)
        for ix in trees.values():  # and the merged directory splits again as it fills
            more = [ix.insert(f"a1 between {4 * v} and {4 * v + 1}") for v in range(6)]
            check_invariants(ix)
        assert _split_buckets(on, p) > 0 and more


def test_an_atomic_bucket_is_partitioned_not_split():
    """§IV-C: a single-valued bucket cannot be split.  Many expressions with the same
    point on the partition attribute (here a1 = 10) used to split into two empty
    children again and again (every later insert went into one of them), a chain one
    level per A inserts; now the bucket is partitioned on its next attribute, the
    directory stays shallow, built one by one or in bulk, in Python or in numba."""
    subs = [f"a1 = 10, a{2 + v % 40} between {v} and {v + 1}" for v in range(400)]
    for bulk in (True, False):
        for numba_path in (True, False):
            ix = REGISTRY["betree_star"](leaf_capacity=5, bulk=bulk)
            ix.numba_bulk = ix.numba_insert = numba_path
            ix.insert_many(subs)
            check_invariants(ix)
            p = ix._pdir.col(0, 1)[0]
            assert ix.pn_attr[p] == 1
            assert _split_buckets(ix, p) == 0, (bulk, numba_path)  # never split
            for ev in ("a1 = 10, a7 = 5", "a1 = 10, a3 = 41", "a1 = 9, a3 = 1"):
                want = brute_match(ix.subscriptions(), parse(ev), ix.alive())
                np.testing.assert_array_equal(ix.match(ev), want)
