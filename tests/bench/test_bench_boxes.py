"""``cnsim bench boxes`` (seed 003 §IV-C, Theorem 8) at tiny sizes: its bound, its
censoring (events past the budget left out, the index kept in step), d = 1 against
the 1-d Paint-Dense, and the engine comparisons (numba against the Python reference,
identical messages and counts)."""

import math

import numpy as np
import pytest

from cnsim.algorithms.boxes.paint import PaintDenseBoxes, PaintSparseBoxes
from cnsim.bench.boxes import (
    bound,
    compare_engines,
    compare_sparse_engines,
    measure,
    one_d_messages,
)
from cnsim.server.object_index_d import ObjectIndexD
from cnsim.subscriptions.generators.boxes import workload
from cnsim.subscriptions.space_boxes import BoxSubscriptions


@pytest.mark.parametrize(
    ("n", "k", "d"), [(2_000, 1, 1), (2_000, 10, 1), (2_000, 5, 3), (50, 2, 4)]
)
def test_bound_is_theorem_8s_growth(n, k, d):
    b = bound(n, k, d)
    assert math.isclose(b["theorem8"], (k * math.log(n) ** (d - 1)) ** (d + 1))
    assert math.isclose(b["z"], k * math.log(n) ** (d - 1) / math.factorial(d - 1))
    assert math.isclose(b["z_pow_d1"], b["z"] ** (d + 1))
    if d == 1:  # z = k, and the bound is k^2
        assert b["z"] == k and b["theorem8"] == k**2


def test_d1_boxes_send_the_1d_paint_dense_messages():
    x, y, _, _, stream = workload(1, 150, 0, 60)
    boxes = PaintDenseBoxes(ObjectIndexD(x, y), 3)
    got = [len(boxes.process(np.array([i]), np.array([v]))) for i, v in stream]
    assert got == one_d_messages(x[:, 0], y, 3, stream)
    assert sum(got) > 0


def test_measure_censors_past_the_budget_and_keeps_the_index_in_step():
    x, y, l, r, stream = workload(3, 120, 300, 12)
    want = y.copy()
    for i, v in stream:
        want[i] = v
    dense = PaintDenseBoxes(ObjectIndexD(x, y), 3, budget=40)
    out = measure(dense, stream)
    assert out["events"] == 12 and 0 < out["censored"] < 12
    assert out["per_event"].count(None) == out["censored"]
    finished = [m for m in out["per_event"] if m is not None]
    assert out["msgs_mean"] == pytest.approx(np.mean(finished))
    assert np.array_equal(dense.objects.y, want)
    free = measure(PaintDenseBoxes(ObjectIndexD(x, y), 3), stream)
    assert free["censored"] == 0
    # the events that finished under the budget sent what they send without it
    for a, b in zip(out["per_event"], free["per_event"], strict=True):
        assert a is None or a == b
    sparse = measure(PaintSparseBoxes(ObjectIndexD(x, y), BoxSubscriptions(l, r), 3), stream)
    assert sparse["msgs_mean"] <= free["msgs_mean"] and sparse["calls_snap"] > 0
    assert sparse["slabs_mean"] <= free["slabs_mean"]  # pruned: never more slabs


def test_engine_comparisons_find_identical_messages_and_counts():
    dense = compare_engines(2, 2, 4, n=150)
    assert dense["identical"] and dense["msgs_mean"] > 0
    sparse = compare_sparse_engines(2, 2, 4, n=150, m=400)
    assert sparse["identical"] and sparse["same_calls"] and sparse["snaps_per_event"] > 0
