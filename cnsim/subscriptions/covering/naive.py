"""The naive covering index: a linear scan of the live points (seed 001 §V-C's baseline).

The live slots are kept densely in ``order`` (swap-remove on delete), in arrival
order until deletes permute it; the scan stops at the ``k``-th hit.  Every point
looked at is one point comparison; the scan visits one "node" (the whole list).
"""

from __future__ import annotations

import numba
import numpy as np

from cnsim.subscriptions.covering.base import CoveringIndex, qualifies


@numba.njit(cache=True)
def _scan(P, seq, order, n, q, qseq, k, up, out):
    found = 0
    pc = 0
    for t in range(n):
        s = order[t]
        pc += 1
        if qualifies(P, s, q, seq, qseq, up):
            out[found] = s
            found += 1
            if found == k:
                break
    return found, pc


class NaiveIndex(CoveringIndex):
    """Linear scan; ``nodes_visited`` is 1 per query."""

    name = "naive"

    def __init__(self, d: int, **params):
        super().__init__(d, **params)
        self._order = np.empty(self.capacity, np.int64)
        self._pos = np.full(self.capacity, -1, np.int64)
        self._out = np.empty(self.capacity + 1, np.int64)

    def _grow(self, capacity: int) -> None:
        order = np.empty(capacity, np.int64)
        order[: len(self._order)] = self._order
        pos = np.full(capacity, -1, np.int64)
        pos[: len(self._pos)] = self._pos
        self._order, self._pos = order, pos
        self._out = np.empty(capacity + 1, np.int64)

    def _insert(self, slot: int) -> None:
        i = self.n - 1  # the base has counted it already
        self._order[i] = slot
        self._pos[slot] = i

    def _delete(self, slot: int) -> None:
        i = self._pos[slot]
        last = self._order[self.n - 1]
        self._order[i] = last
        self._pos[last] = i
        self._pos[slot] = -1

    def _query(self, q, qseq, k, up):
        found, pc = _scan(self.P, self.seq, self._order, self.n, q, qseq, k, up, self._out)
        return self._out[:found].copy(), 1, int(pc)
