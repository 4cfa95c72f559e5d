"""Multi-dimensional exact (iterator intersection) and relaxed (Threshold
Algorithm) matching against brute force (seed 000 §1, §4)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cnsim.errors import InputError
from cnsim.subscriptions.ranked.multidim import (
    ExactMatcher,
    RelaxedMatcher,
    brute_exact_top_k,
    brute_relaxed_top_k,
)

INDEXES = ["sopt_rtree", "ir_tree", "scored_segment_tree", "st_psa", "interval_forest", "scan"]


@st.composite
def boxes(draw):
    n = draw(st.integers(0, 50))
    d = draw(st.integers(1, 4))
    lo = np.array(draw(st.lists(st.integers(0, 8), min_size=n * d, max_size=n * d)), float)
    w = np.array(draw(st.lists(st.integers(0, 5), min_size=n * d, max_size=n * d)), float)
    lo, w = lo.reshape(n, d), w.reshape(n, d)
    if draw(st.booleans()):
        sc = np.array(draw(st.lists(st.integers(1, 3), min_size=n * d, max_size=n * d)), float)
    else:
        sc = np.array(draw(st.lists(st.floats(0.01, 1), min_size=n * d, max_size=n * d)))
    return lo, lo + w, sc.reshape(n, d)


def points(d, rng):
    return [rng.integers(-1, 14, d).astype(float) for _ in range(12)]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=boxes(), index=st.sampled_from(INDEXES), seed=st.integers(0, 99))
@pytest.mark.slow
def test_exact_matching_equals_brute_force(data, index, seed):
    lo, hi, sc = data
    score = sc[:, 0]
    m = ExactMatcher(lo, hi, score, index=index)
    for p in points(lo.shape[1], np.random.default_rng(seed)):
        for k in (0, 1, 3, 20, 200):
            np.testing.assert_array_equal(m.top_k(p, k), brute_exact_top_k(lo, hi, score, p, k))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=boxes(), index=st.sampled_from(INDEXES), seed=st.integers(0, 99))
def test_relaxed_matching_equals_brute_force(data, index, seed):
    lo, hi, w = data
    m = RelaxedMatcher(lo, hi, w, index=index)
    d = lo.shape[1]
    for p in points(d, np.random.default_rng(seed)):
        for k in (1, 3, 20):
            np.testing.assert_array_equal(m.top_k(p, k), brute_relaxed_top_k(lo, hi, w, p, k))
        dims = list(range(0, d, 2))  # relaxed matching may drop dimensions per event
        np.testing.assert_array_equal(
            m.top_k(p, 5, dims=dims), brute_relaxed_top_k(lo, hi, w, p, 5, dims=dims)
        )


def test_threshold_algorithm_stops_early():
    rng = np.random.default_rng(0)
    n, d = 20000, 3
    c = rng.random((n, d))
    half = rng.random((n, d)) * 0.3
    w = 1 - half
    m = RelaxedMatcher(c - half, c + half, w, index="sopt_rtree")
    p = np.full(d, 0.5)
    np.testing.assert_array_equal(m.top_k(p, 10), brute_relaxed_top_k(c - half, c + half, w, p, 10))
    assert m.sorted_accesses < n  # TA did not read every stabbed interval


def test_bad_inputs():
    lo = np.zeros((3, 2))
    with pytest.raises(InputError, match="weights > 0"):
        RelaxedMatcher(lo, lo + 1, np.zeros((3, 2)))
    with pytest.raises(InputError, match="shape"):
        ExactMatcher(lo, np.ones((3, 3)), np.ones(3))
    with pytest.raises(InputError, match="coordinates"):
        ExactMatcher(lo, lo + 1, np.ones(3)).top_k([0.0], 1)
    with pytest.raises(InputError, match="unknown ranked index"):
        ExactMatcher(lo, lo + 1, np.ones(3), index="nope")
