"""The covering test itself (``qualifies``, the k-d tree's ``_qualifies_row``) against
brute force: branch-free (no early exit), it must give the early-exit
answer for every point, direction and tie (equal points decided by arrival order)."""

from __future__ import annotations

import numba
import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from cnsim.subscriptions.covering import brute_covering
from cnsim.subscriptions.covering.base import qualifies
from cnsim.subscriptions.covering.kdtree import _qualifies_row


@numba.njit(cache=True)
def _both(P, seq, q, qseq, up):
    """Every row through ``qualifies`` and, as a one-bucket copy, ``_qualifies_row``."""
    n = P.shape[0]
    a = np.zeros(n, np.bool_)
    b = np.zeros(n, np.bool_)
    bpt = P.reshape(1, n, P.shape[1])
    for s in range(n):
        a[s] = qualifies(P, s, q, seq, qseq, up)
        b[s] = _qualifies_row(bpt, 0, s, s, q, seq, qseq, up)
    return a, b


@given(
    D=st.integers(1, 16),
    n=st.integers(1, 30),
    g=st.sampled_from([1, 2, 5]),
    seed=st.integers(0, 2**32 - 1),
    up=st.booleans(),
)
def test_qualifies_equals_brute_force(D, n, g, seed, up):
    rng = np.random.default_rng(seed)
    P = rng.integers(0, g + 1, (n, D)).astype(float)  # coordinates 0..g: ties everywhere
    seq = rng.permutation(n).astype(np.int64)
    q = P[rng.integers(n)].copy() if rng.random() < 0.5 else rng.integers(0, g + 1, D) * 1.0
    qseq = int(rng.integers(-1, n + 1))
    want = np.zeros(n, bool)
    want[brute_covering(P, seq, q, qseq, up)] = True
    a, b = _both(np.ascontiguousarray(P), seq, q, qseq, up)
    assert np.array_equal(a, want) and np.array_equal(b, want)


def test_nan_coordinates_answer_as_the_early_exit_did():
    """A NaN coordinate is neither below nor above nor equal: the point qualifies if
    every other coordinate does (as with the early exit it replaced)."""
    P = np.array([[np.nan, 5.0], [np.nan, 1.0]])
    q = np.array([0.0, 2.0])
    a, b = _both(P, np.array([0, 1], np.int64), q, 5, True)
    assert a.tolist() == [True, False] and b.tolist() == [True, False]
