"""The Z-order (Morton, space-filling curve) covering index of seed 001 §IV-D.

Each of the ``D = 2d`` point coordinates is cut into ``2**bits`` equal cells over the
attribute domain ``[low, high]`` (``-l`` ranges over ``[-high, -low]``).  A point's key
interleaves the bits of its cell coordinates, most significant first and dimension 0
first, behind a leading 1 bit (the paper's example: cell (3, 5) at 8 x 8 has
interleaved bits 011011 = 27 and key 1011011).  The points are kept in key order in a
``sortedcontainers.SortedList`` of ``key << 32 | slot``.

Every key prefix is a *cell* whose points form one contiguous run of the list, found
by binary search.  A query descends the binary trie of prefixes (one bit, i.e. one
halving of one dimension, per level; the paper's cubic cells are the prefixes whose
length is a multiple of ``D``), upper half first for covering queries (towards the
top-right corner, where dominating points are likeliest):

* a cell with no point, or entirely outside the query orthant, is dropped;
* a cell entirely inside it is a maximal cell: its points are reported without
  comparison;
* a cell straddling the boundary is halved again, unless it holds at most
  ``scan_limit`` points or is a single finest cell: then its points are compared
  with the query one by one.

Nodes visited counts every prefix cell examined, point comparisons every point
compared.  Points sharing a finest cell (the resolution need not separate them,
§IV-D) are told apart by the comparisons.
"""

from __future__ import annotations

import numba
import numpy as np
from sortedcontainers import SortedList

from cnsim.errors import InputError
from cnsim.subscriptions.covering.base import CoveringIndex, qualifies

SLOT_BITS = 32
SLOT_MASK = (1 << SLOT_BITS) - 1
KEY_BITS = 60  # interleaved bits at most (D * bits)
SCAN_LIMIT = 8


def interleave(cells, bits: int) -> int:
    """The Morton number of integer cell coordinates (dimension 0 first, MSB first)."""
    z = 0
    for i in range(bits - 1, -1, -1):
        for c in cells:
            z = (z << 1) | ((int(c) >> i) & 1)
    return z


def cell_key(cells, bits: int) -> int:
    """The key of a cell: its Morton number behind a leading 1 bit."""
    return (1 << (len(cells) * bits)) | interleave(cells, bits)


@numba.njit(cache=True)
def _compare(P, seq, slots, q, qseq, up, k, out):
    found = 0
    for i in range(slots.shape[0]):
        s = slots[i]
        if qualifies(P, s, q, seq, qseq, up):
            out[found] = s
            found += 1
            if found == k:
                return found, i + 1
    return found, slots.shape[0]


class ZOrderIndex(CoveringIndex):
    """Z-order index over the attribute domain ``[low, high]`` at ``bits`` per coordinate
    (default: as many as fit in 60 key bits, at most 16)."""

    name = "zorder"

    def __init__(
        self,
        d: int,
        bits: int | None = None,
        low: float = 0.0,
        high: float = 1023.0,
        scan_limit: int = SCAN_LIMIT,
        **params,
    ):
        super().__init__(d, bits=bits, low=low, high=high, scan_limit=scan_limit, **params)
        if bits is None:
            bits = max(1, min(16, KEY_BITS // self.D))
        if int(bits) != bits or not 1 <= bits * self.D <= KEY_BITS:
            raise InputError(f"bits must be an integer with 1 <= 2d * bits <= {KEY_BITS}")
        if not float(low) < float(high):
            raise InputError(f"the attribute domain needs low < high, got [{low}, {high}]")
        self.bits = int(bits)
        self.low, self.high = float(low), float(high)
        self.scan_limit = max(1, int(scan_limit))
        self.total = self.D * self.bits
        self._scale = 2**self.bits / (self.high - self.low)
        self._off = np.where(np.arange(self.D) % 2 == 0, -self.high, self.low)
        self._w = 1 << np.arange(self.total - 1, -1, -1, dtype=np.int64).reshape(self.bits, self.D)
        self._shift = np.arange(self.bits - 1, -1, -1, dtype=np.int64)
        self.sl = SortedList()
        self._keys: list[int] = [0] * self.capacity
        self._out = np.empty(self.capacity + 1, np.int64)

    def _grow(self, capacity: int) -> None:
        self._keys += [0] * (capacity - len(self._keys))
        self._out = np.empty(capacity + 1, np.int64)

    def cells(self, point: np.ndarray) -> np.ndarray:
        """Cell coordinates of a point (unclamped: outside the domain gives -1 or 2**bits
        and beyond)."""
        u = point - self._off
        c = np.floor(u * self._scale).astype(np.int64)
        # the upper domain edge belongs to the last cell
        return np.where(u == self.high - self.low, 2**self.bits - 1, c)

    def key(self, point: np.ndarray) -> int:
        u = point - self._off
        if (u < 0).any() or (u > self.high - self.low).any():
            raise InputError(f"box outside the attribute domain [{self.low}, {self.high}]")
        c = self.cells(point)
        b = (c[None, :] >> self._shift[:, None]) & 1
        return (1 << self.total) | int((b * self._w).sum())

    def _insert(self, slot: int) -> None:
        x = (self.key(self.P[slot]) << SLOT_BITS) | slot
        self._keys[slot] = x
        self.sl.add(x)

    def _delete(self, slot: int) -> None:
        self.sl.remove(self._keys[slot])

    def _query(self, q, qseq, k, up):
        sl, D, total, top = self.sl, self.D, self.total, 2**self.bits - 1
        cq = self.cells(q).tolist()
        found: list[int] = []
        nv = pc = 0
        lead = 1 << total
        # dimensions in which every cell already lies beyond q
        strict0 = sum(1 for c in cq if c < 0) if up else sum(1 for c in cq if c > top)
        stack = [(0, 0, 0, len(sl), [0] * D, [top] * D, strict0)]
        P, seq, out = self.P, self.seq, self._out
        while stack:
            t, pre, i0, i1, A, B, s = stack.pop()
            nv += 1
            if i0 >= i1:
                continue
            if s == D:  # a maximal cell inside the query region
                for x in sl.islice(i0, min(i1, i0 + k - len(found))):
                    found.append(x & SLOT_MASK)
                if len(found) == k:
                    break
                continue
            if t == total or i1 - i0 <= self.scan_limit:
                slots = np.fromiter((x & SLOT_MASK for x in sl.islice(i0, i1)), np.int64)
                m, looked = _compare(P, seq, slots, q, qseq, up, k - len(found), out)
                pc += looked
                found.extend(out[:m].tolist())
                if len(found) == k:
                    break
                continue
            j = t % D
            w = 1 << (self.bits - 1 - t // D)
            rest = total - t - 1
            im = sl.bisect_left((lead | (((pre << 1) | 1) << rest)) << SLOT_BITS)
            A1 = A.copy()
            A1[j] += w  # upper half in dimension j
            B0 = B.copy()
            B0[j] -= w  # lower half
            lower = (t + 1, pre << 1, i0, im, A, B0)
            upper = (t + 1, (pre << 1) | 1, im, i1, A1, B)
            if up:
                s1 = s + (1 if A1[j] > cq[j] >= A[j] else 0)
                if B0[j] >= cq[j]:
                    stack.append((*lower, s))
                stack.append((*upper, s1))
            else:
                s0 = s + (1 if B0[j] < cq[j] <= B[j] else 0)
                if A1[j] <= cq[j]:
                    stack.append((*upper, s))
                stack.append((*lower, s0))
        return np.array(found, np.int64), nv, pc
