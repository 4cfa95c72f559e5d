"""The Z-order (Morton, space-filling curve) covering index of seed 001 §IV-D.

Each of the ``D = 2d`` point coordinates is cut into ``2**bits`` equal cells over the
attribute domain ``[low, high]`` (``-l`` ranges over ``[-high, -low]``).  A point's key
interleaves the bits of its cell coordinates, most significant first and dimension 0
first, behind a leading 1 bit (the paper's example: cell (3, 5) at 8 x 8 has
interleaved bits 011011 = 27 and key 1011011).  The points are kept in ``(key, slot)``
order in a sorted container.

Every key prefix is a *cell* whose points form one contiguous run of that order, found
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

The sorted container is a list of sorted *blocks* of at most ``block`` entries (the
layout of ``sortedcontainers.SortedList``, in arrays so that numba runs it): block
``b`` holds keys ``bkey[b, :bsize]`` and slots ``bslot[b, :bsize]``; ``binfo[:, 0]``
the block sizes (by block id), ``binfo[:, 1]`` the block ids in key order,
``binfo[:, 2]`` the entries before each position of that order (so a global rank is
a binary search away) and ``binfo[:, 3]`` a stack of free block ids.  A full block
splits in two; an empty one is freed.  Ranks, and therefore every decision and count
of the query, are those of a single sorted list.  Insert, delete and the query run in
numba on ``kernel_state()`` (shared with :mod:`cnsim.subscriptions.covering.engine`).

numba's on-disk cache (``cache=True``) keys a compiled function on its own file only:
after a change to a function it calls from another module (``qualifies`` in
``base.py``, ``kd_query`` in ``kdtree.py``), this file must change too (or
``__pycache__`` be cleared), else the old machine code is loaded.  Last done for the
branch-free ``qualifies``.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from cnsim.errors import InputError
from cnsim.subscriptions.covering.base import CoveringIndex, Kernels, qualifies

KEY_BITS = 60  # interleaved bits at most (D * bits)
SCAN_LIMIT = 8
BLOCK = 128
# binfo columns
BSIZE, ORDER, CUM, FREE = range(4)
# meta entries: blocks in use, free block ids, points, bits, key bits, scan limit
NBLK, NFREE, NPTS, BITS, TOTAL, SCAN = range(6)
ROOM, MORE_IDS = 0, 2


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
def _cells(geo, bits, q, out):
    """Cell coordinates of ``q`` (unclamped); ``geo = (extent, scale, off_0, ...)``."""
    top = (1 << bits) - 1
    for j in range(q.shape[0]):
        u = q[j] - geo[2 + j]
        if u == geo[0]:  # the upper domain edge belongs to the last cell
            out[j] = top
        else:
            out[j] = np.int64(np.floor(u * geo[1]))


@numba.njit(cache=True)
def _key(geo, bits, total, q, cell):
    _cells(geo, bits, q, cell)
    z = np.int64(1)
    for r in range(bits):
        for j in range(q.shape[0]):
            z = (z << 1) | ((cell[j] >> (bits - 1 - r)) & 1)
    return z


@numba.njit(cache=True)
def _bisect(bkey, binfo, nb, K):
    """The number of entries with key < ``K``."""
    lo, hi = 0, nb
    while lo < hi:  # first position whose last key >= K
        mid = (lo + hi) // 2
        b = binfo[mid, ORDER]
        if bkey[b, binfo[b, BSIZE] - 1] < K:
            lo = mid + 1
        else:
            hi = mid
    if lo == nb:
        return binfo[nb, CUM] if nb > 0 else 0
    b = binfo[lo, ORDER]
    a, z = 0, binfo[b, BSIZE]
    while a < z:
        mid = (a + z) // 2
        if bkey[b, mid] < K:
            a = mid + 1
        else:
            z = mid
    return binfo[lo, CUM] + a


@numba.njit(cache=True)
def _locate(binfo, nb, r):
    """The position in key order of the block holding global rank ``r``."""
    lo, hi = 0, nb - 1
    while lo < hi:  # last position with cum <= r
        mid = (lo + hi + 1) // 2
        if binfo[mid, CUM] <= r:
            lo = mid
        else:
            hi = mid - 1
    return lo


@numba.njit(cache=True, inline="always")
def _before(k1, s1, k2, s2):
    return k1 < k2 or (k1 == k2 and s1 < s2)


@numba.njit(cache=True)
def zo_room(st, P, s):
    """``ROOM``, or ``MORE_IDS`` when no free block id is left for a split."""
    return ROOM if st[3][NFREE] >= 1 else MORE_IDS


@numba.njit(cache=True, inline="always")
def _position(bkey, bslot, binfo, nb, K, s):
    """The first of the ``nb`` block positions whose block's last entry is >= ``(K, s)``."""
    lo, hi = 0, nb
    while lo < hi:
        mid = (lo + hi) // 2
        b = binfo[mid, ORDER]
        n = binfo[b, BSIZE] - 1
        if _before(bkey[b, n], bslot[b, n], K, s):
            lo = mid + 1
        else:
            hi = mid
    return lo


@numba.njit(cache=True)
def zo_insert(st, P, s):
    bkey, bslot, binfo, meta, geo, keys, cell = st[0], st[1], st[2], st[3], st[4], st[6], st[7]
    K = _key(geo, meta[BITS], meta[TOTAL], P[s], cell)
    keys[s] = K
    nb = meta[NBLK]
    cap = bkey.shape[1]
    if nb == 0:
        meta[NFREE] -= 1
        b = binfo[meta[NFREE], FREE]
        binfo[b, BSIZE] = 0
        binfo[0, ORDER] = b
        binfo[0, CUM] = 0
        binfo[1, CUM] = 0
        nb = 1
        meta[NBLK] = 1
        p = 0
    else:
        p = min(_position(bkey, bslot, binfo, nb, K, s), nb - 1)
    b = binfo[p, ORDER]
    n = binfo[b, BSIZE]
    i = n
    while i > 0 and _before(K, s, bkey[b, i - 1], bslot[b, i - 1]):
        bkey[b, i] = bkey[b, i - 1]
        bslot[b, i] = bslot[b, i - 1]
        i -= 1
    bkey[b, i] = K
    bslot[b, i] = s
    n += 1
    binfo[b, BSIZE] = n
    for q in range(p + 1, nb + 1):
        binfo[q, CUM] += 1
    meta[NPTS] += 1
    if n == cap:  # split the full block into two halves
        meta[NFREE] -= 1
        b2 = binfo[meta[NFREE], FREE]
        h = n // 2
        for t in range(h, n):
            bkey[b2, t - h] = bkey[b, t]
            bslot[b2, t - h] = bslot[b, t]
        binfo[b, BSIZE] = h
        binfo[b2, BSIZE] = n - h
        for q in range(nb, p, -1):
            binfo[q + 1, ORDER] = binfo[q, ORDER]
            binfo[q + 1, CUM] = binfo[q, CUM]
        binfo[p + 1, ORDER] = b2
        binfo[p + 1, CUM] = binfo[p, CUM] + h
        meta[NBLK] = nb + 1


@numba.njit(cache=True)
def zo_delete(st, P, s):
    bkey, bslot, binfo, meta, keys = st[0], st[1], st[2], st[3], st[6]
    K = keys[s]
    nb = meta[NBLK]
    p = _position(bkey, bslot, binfo, nb, K, s)
    b = binfo[p, ORDER]
    n = binfo[b, BSIZE]
    i = 0
    while bkey[b, i] != K or bslot[b, i] != s:
        i += 1
    for t in range(i, n - 1):
        bkey[b, t] = bkey[b, t + 1]
        bslot[b, t] = bslot[b, t + 1]
    n -= 1
    binfo[b, BSIZE] = n
    for q in range(p + 1, nb + 1):
        binfo[q, CUM] -= 1
    meta[NPTS] -= 1
    if n == 0:  # free the empty block
        binfo[meta[NFREE], FREE] = b
        meta[NFREE] += 1
        for q in range(p, nb):
            binfo[q, ORDER] = binfo[q + 1, ORDER]
            binfo[q, CUM] = binfo[q + 1, CUM]
        meta[NBLK] = nb - 1


@numba.njit(cache=True)
def zo_query(st, P, seq, q, qseq, k, up, out):
    """Up to ``k`` slots covering (``up``) or covered by ``q``; ``(found, nodes
    visited, point comparisons)``.  The prefix-trie descent of the module docstring;
    a stack row is ``(t, prefix, i0, i1, strict, A[0:D], B[0:D])``: level, prefix
    bits, the rank range of the cell, the dimensions in which it lies strictly beyond
    ``q``, and its cell-coordinate box ``[A, B]``."""
    bkey, bslot, binfo, meta, geo, stack, cell = st[0], st[1], st[2], st[3], st[4], st[5], st[7]
    D = q.shape[0]
    bits = meta[BITS]
    total = meta[TOTAL]
    scan = meta[SCAN]
    top_cell = (1 << bits) - 1
    lead = np.int64(1) << total
    nb = meta[NBLK]
    n = meta[NPTS]
    _cells(geo, bits, q, cell)
    s0 = 0
    for j in range(D):
        if (up and cell[j] < 0) or ((not up) and cell[j] > top_cell):
            s0 += 1
    T, PRE, I0, I1, S, A0 = 0, 1, 2, 3, 4, 5
    B0 = 5 + D
    sp = 1
    stack[0, T] = 0
    stack[0, PRE] = 0
    stack[0, I0] = 0
    stack[0, I1] = n
    stack[0, S] = s0
    for j in range(D):
        stack[0, A0 + j] = 0
        stack[0, B0 + j] = top_cell
    found = 0
    nv = 0
    pc = 0
    while sp > 0:
        sp -= 1
        t = stack[sp, T]
        pre = stack[sp, PRE]
        i0 = stack[sp, I0]
        i1 = stack[sp, I1]
        s = stack[sp, S]
        nv += 1
        if i0 >= i1:
            continue
        if s == D or t == total or i1 - i0 <= scan:
            compare = s != D
            if not compare:  # a maximal cell inside the query region
                i1 = min(i1, i0 + k - found)
            p = _locate(binfo, nb, i0)
            b = binfo[p, ORDER]
            o = i0 - binfo[p, CUM]
            for _ in range(i1 - i0):
                if o == binfo[b, BSIZE]:
                    p += 1
                    b = binfo[p, ORDER]
                    o = 0
                x = bslot[b, o]
                o += 1
                if compare:
                    pc += 1
                    if not qualifies(P, x, q, seq, qseq, up):
                        continue
                out[found] = x
                found += 1
                if found == k:
                    return found, nv, pc
            continue
        j = t % D
        w = np.int64(1) << (bits - 1 - t // D)
        rest = total - t - 1
        im = _bisect(bkey, binfo, nb, lead | (((pre << 1) | 1) << rest))
        a_j = stack[sp, A0 + j]
        b_j = stack[sp, B0 + j]
        a1 = a_j + w  # the upper half's lower bound in dimension j
        b0 = b_j - w  # the lower half's upper bound
        # the row at sp is the parent (already read): children overwrite it and the
        # next one; the second pushed is popped first
        base = sp
        if up:
            s1 = s + (1 if a1 > cell[j] >= a_j else 0)
            if b0 >= cell[j]:
                _push(stack, sp, base, t + 1, pre << 1, i0, im, s, A0, B0, j, a_j, b0, D)
                sp += 1
            _push(stack, sp, base, t + 1, (pre << 1) | 1, im, i1, s1, A0, B0, j, a1, b_j, D)
            sp += 1
        else:
            s0_ = s + (1 if b0 < cell[j] <= b_j else 0)
            if a1 <= cell[j]:
                _push(stack, sp, base, t + 1, (pre << 1) | 1, im, i1, s, A0, B0, j, a1, b_j, D)
                sp += 1
            _push(stack, sp, base, t + 1, pre << 1, i0, im, s0_, A0, B0, j, a_j, b0, D)
            sp += 1
    return found, nv, pc


@numba.njit(cache=True, inline="always")
def _push(stack, row, base, t, pre, i0, i1, s, A0, B0, j, aj, bj, D):
    """Write a child cell at ``row``: the parent's box (row ``base``) with dimension
    ``j`` narrowed to ``[aj, bj]``."""
    if row != base:
        for c in range(D):
            stack[row, A0 + c] = stack[base, A0 + c]
            stack[row, B0 + c] = stack[base, B0 + c]
    stack[row, 0] = t
    stack[row, 1] = pre
    stack[row, 2] = i0
    stack[row, 3] = i1
    stack[row, 4] = s
    stack[row, A0 + j] = aj
    stack[row, B0 + j] = bj


class ZOState(NamedTuple):
    """The Z-order index's arrays, as its kernels take them (see the module docstring)."""

    bkey: np.ndarray
    bslot: np.ndarray
    binfo: np.ndarray
    meta: np.ndarray
    geo: np.ndarray
    stack: np.ndarray
    keys: np.ndarray
    cell: np.ndarray


class ZOrderIndex(CoveringIndex):
    """Z-order index over the attribute domain ``[low, high]`` at ``bits`` per coordinate
    (default: as many as fit in 60 key bits, at most 16); ``block`` entries per block
    of the sorted container."""

    name = "zorder"
    kernels = Kernels(ZOState, zo_room, zo_insert, zo_delete, zo_query)

    def __init__(
        self,
        d: int,
        bits: int | None = None,
        low: float = 0.0,
        high: float = 1023.0,
        scan_limit: int = SCAN_LIMIT,
        block: int = BLOCK,
        **params,
    ):
        super().__init__(
            d, bits=bits, low=low, high=high, scan_limit=scan_limit, block=block, **params
        )
        if bits is None:
            bits = max(1, min(16, KEY_BITS // self.D))
        if int(bits) != bits or not 1 <= bits * self.D <= KEY_BITS:
            raise InputError(f"bits must be an integer with 1 <= 2d * bits <= {KEY_BITS}")
        if not float(low) < float(high):
            raise InputError(f"the attribute domain needs low < high, got [{low}, {high}]")
        if int(block) != block or block < 2:
            raise InputError(f"block must be an integer >= 2, got {block!r}")
        self.bits = int(bits)
        self.low, self.high = float(low), float(high)
        self.scan_limit = max(1, int(scan_limit))
        self.total = self.D * self.bits
        self._scale = 2**self.bits / (self.high - self.low)
        self._off = np.where(np.arange(self.D) % 2 == 0, -self.high, self.low)
        self._w = 1 << np.arange(self.total - 1, -1, -1, dtype=np.int64).reshape(self.bits, self.D)
        self._shift = np.arange(self.bits - 1, -1, -1, dtype=np.int64)
        nb = 8
        self.bkey = np.zeros((nb, int(block)), np.int64)
        self.bslot = np.zeros((nb, int(block)), np.int64)
        self.binfo = np.zeros((nb + 1, 4), np.int64)
        self.binfo[:nb, FREE] = np.arange(nb - 1, -1, -1)
        self.meta = np.array([0, nb, 0, self.bits, self.total, self.scan_limit], np.int64)
        self.geo = np.concatenate([[self.high - self.low, self._scale], self._off])
        self._stack = np.zeros((2 * self.total + 4, 5 + 2 * self.D), np.int64)
        self._keys = np.zeros(self.capacity, np.int64)
        self._cell = np.zeros(self.D, np.int64)
        self._state()

    def _state(self) -> None:
        self.st = ZOState(
            self.bkey,
            self.bslot,
            self.binfo,
            self.meta,
            self.geo,
            self._stack,
            self._keys,
            self._cell,
        )

    def _grow(self, capacity: int) -> None:
        keys = np.zeros(capacity, np.int64)
        keys[: len(self._keys)] = self._keys
        self._keys = keys
        self._state()

    def make_room(self, code: int) -> None:
        """Double the block table (``zo_room`` found no free block id)."""
        if code != MORE_IDS:
            raise ValueError(f"unknown Z-order room code {code}")
        old = len(self.bkey)
        bkey = np.zeros((2 * old, self.bkey.shape[1]), np.int64)
        bkey[:old] = self.bkey
        bslot = np.zeros_like(bkey)
        bslot[:old] = self.bslot
        binfo = np.zeros((2 * old + 1, 4), np.int64)
        binfo[: old + 1, :FREE] = self.binfo[:, :FREE]
        c = self.meta[NFREE]
        binfo[:old, FREE] = np.arange(2 * old - 1, old - 1, -1)
        binfo[old : old + c, FREE] = self.binfo[:c, FREE]
        self.meta[NFREE] = old + c
        self.bkey, self.bslot, self.binfo = bkey, bslot, binfo
        self._state()

    def check_points(self, points: np.ndarray) -> None:
        """Reject points outside the attribute domain (before a batch enters numba)."""
        u = points - self._off
        if (u < 0).any() or (u > self.high - self.low).any():
            raise InputError(f"box outside the attribute domain [{self.low}, {self.high}]")

    def cells(self, point: np.ndarray) -> np.ndarray:
        """Cell coordinates of a point (unclamped: outside the domain gives -1 or 2**bits
        and beyond)."""
        u = point - self._off
        c = np.floor(u * self._scale).astype(np.int64)
        # the upper domain edge belongs to the last cell
        return np.where(u == self.high - self.low, 2**self.bits - 1, c)

    def key(self, point: np.ndarray) -> int:
        self.check_points(point)
        c = self.cells(point)
        b = (c[None, :] >> self._shift[:, None]) & 1
        return (1 << self.total) | int((b * self._w).sum())

    def _insert(self, slot: int) -> None:
        self.check_points(self.P[slot])
        super()._insert(slot)
