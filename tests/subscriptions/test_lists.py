"""Subscriber lists: the initial top-k against the oracle, and the subscriber rule."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from cnsim.simulations.oracle import true_top_k_ranges
from cnsim.subscriptions.lists import TopKLists, range_top_k


@given(
    n=st.integers(0, 150),
    m=st.integers(1, 200),
    k=st.integers(1, 25),
    seed=st.integers(0, 2**32 - 1),
)
def test_range_top_k_matches_brute_force(n, m, k, seed):
    rng = np.random.default_rng(seed)
    x = rng.random(n)
    y = np.where(rng.random(n) < 0.1, np.inf, rng.random(n))  # some objects deleted
    a, b = rng.random(m), rng.random(m)
    l, r = np.minimum(a, b), np.maximum(a, b)
    t = min(n, m)
    l[:t] = np.minimum(x[:t], r[:t])  # ranges starting exactly at an object
    ids, ys = range_top_k(x, y, l, r, k)
    want_ids, want_ys = true_top_k_ranges(x, y, l, r, k)
    assert np.array_equal(ids, want_ids)
    assert np.array_equal(ys, want_ys)


def one_list(entries, k):
    ids = np.full((1, k), -1, np.int64)
    ys = np.full((1, k), np.inf)
    for c, (o, yv) in enumerate(entries):
        ids[0, c], ys[0, c] = o, yv
    return TopKLists(ids, ys)


def deliver(lists, *items):
    subs = np.zeros(len(items), np.int64)
    obj = np.array([o for o, _ in items], np.int64)
    y = np.array([v for _, v in items], float)
    lists.apply(subs, obj, y)
    return list(zip(lists.ids[0].tolist(), lists.ys[0].tolist(), strict=True))


def test_member_update_moves_within_the_list():
    lists = one_list([(1, 0.1), (2, 0.2), (3, 0.3)], 3)
    assert deliver(lists, (1, 0.25)) == [(2, 0.2), (1, 0.25), (3, 0.3)]


def test_new_object_displaces_the_kth_only_if_better():
    lists = one_list([(1, 0.1), (2, 0.2), (3, 0.3)], 3)
    assert deliver(lists, (9, 0.5)) == [(1, 0.1), (2, 0.2), (3, 0.3)]
    assert deliver(lists, (9, 0.15)) == [(1, 0.1), (9, 0.15), (2, 0.2)]


def test_order_matters_update_before_replacement():
    # Footnote 5: the member's new value must arrive before its replacement.
    lists = one_list([(1, 0.1), (2, 0.2)], 2)
    assert deliver(lists, (1, 0.9), (7, 0.5)) == [(2, 0.2), (7, 0.5)]
    lists = one_list([(1, 0.1), (2, 0.2)], 2)
    assert deliver(lists, (7, 0.5), (1, 0.9)) == [(2, 0.2), (1, 0.9)]


def test_delete_empties_the_slot_and_short_lists_fill():
    lists = one_list([(1, 0.1), (2, 0.2)], 3)
    assert deliver(lists, (1, np.inf)) == [(2, 0.2), (-1, np.inf), (-1, np.inf)]
    assert deliver(lists, (5, 0.9)) == [(2, 0.2), (5, 0.9), (-1, np.inf)]
    assert deliver(lists, (6, np.inf)) == [(2, 0.2), (5, 0.9), (-1, np.inf)]


@given(n=st.integers(0, 120), m=st.integers(1, 100), k=st.integers(1, 12), seed=st.integers(0, 99))
def test_segment_tree_and_compact_ids_give_the_same_lists(n, m, k, seed):
    # The segment tree (used where the sparse table would be too big) and int16 ids
    # give what the sparse table and int64 ids give.
    from cnsim.subscriptions import lists as module

    rng = np.random.default_rng(seed)
    x, y = rng.random(n), rng.random(n)
    a, b = rng.random(m), rng.random(m)
    l, r = np.minimum(a, b), np.maximum(a, b)
    want = range_top_k(x, y, l, r, k)
    saved = module.SPARSE_TABLE_ENTRIES
    module.SPARSE_TABLE_ENTRIES = 0
    try:
        got = range_top_k(x, y, l, r, k, np.int16)
    finally:
        module.SPARSE_TABLE_ENTRIES = saved
    assert got[0].dtype == np.int16
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


def test_a_layout_stores_rows_in_its_order_and_speaks_subscription_ids():
    from cnsim.subscriptions.lists import Layout

    rng = np.random.default_rng(3)
    x, y = rng.random(50), rng.random(50)
    a, b = rng.random(40), rng.random(40)
    l, r = np.minimum(a, b), np.maximum(a, b)
    plain = TopKLists.initial(x, y, l, r, 4)
    layout = Layout.of(rng.permutation(40))
    laid = TopKLists.initial(x, y, l, r, 4, layout=layout)
    assert np.array_equal(laid.ids, plain.ids) and np.array_equal(laid.ys, plain.ys)
    assert np.array_equal(laid.row_ids, plain.ids[layout.order])
    subs = rng.integers(0, 40, 30)
    obj = rng.integers(0, 50, 30)
    yv = rng.random(30)
    plain.apply(subs, obj, yv)
    laid.apply(subs, obj, yv)
    assert np.array_equal(laid.ids, plain.ids) and np.array_equal(laid.ys, plain.ys)
    other = laid.copy()
    other.apply(None, obj, yv, rows=layout.row_of[subs])
    laid.apply(subs, obj, yv)
    assert np.array_equal(laid.row_ids, other.row_ids)
