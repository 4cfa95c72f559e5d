"""The numba partition of d-dimensional box regions (:mod:`cnsim.algorithms.boxes._partition_nb`)
against the Python reference (:func:`regions.partition` with ``engine="python"``, itself
checked cell by cell in ``test_boxes.py``): the same boxes in the same order and the same
slab work (so the same events are censored by a budget), and the brute-force tiling check."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cnsim.algorithms.boxes import regions
from cnsim.algorithms.boxes._partition_nb import partition_nb
from cnsim.algorithms.boxes.paint import PaintDenseBoxes
from cnsim.errors import InputError
from cnsim.server.object_index_d import ObjectIndexD


def brute_partition_ok(ranks, cap, lo, hi, start):
    """Every cell covered once iff ``start <= c`` and ``lo <= N(c) <= hi`` (brute force)."""
    boxes = regions.partition(ranks, cap, lo, hi, start)
    cover: dict = {}
    for b in boxes:
        for c in itertools.product(*[range(c0, c1 + 1) for c0, c1 in b]):
            cover[c] = cover.get(c, 0) + 1
    for c in itertools.product(*[range(v + 1) for v in cap]):
        n = int(np.all(ranks <= np.array(c), axis=1).sum()) if len(ranks) else 0
        want = all(np.array(c) >= start) and lo <= n <= hi
        if cover.get(c, 0) != int(want):
            return False
    return True


def instance(seed, D, m):
    rng = np.random.default_rng(seed)
    cap = rng.integers(0, 6, D)
    ranks = np.stack([rng.integers(0, c + 1, m) for c in cap], 1) if m else np.zeros((0, D), int)
    lo = int(rng.integers(0, 3))
    hi = lo + int(rng.integers(0, 4))
    start = np.array([rng.integers(0, c + 1) for c in cap]) * (rng.random() < 0.5)
    return ranks, cap, lo, hi, start


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), D=st.integers(1, 8), m=st.integers(0, 12))
def test_numba_equals_the_python_reference(seed, D, m):
    ranks, cap, lo, hi, start = instance(seed, D, m)
    py = regions.partition(ranks, cap, lo, hi, start, engine="python")
    nb = regions.partition(ranks, cap, lo, hi, start)
    assert nb == py
    # the same slab work, so a budget censors the same partitions
    part = regions._Partition(np.asarray(cap, np.int64), start.astype(np.int64), lo, hi, None, None)
    part.run(np.hstack([ranks, np.arange(m).reshape(-1, 1)]).astype(np.int64), 0, ())
    if (start <= cap).all():
        _, work, over = partition_nb(np.ascontiguousarray(ranks, np.int64), cap.astype(np.int64),
                                     start.astype(np.int64), lo, hi, -1)  # fmt: skip
        assert (work, over) == (part.work, False)


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), D=st.integers(1, 4), m=st.integers(0, 9))
def test_numba_tiles_exactly_the_cells(seed, D, m):
    rng = np.random.default_rng(seed)
    cap = rng.integers(0, 4, D)
    ranks = np.stack([rng.integers(0, c + 1, m) for c in cap], 1) if m else np.zeros((0, D), int)
    lo = int(rng.integers(0, 3))
    hi = lo + int(rng.integers(0, 3))
    start = np.array([rng.integers(0, c + 1) for c in cap])
    assert brute_partition_ok(ranks, cap, lo, hi, start)  # the default engine is numba


def test_budget_censors_the_same_partitions():
    rng = np.random.default_rng(3)
    ranks = rng.integers(0, 12, (40, 6))
    cap = np.full(6, 12)
    _, work, _ = partition_nb(ranks, cap, np.zeros(6, np.int64), 0, 2, -1)
    assert work > 50
    for budget in (work - 1, work):
        outcomes = []
        for engine in regions.ENGINES:
            try:
                outcomes.append(len(regions.partition(ranks, cap, 0, 2, budget=budget,
                                                      engine=engine)))  # fmt: skip
            except regions.RegionTooLarge:
                outcomes.append("censored")
        assert outcomes[0] == outcomes[1]
        assert (outcomes[0] == "censored") == (budget < work)


@pytest.mark.parametrize(("d", "k"), [(2, 3), (3, 2)])
def test_paint_dense_engines_send_the_same_messages(d, k):
    rng = np.random.default_rng(7 + d)
    x, y = rng.random((60, d)), rng.random(60)
    ev = [(int(rng.integers(60)), float(rng.random())) for _ in range(12)]
    ev += [(3, np.inf), (3, 0.5)]
    out = {}
    for engine in regions.ENGINES:
        dense = PaintDenseBoxes(ObjectIndexD(x, y), k, engine=engine)
        out[engine] = [dense.process(np.array([i]), np.array([v])) for i, v in ev]
    for a, b in zip(out["numba"], out["python"], strict=True):
        assert np.array_equal(a.boxes, b.boxes) and np.array_equal(a.obj, b.obj)
        assert np.array_equal(a.y, b.y)


def test_bad_engine_is_named():
    with pytest.raises(InputError, match="engine must be one of"):
        PaintDenseBoxes(ObjectIndexD(np.zeros((2, 2)), np.zeros(2)), 1, engine="fortran")
