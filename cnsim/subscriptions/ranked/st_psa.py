"""ST-PSA (seed 004 §4): a segment tree whose nodes keep the rank-sorted array of all
intervals stored on their root path; a query descends to its leaf and returns the
first k entries of that leaf's array.

The descent always ends at a leaf (elementary cell), so internal nodes' arrays are
never read and are not stored.  A leaf's path array is exactly the set of intervals
containing its cell, so it is filled directly by walking the intervals in rank order
(work = output size).  Memory is the sum over cells of the intervals containing
them: quadratic for nested intervals, so it is estimated first and the build
refuses beyond ``max_bytes``.
"""

from __future__ import annotations

import numba
import numpy as np

from cnsim.errors import InputError
from cnsim.subscriptions.ranked._kernels import cell_of
from cnsim.subscriptions.ranked.base import Param, RankedIndex, rank_order
from cnsim.subscriptions.ranked.segment_tree import elementary

DEFAULT_MAX_BYTES = 2 * 2**30


@numba.njit(cache=True)
def psa_sizes(A, B, n_cells):
    """Length of each cell's path-sorted array (a difference array over cells)."""
    d = np.zeros(n_cells + 1, np.int64)
    for i in range(A.shape[0]):
        d[A[i]] += 1
        d[B[i] + 1] -= 1
    return np.cumsum(d[:n_cells])


@numba.njit(cache=True)
def psa_fill(A, B, offsets):
    """Fill each cell's array with the ranks covering it, best first."""
    fill = offsets[:-1].copy()
    items = np.empty(offsets[-1], np.int32)
    for i in range(A.shape[0]):
        for c in range(A[i], B[i] + 1):
            items[fill[c]] = i
            fill[c] += 1
    return items


@numba.njit(cache=True)
def psa_top_k(xs, offsets, items, q, k):
    """Algorithm 2: the first k entries of the array of the leaf holding q."""
    c = cell_of(xs, q)
    s = offsets[c]
    return items[s : min(s + k, offsets[c + 1])]


class STPSA(RankedIndex):
    """Segment tree with path-sorted arrays; ``max_bytes`` caps its memory."""

    name = "st_psa"
    parameters = (
        Param(
            "max_bytes",
            int,
            DEFAULT_MAX_BYTES,
            low=0,
            doc="The build raises InputError if the path arrays would need more bytes.",
        ),
    )

    @staticmethod
    def estimate_nbytes(l: np.ndarray, r: np.ndarray) -> int:
        """Bytes an ST-PSA over these intervals would take, without building it."""
        xs, A, B, n_cells = elementary(np.asarray(l, float), np.asarray(r, float))
        sizes = psa_sizes(A, B, n_cells)
        return int(sizes.sum()) * 4 + (n_cells + 1) * 8 + xs.nbytes + len(l) * 8

    def _build(self, l, r, score):
        self._order = rank_order(score)
        self._xs, A, B, n_cells = elementary(l[self._order], r[self._order])
        sizes = psa_sizes(A, B, n_cells)
        need = int(sizes.sum()) * 4
        cap = self.params["max_bytes"]
        if need > cap:
            raise InputError(
                f"ST-PSA over {len(l)} intervals needs {need / 2**20:.0f} MiB of path arrays, "
                f"more than max_bytes={cap / 2**20:.0f} MiB (nested intervals are copied "
                "into every cell they cover)"
            )
        self._off = np.zeros(n_cells + 1, np.int64)
        np.cumsum(sizes, out=self._off[1:])
        self._items = psa_fill(A, B, self._off)
        self._kernel, self._kargs, self._map = (
            psa_top_k,
            (self._xs, self._off, self._items),
            self._order,
        )

    def _core_nbytes(self):
        return self._order.nbytes + self._xs.nbytes + self._off.nbytes + self._items.nbytes
