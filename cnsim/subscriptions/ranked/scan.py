"""Sequential scan (SS, seed 004 §5): intervals sorted by rank, scanned until k hits."""

from __future__ import annotations

import numba
import numpy as np

from cnsim.subscriptions.ranked.base import RankedIndex, rank_order


@numba.njit(cache=True)
def _scan(L, R, q, k):
    out = np.empty(k, np.int64)
    m = 0
    for p in range(L.shape[0]):
        if m == k:
            break
        if L[p] <= q <= R[p]:
            out[m] = p
            m += 1
    return out[:m]


class SequentialScan(RankedIndex):
    """Scan of the score-sorted intervals; stops at the k-th stabbed one."""

    name = "scan"
    native_updates = True

    def _build(self, l, r, score):
        self._order = rank_order(score)
        self._Lr = l[self._order]
        self._Rr = r[self._order]
        self._kernel, self._kargs, self._map = _scan, (self._Lr, self._Rr), self._order

    def _core_nbytes(self):
        return self._order.nbytes + self._Lr.nbytes + self._Rr.nbytes
