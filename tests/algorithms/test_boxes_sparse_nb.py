"""Paint-Sparse's pruned partition for d-dimensional boxes as a numba kernel
(:func:`cnsim.algorithms.boxes._partition_nb.partition_sparse_nb`) against the Python
reference (``engine="python"``: a ``keep`` callback per slab): the same boxes in the
same order, the same slabs visited, the same boxes looked up in the subscription index
with the same answers; the pruned tiling against brute force; Paint-Sparse's two engines
message for message and call for call; the skipping of irrelevant sweep objects against
the oracle; and the subscription index's new queries against brute force."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from paint_oracle import check_boxes

from cnsim.algorithms.boxes import regions
from cnsim.algorithms.boxes.paint import PaintDenseBoxes, PaintSparseBoxes
from cnsim.server.object_index_d import ObjectIndexD
from cnsim.subscriptions.space_boxes import (
    BoxSubscriptions,
    any_in_box,
    reaches_np,
    report_upto,
)


def instance(seed, d, n_obj, m_sub, grid):
    """A rank grid around x_i over objects on a coarse lattice (ties), subscriptions on
    the same lattice, and a region ``lo <= N <= hi`` from an optional start corner."""
    rng = np.random.default_rng(seed)
    x_i = rng.integers(0, grid + 1, d) / grid
    xs = rng.integers(0, grid + 1, (n_obj, d)) / grid
    g = regions.Grid(x_i, xs)
    a, b = (
        rng.integers(0, grid + 1, (m_sub, d)) / grid,
        rng.integers(0, grid + 1, (m_sub, d)) / grid,
    )
    subs = BoxSubscriptions(np.minimum(a, b), np.maximum(a, b))
    lo = int(rng.integers(0, 3))
    hi = lo + int(rng.integers(0, 3))
    start = None
    if n_obj and rng.random() < 0.5:
        start = g.ranks[int(rng.integers(n_obj))]
    return g, subs, lo, hi, start


def pruned(g, subs, lo, hi, start, engine, budget=None):
    """Boxes, slabs and the (box, answer) sequence the partition looked up."""
    asked: list = []

    def ask(box):
        hit = subs.snap(box)[0] > 0
        asked.append((box.tobytes(), hit))
        return hit

    def seen(boxes, answers):
        asked.extend((b.tobytes(), bool(h)) for b, h in zip(boxes, answers, strict=True))

    keep = regions.Pruning(g, subs, ask, seen)
    cells, work = regions.partition_work(g.ranks, g.cap, lo, hi, start, keep, budget, engine)
    return cells, work, asked


@settings(max_examples=250, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    d=st.integers(1, 4),
    n_obj=st.integers(0, 9),
    m_sub=st.integers(1, 120),
    grid=st.integers(2, 6),
)
def test_numba_pruned_partition_equals_the_python_reference(seed, d, n_obj, m_sub, grid):
    g, subs, lo, hi, start = instance(seed, d, n_obj, m_sub, grid)
    nb = pruned(g, subs, lo, hi, start, "numba")
    py = pruned(g, subs, lo, hi, start, "python")
    assert np.array_equal(nb[0], py[0])  # the same boxes in the same order
    assert nb[1] == py[1]  # the same slabs
    assert nb[2] == py[2]  # the same lookups, in order, with the same answers


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), d=st.integers(2, 3), m_sub=st.integers(1, 60))
def test_budget_censors_the_same_pruned_partitions(seed, d, m_sub):
    g, subs, lo, hi, start = instance(seed, d, 9, m_sub, 5)
    work = pruned(g, subs, lo, hi, start, "python")[1]
    for budget in {work // 2, max(work - 1, 0), work}:
        outcomes = []
        for engine in regions.ENGINES:
            try:
                outcomes.append(len(pruned(g, subs, lo, hi, start, engine, budget)[0]))
            except regions.RegionTooLarge:
                outcomes.append("censored")
        assert outcomes[0] == outcomes[1]
        # (the last axis's slab is counted but not checked, in both: budget < work may pass)
        assert outcomes[0] != "censored" or budget < work


@settings(max_examples=120, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    d=st.integers(1, 2),
    n_obj=st.integers(0, 6),
    m_sub=st.integers(1, 80),
)
def test_pruned_partition_reaches_exactly_the_subscriptions_of_the_region(seed, d, n_obj, m_sub):
    # Brute force: every subscription of θ_i lies in one grid cell c; it is reached by
    # exactly one box iff c >= start and lo <= N(c) <= hi, by none otherwise.
    g, subs, lo, hi, start = instance(seed, d, n_obj, m_sub, 4)
    cells, _, _ = pruned(g, subs, lo, hi, start, "numba")
    boxes = g.to_boxes(cells)
    s = np.zeros(2 * d, np.int64) if start is None else np.asarray(start)
    cover = {}  # the boxes are disjoint in cells
    for c in cells:
        for cell in itertools.product(*[range(c0, c1 + 1) for c0, c1 in c]):
            assert cell not in cover
            cover[cell] = True
    reached = np.zeros(len(subs.pts), np.int64)
    for box in boxes:
        reached += reaches_np(box, subs.pts)
    whole = g.to_boxes(np.stack([np.zeros(2 * d, np.int64), g.cap], axis=1)[None])[0]
    inside = reaches_np(whole, subs.pts)  # the subscriptions holding x_i
    for j in range(len(subs.pts)):
        if not inside[j]:
            assert reached[j] == 0
            continue
        c = np.array([_cell(g, subs.pts[j], a) for a in range(2 * d)])
        n = int(np.all(g.ranks <= c, axis=1).sum())
        want = bool(np.all(c >= s) and lo <= n <= hi)
        assert reached[j] == int(want)


def _cell(g, point, a):
    """The cell of subscription ``point`` on axis ``a`` of grid ``g``."""
    t = a // 2
    if a % 2 == 0:  # l-cell c: l in (W[c], W[c-1]]
        return int(np.sum(g.west[t] >= point[a]))
    return int(np.sum(g.east[t] <= point[a]))


@pytest.mark.parametrize(("d", "k"), [(2, 3), (3, 2)])
def test_paint_sparse_engines_send_the_same_messages_and_count_the_same_calls(d, k):
    rng = np.random.default_rng(20 + d)
    n, m = 60, 600
    x, y = rng.random((n, d)), rng.random(n)
    a, b = rng.random((m, d)), rng.random((m, d))
    subs = BoxSubscriptions(np.minimum(a, b), np.maximum(a, b))
    ev = [(int(rng.integers(n)), float(rng.random())) for _ in range(12)]
    ev += [(3, np.inf), (3, 0.5)]
    out, calls = {}, {}
    for engine in regions.ENGINES:
        sparse = PaintSparseBoxes(ObjectIndexD(x, y), subs, k, engine=engine)
        out[engine] = [sparse.process(np.array([i]), np.array([v])) for i, v in ev]
        calls[engine] = sparse.counter.as_dict()
    for p, q in zip(out["numba"], out["python"], strict=True):
        assert np.array_equal(p.boxes, q.boxes) and np.array_equal(p.obj, q.obj)
        assert np.array_equal(p.y, q.y)
    assert calls["numba"] == calls["python"]
    assert calls["numba"]["calls_snap"] > 0


def clustered(seed, d, n, m, k, events):
    """Small subscriptions near one corner and objects everywhere: most objects of a
    sweep lie outside every subscription holding the updated object, so Paint-Sparse's
    skipping is exercised (rank-lowering events, deletes and re-inserts)."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 8, (n, d)) / 8
    y = rng.integers(0, 12, n).astype(float)
    lo = rng.integers(0, 4, (m, d)) / 8
    hi = np.minimum(lo + rng.integers(0, 4, (m, d)) / 8, 1.0)
    ev = []
    for _ in range(events):
        i = int(rng.integers(n))
        ev.append((i, np.inf if rng.random() < 0.15 else float(rng.integers(0, 12))))
    return x, y, lo, hi, k, ev


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), d=st.integers(1, 3), k=st.integers(1, 3))
def test_skipping_sweep_objects_is_exact_by_the_oracle(seed, d, k):
    report = check_boxes(*clustered(seed, d, 24, 120, k, 10))
    assert report.ok, report.text()


def test_skipping_examines_fewer_objects_with_the_same_deliveries():
    x, y, lo, hi, k, ev = clustered(5, 2, 60, 200, 2, 40)
    report = check_boxes(x, y, lo, hi, k, ev)
    assert report.ok, report.text()
    assert report.delivered["paint-sparse"] == report.delivered["paint-dense"] > 0
    dense = PaintDenseBoxes(ObjectIndexD(x, y), k)
    sparse = PaintSparseBoxes(ObjectIndexD(x, y), BoxSubscriptions(lo, hi), k)
    for i, v in ev:
        dense.process(np.array([i]), np.array([v]))
        sparse.process(np.array([i]), np.array([v]))
    assert sparse.counter.examined < dense.counter.examined / 2


def test_the_oracle_catches_a_too_narrow_skip(monkeypatch):
    # Skipping every sweep object (a test that is not sound) loses gains: the oracle says so.
    monkeypatch.setattr(PaintSparseBoxes, "_relevant", lambda self, order: order[:0])
    x, y, lo, hi, k, ev = clustered(5, 2, 60, 200, 2, 40)
    report = check_boxes(x, y, lo, hi, k, ev)
    assert ("paint-sparse", "lists") in {(a, c) for _, a, c in report.failures}


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), d=st.integers(1, 4), limit=st.integers(0, 20))
def test_index_any_snap_many_and_report_upto_against_brute_force(seed, d, limit):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 300))
    a, b = rng.integers(0, 5, (m, d)) / 4, rng.integers(0, 5, (m, d)) / 4
    index = BoxSubscriptions(np.minimum(a, b), np.maximum(a, b))
    boxes = np.sort(rng.integers(-1, 6, (6, d, 4)) / 4, axis=2).reshape(6, 4 * d)
    counts, lows, highs = index.snap_many(boxes)
    buf = np.empty(limit + 1, np.int64)
    for j, box in enumerate(boxes):
        want = np.flatnonzero(reaches_np(box, index.pts))
        assert counts[j] == len(want)
        assert index.holds_any(box) == (len(want) > 0) == any_in_box(*index.tree(), box)
        if len(want):
            assert np.array_equal(lows[j], index.pts[want].min(axis=0))
            assert np.array_equal(highs[j], index.pts[want].max(axis=0))
        n = report_upto(*index.tree(), box, limit, buf)
        if len(want) <= limit:
            assert n == len(want)
            assert sorted(index.perm[buf[:n]].tolist()) == want.tolist()
        else:
            assert n == limit + 1
            assert set(index.perm[buf[:limit]].tolist()) <= set(want.tolist())
