"""Influence regions (Lemma 2) and gained regions (Lemma 3) against brute-force levels."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from cnsim.algorithms import regions
from cnsim.server.object_index import EAST, WEST, ObjectIndex


def in_rects(l, r, rects):
    hits = np.zeros(len(l), int)
    for lo_l, li, ri, ro in rects:
        hits += (lo_l < l) & (l <= li) & (ri <= r) & (r < ro)
    return hits


def in_top_k(x, y, i, z, l, r, k):
    """Whether object i at height z is in the top-k of each range [l, r] (brute force)."""
    others = np.delete(np.arange(len(x)), i)
    inside = (l[:, None] <= x[others][None, :]) & (x[others][None, :] <= r[:, None])
    below = (inside & (y[others][None, :] < z)).sum(axis=1)
    return (l <= x[i]) & (x[i] <= r) & (below < k)


def probe_points(x, rng):
    # Subscription points on and between every object x-value, so every cell is hit.
    cuts = np.sort(np.concatenate([x, (x[:-1] + x[1:]) / 2 if len(x) > 1 else x, [0.0, 1.0]]))
    l, r = np.meshgrid(cuts, cuts, indexing="ij")
    keep = l <= r
    return l[keep], r[keep]


@given(n=st.integers(2, 30), k=st.integers(1, 8), seed=st.integers(0, 2**32 - 1))
def test_influence_region_tiles_ir_exactly(n, k, seed):
    rng = np.random.default_rng(seed)
    x, y = rng.random(n), rng.random(n)
    index = ObjectIndex(x, y)
    i = int(rng.integers(n))
    L, R = index.first_k(x[i], y[i], WEST, k), index.first_k(x[i], y[i], EAST, k)
    rects = regions.influence_region(x[i], L, R, k)
    assert len(rects) <= k
    l, r = probe_points(x, rng)
    hits = in_rects(l, r, rects)
    assert hits.max(initial=0) <= 1  # disjoint tiles
    assert np.array_equal(hits == 1, in_top_k(x, y, i, y[i], l, r, k))
    # West-to-east order, as Paint-Sparse's greedy merging expects.
    assert all(a[0] <= b[0] for a, b in zip(rects, rects[1:], strict=False))


@given(n=st.integers(2, 30), k=st.integers(1, 8), seed=st.integers(0, 2**32 - 1))
def test_gained_region_is_what_i_loses_to_h(n, k, seed):
    rng = np.random.default_rng(seed)
    x, y = rng.random(n), rng.random(n)
    index = ObjectIndex(x, y)
    i = int(rng.integers(n))
    z = y[i]
    L, R = index.first_k(x[i], z, WEST, k), index.first_k(x[i], z, EAST, k)
    lo, hi = regions.influence_interval(x[i], L, R, k)
    h = index.min_y(lo, hi, z)
    if h < 0 or h == i:
        return
    rects = regions.gained_region(x[i], L, R, x[h], k)
    l, r = probe_points(x, rng)
    # No object of II lies between z and y_h, so just below y_h means "before h".
    before = in_top_k(x, y, i, y[h] - 1e-12, l, r, k)
    after = in_top_k(x, y, i, y[h] + 1e-12, l, r, k)
    hits = in_rects(l, r, rects)
    assert hits.max(initial=0) <= 1
    assert np.array_equal(hits == 1, before & ~after)


def test_coarsen_covers_runs_with_at_most_one_over_eps_boxes():
    strips = [(float(-j - 1), float(-j), 0.0, float(10 - j)) for j in range(10)][::-1]
    for eps in (1.0, 0.5, 0.25, 0.125):
        boxes = regions.coarsen(strips, eps, 10)
        assert len(boxes) <= 1 / eps
        assert boxes[0][0] == strips[0][0] and boxes[-1][1] == strips[-1][1]
