"""Paint-Dense and Paint-Sparse for 1.5-d range subscriptions (seed 003 appendix D)
against the brute-force oracle after every event: lists exact, nobody unaffected
notified, Paint-Sparse delivering what Paint-Dense does and never an empty message."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from paint_oracle import check_15d

from cnsim.algorithms.range15d import paint, regions
from cnsim.subscriptions.generators.datasets_15d import subscriptions


def tie_heavy(seed, n, m, k, events, grid):
    """Objects and subscriptions on a coarse grid (ties in x1, x2, y and on the
    subscriptions' bounds), some objects absent, deletes and re-inserts."""
    rng = np.random.default_rng(seed)
    x1, x2 = rng.integers(0, grid, n) / grid, rng.integers(0, grid, n) / grid
    y = rng.integers(0, 6, n).astype(float)
    y[rng.random(n) < 0.2] = np.inf
    a, b = rng.integers(0, grid + 1, m) / grid, rng.integers(0, grid + 1, m) / grid
    l, r, v = np.minimum(a, b), np.maximum(a, b), rng.integers(-1, grid + 1, m) / grid
    ev = [
        (int(rng.integers(n)), np.inf if rng.random() < 0.2 else float(rng.integers(0, 6)))
        for _ in range(events)
    ]
    return x1, x2, y, l, r, v, k, ev


@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 25),
    m=st.integers(1, 250),
    k=st.integers(1, 5),
    grid=st.integers(2, 8),
    bounds=st.sampled_from(["tight", "lazy"]),
)
def test_exact_on_small_instances_with_ties(seed, n, m, k, grid, bounds):
    report = check_15d(*tie_heavy(seed, n, m, k, 15, grid), bounds=bounds)
    assert report.ok, report.text()


@pytest.mark.parametrize("dataset", ["DS#1", "DS#2", "DS#3"])
def test_exact_on_a_longer_seeded_run(dataset):
    rng = np.random.default_rng(3)
    n, m, k = 150, 3000, 4
    x1, x2, y = rng.random(n), rng.random(n), rng.random(n)
    l, r, v = subscriptions(dataset, m, x1, rng, cover={"DS#2": 30, "DS#3": 8})
    ev = [(int(rng.integers(n)), float(rng.random())) for _ in range(150)]
    ev += [(int(rng.integers(n)), np.inf) for _ in range(10)]  # deletes ...
    ev += [(i, float(rng.random())) for i, _ in ev[-10:]]  # ... and re-inserts
    report = check_15d(x1, x2, y, l, r, v, k, ev)
    assert report.ok, report.text()
    assert report.events == len(ev)
    # Subscription-aware: fewer messages for the same deliveries.
    assert report.messages["paint-sparse"] < report.messages["paint-dense"]
    assert report.delivered["paint-sparse"] == report.delivered["paint-dense"]


def small(seed=5, events=40):
    rng = np.random.default_rng(seed)
    n, m = 40, 600
    x1, x2, y = rng.random(n), rng.random(n), rng.random(n)
    a, b = rng.random(m), rng.random(m)
    ev = [(int(rng.integers(n)), float(rng.random())) for _ in range(events)]
    return x1, x2, y, np.minimum(a, b), np.maximum(a, b), rng.random(m), 3, ev


def failed_checks(report):
    return {(name, check) for _, name, check in report.failures}


def test_verify_catches_a_missing_gain(monkeypatch):
    original = regions.difference
    monkeypatch.setattr(regions, "difference", lambda *a: original(*a)[:-1])
    assert ("paint-dense", "lists") in failed_checks(check_15d(*small()))


def test_verify_catches_overlapping_slabs(monkeypatch):
    # Boxes reaching a little beyond their slab notify unaffected subscriptions.
    original = regions.stack

    def overlapping(pieces):
        return original([(lo, hi if hi == np.inf else hi + 0.01, rs) for lo, hi, rs in pieces])

    monkeypatch.setattr(regions, "stack", overlapping)
    checks = failed_checks(check_15d(*small()))
    assert ("paint-dense", "exact-notifies-affected-only") in checks
    assert ("paint-dense", "one-message-per-object") in checks


def test_verify_catches_sparse_skipping_too_much(monkeypatch):
    # Bounding a polygon rectangle by its own slab's subscriptions only (not those of
    # the slabs above, which its objects reach too) skips essential exposed objects.
    def own_slab(self, i, slabs, t):
        rect = paint.PaintDense15.search_rect(self, i, slabs, t)
        count, l_min, r_max, v_max = self.slab_subs(i, slabs, t)
        if rect is None or count == 0:
            return None
        return max(rect[0], l_min), min(rect[1], r_max), rect[2], min(rect[3], v_max)

    monkeypatch.setattr(paint.PaintSparse15, "search_rect", own_slab)
    assert ("paint-sparse", "lists") in failed_checks(check_15d(*small()))


def test_sparse_skips_exposed_objects_and_snaps():
    from cnsim.server.object_index_2d import ObjectIndex2D
    from cnsim.subscriptions.index import SubscriptionIndex3D

    x1, x2, y, l, r, v, k, ev = small(events=80)
    dense = paint.PaintDense15(ObjectIndex2D(x1, x2, y), k)
    sparse = paint.PaintSparse15(ObjectIndex2D(x1, x2, y), SubscriptionIndex3D(l, r, v), k)
    for approach in (dense, sparse):
        for i, y_new in ev:
            approach.process(np.array([i]), np.array([y_new]))
    assert dense.counter.first_k == sparse.counter.first_k == 2 * len(ev)
    assert dense.counter.min_x2 == sparse.counter.min_x2  # the same polygon sweep
    assert sparse.counter.min_y < dense.counter.min_y
    assert dense.counter.snap == 0 < sparse.counter.snap


def test_staircase_matches_counting():
    # Strip p of the staircase holds exactly the (l, r) with p + q <= k - 1 objects.
    rng = np.random.default_rng(0)
    for _ in range(200):
        k = int(rng.integers(1, 5))
        a_i = 0.5
        west = np.sort(rng.integers(0, 6, rng.integers(0, 6)) / 10)[::-1]  # ties, at a_i
        east = np.sort(rng.integers(6, 11, rng.integers(0, 6)) / 10)
        L, R = tuple(west[:k].tolist()), tuple(east[:k].tolist())
        rects = regions.staircase(a_i, L, R, k)
        for l in (j / 20 for j in range(11)):  # exact grid values, the objects' among them
            for r in (j / 20 for j in range(10, 21)):
                inside = sum(lo < l <= li and ri <= r < ro for lo, li, ri, ro in rects)
                count = np.sum(west >= l) + np.sum(east <= r)
                assert inside == (1 if count <= k - 1 else 0)


def test_bad_bounds_is_named():
    from cnsim.server.object_index_2d import ObjectIndex2D
    from cnsim.subscriptions.index import SubscriptionIndex3D

    subs = SubscriptionIndex3D(np.zeros(1), np.ones(1), np.ones(1))
    with pytest.raises(ValueError, match="bounds must be one of tight, lazy, got 'loose'"):
        paint.PaintSparse15(ObjectIndex2D([0.1], [0.1], [0.1]), subs, 2, "loose")


def test_insert_sends_what_a_revived_object_does():
    from cnsim.server.object_index_2d import ObjectIndex2D
    from cnsim.subscriptions.index import SubscriptionIndex3D

    x1, x2, y, l, r, v, k, ev = small(events=0)
    subs = SubscriptionIndex3D(l, r, v)
    grown = paint.PaintSparse15(ObjectIndex2D(x1, x2, y), subs, k)
    i, inserted = grown.insert(0.5, 0.25, 0.01)
    absent = np.append(y, np.inf)
    prepared = paint.PaintSparse15(
        ObjectIndex2D(np.append(x1, 0.5), np.append(x2, 0.25), absent), subs, k
    )
    revived = prepared.process(np.array([i]), np.array([0.01]))
    assert i == len(x1)
    assert len(inserted) > 0
    assert np.array_equal(inserted.boxes, revived.boxes)
    assert np.array_equal(inserted.obj, revived.obj)
