"""The k-index (Whang et al., *Indexing Boolean Expressions*, VLDB 2009): the paper's
main competitor (seed 002 §VII, "k-ind").

Conjunctions are partitioned by their size K; inside a partition, one posting list per
key ``(attribute, value)`` holds ``(subscription id, in/not-in)`` entries sorted by id
(a "not in" entry before an "in" entry of the same id).  An event retrieves the lists of
its keys in every partition; the skipping algorithm (the paper's Algorithm 1,
"conjunction") sorts the lists by their current id and reports an id when the K
lowest lists agree on it and none of them rejects it; K = 0 is the Z list.  Top-k
(the paper's §5) keeps, per posting list, the maximum weight of its "in" entries; a
partition whose bound (the K largest ``list max x event weight`` over its lists not yet
exhausted) cannot beat the k-th score is skipped, or stopped as soon as it cannot.

**Our semantics in k-index terms** (see README): every predicate of a subscription
must find the event's attribute, so *every* predicate is an "in" entry and K is the
number of predicates; ``!=`` / ``not in`` predicates are an "in" entry on the key
``(a, ANY)`` (every event with attribute a has it) plus "not in" entries on their
excluded values.

**Discretisation** (as seed 002's comparison: a large discrete domain, ranges
enumerated): keys are the integers of ``domain`` plus two per-attribute catch-alls, ANY
and FRAC (an event value that is not an integer of the domain).  A point event's value
x on a gives the keys ``(a, ANY)`` and ``(a, x)`` (or ``(a, FRAC)``).  A subscription's
predicate gives "in" entries on:

* ``=``, ``in``: each value (or FRAC when it is not an integer of the domain);
* ``<, <=, >, >=, between``: every integer of the domain its interval covers, plus FRAC
  when the interval holds any other float — *if* that is at most ``max_cells`` integers
  (the enumeration); a wider interval becomes one entry on ``(a, ANY)``;
* ``!=``, ``not in``: ``(a, ANY)``, and "not in" entries on each excluded integer value.

Each predicate is hit at most once by a point event, so the counting is exact for the
filter; the filter is a superset of the matches (ANY, FRAC), and every candidate is
confirmed and scored by the one exact ``match_score`` of every structure.

The k-index is static in the original; here inserts mark it stale and the lists are
rebuilt (vectorised) before the next query; deletes only clear the id's live flag (a
dead id is skipped) until dead entries outnumber live ones, then the next query
rebuilds.  Only point events (every predicate ``=``) are answered.
"""

from __future__ import annotations

import math
from typing import ClassVar

import numba
import numpy as np

from cnsim.errors import InputError
from cnsim.subscriptions.ranked.boolean import _kernels as K
from cnsim.subscriptions.ranked.boolean._build import expand as _expand
from cnsim.subscriptions.ranked.boolean.base import BooleanIndex
from cnsim.subscriptions.ranked.boolean.expressions import (
    BETWEEN,
    EQ,
    GE,
    GT,
    IN,
    LE,
    LT,
    NE,
    NOTIN,
    Expressions,
)

# key = attr * SHIFT + (code + OFFSET); code = an integer of the domain, ANY or FRAC
SHIFT = np.int64(1) << 36
OFFSET = np.int64(1) << 35
ANY = -OFFSET
FRAC = -OFFSET + 1
#: bound inflation: the partition bound adds its K terms in another order than the
#: score (attribute order), so it may round below a score it bounds by a few ulps
SLACK = 1e-12


# --------------------------------------------------------------------- kernel


@numba.njit(cache=True, inline="always")
def _cur(en_id, cur, end, L):
    c = cur[L]
    return en_id[c] if c < end[L] else np.int64(2**62)


@numba.njit(cache=True)
def _bound(ub, cur, end, nl, kk):
    """Sum of the kk largest ub over the lists not yet exhausted (inflated)."""
    tmp = np.empty(nl)
    m = 0
    for L in range(nl):
        if cur[L] < end[L]:
            x = ub[L]
            t = m
            while t > 0 and tmp[t - 1] < x:  # descending insertion sort
                tmp[t] = tmp[t - 1]
                t -= 1
            tmp[t] = x
            m += 1
    if m < kk:
        return -1.0  # the partition cannot produce another match
    s = 0.0
    for t in range(kk):
        s += tmp[t]
    return s * (1.0 + SLACK)


@numba.njit(cache=True)
def kindex_kernel(T, E, k, R):
    pk_ptr, l_key, l_start, l_end, l_ub, en_id, en_neg, dlo, dhi, S = T
    alive = S[2]
    e_attr = E[1]
    e_lo = E[3]
    e_w = E[5]
    ne = e_attr.size
    prune = k >= 0
    # the event's keys: (a, ANY) and (a, value or FRAC) per attribute
    keys = np.empty(2 * ne, np.int64)
    kw = np.empty(2 * ne)
    for j in range(ne):
        base = e_attr[j] * SHIFT + OFFSET
        x = e_lo[j]
        code = FRAC
        if x == math.floor(x) and dlo <= x <= dhi:
            code = np.int64(x)
        keys[2 * j] = base + ANY
        keys[2 * j + 1] = base + code
        kw[2 * j] = e_w[j]
        kw[2 * j + 1] = e_w[j]
    nk = 2 * ne
    cur = np.empty(nk, np.int64)
    end = np.empty(nk, np.int64)
    ub = np.empty(nk)
    order = np.empty(nk, np.int64)
    n_part = pk_ptr.size - 1
    top = min(n_part - 1, ne)
    for kk in range(top, 0, -1):  # partitions by size, largest first (Whang's order)
        p0 = pk_ptr[kk]
        p1 = pk_ptr[kk + 1]
        if p1 - p0 < kk:
            continue
        nl = 0
        for t in range(nk):
            q = K.find(l_key, p0, p1, keys[t])
            if q >= 0:
                cur[nl] = l_start[q]
                end[nl] = l_end[q]
                ub[nl] = l_ub[q] * kw[t]
                nl += 1
        if nl < kk:
            continue
        bound = _bound(ub, cur, end, nl, kk)
        if bound < 0.0 or (prune and K.can_prune(R, k, bound)):
            continue  # partition pruning
        for L in range(nl):
            order[L] = L
        while True:
            # sort the lists by current id, a "not in" entry first (insertion sort:
            # the order changes little between steps)
            for a in range(1, nl):
                x = order[a]
                xi = _cur(en_id, cur, end, x)
                xn = cur[x] < end[x] and en_neg[cur[x]]
                b = a
                while b > 0:
                    y = order[b - 1]
                    yi = _cur(en_id, cur, end, y)
                    if yi > xi or (yi == xi and xn and not (cur[y] < end[y] and en_neg[cur[y]])):
                        order[b] = y
                        b -= 1
                    else:
                        break
                order[b] = x
            first = order[0]
            last = order[kk - 1]
            lid = _cur(en_id, cur, end, last)
            if lid == 2**62:
                break  # fewer than K lists left
            exhausted = False
            if _cur(en_id, cur, end, first) == lid:
                if en_neg[cur[first]]:  # rejected: skip every list past it
                    for L in range(nl):
                        if _cur(en_id, cur, end, L) == lid:
                            a = cur[L]
                            cur[L] = a + np.searchsorted(en_id[a : end[L]], lid + 1)
                            exhausted |= cur[L] >= end[L]
                    if prune and exhausted:
                        bound = _bound(ub, cur, end, nl, kk)
                        if bound < 0.0 or K.can_prune(R, k, bound):
                            break
                    continue
                if alive[lid]:
                    s = K.match_score(lid, S, E)  # confirm (ANY, FRAC) and score
                    if s >= 0.0:
                        K.offer(R, k, s, lid)
                nxt = lid + 1
            else:
                nxt = lid
            for b in range(kk):  # skipTo(nxt) on the K lowest lists
                L = order[b]
                a = cur[L]
                if a < end[L] and en_id[a] < nxt:
                    cur[L] = a + np.searchsorted(en_id[a : end[L]], nxt)
                    exhausted |= cur[L] >= end[L]
            if prune:
                if exhausted:
                    bound = _bound(ub, cur, end, nl, kk)
                if bound < 0.0 or K.can_prune(R, k, bound):
                    break  # the rest of the partition cannot enter the top-k
    # K = 0: the Z list (the empty subscriptions match every event, score 0)
    if n_part > 0 and pk_ptr[1] > pk_ptr[0]:
        q = pk_ptr[0]
        if not (prune and K.can_prune(R, k, 0.0)):
            for t in range(l_start[q], l_end[q]):
                i = en_id[t]
                if alive[i]:
                    K.offer(R, k, 0.0, i)
                    if prune and K.can_prune(R, k, 0.0):
                        break


# ------------------------------------------------------------------ the index


class KIndex(BooleanIndex):
    """The k-index of Whang et al. (VLDB'09): size partitions, posting lists sorted by
    id, the skipping ("conjunction") algorithm, top-k by per-list weight bounds.
    ``domain`` = the integers ``lo..hi`` enumerated for ranges (the workload's
    cardinality); intervals covering more than ``max_cells`` of them are indexed on
    the attribute's ANY key instead.  Point events only."""

    name: ClassVar[str] = "kindex"
    point_events_only: ClassVar[bool] = True

    def __init__(
        self,
        subscriptions=None,
        *,
        domain: tuple[int, int] = (0, 2**32 - 1),
        max_cells: int = 64,
    ):
        try:
            lo, hi = (int(x) for x in domain)
        except (TypeError, ValueError):
            raise InputError(f"domain must be two integers (lo, hi), got {domain!r}") from None
        if not (-(2**34) < lo <= hi < 2**34):
            raise InputError(f"domain must have -2**34 < lo <= hi < 2**34, got {domain!r}")
        if isinstance(max_cells, bool) or int(max_cells) != max_cells or max_cells < 1:
            raise InputError(f"max_cells must be a positive integer, got {max_cells!r}")
        self.domain = (lo, hi)
        self.max_cells = int(max_cells)
        self._built = None
        self._dirty = True
        self._dead_since = 0
        self._live_at_build = 0
        super().__init__(subscriptions)

    def _add(self, ids: np.ndarray) -> None:
        self._dirty = True

    def _remove(self, i: int) -> None:
        self._dead_since += 1
        if self._dead_since > self._live_at_build - self._dead_since:
            self._dirty = True

    def _check_event(self, e: Expressions) -> None:
        if len(e.op) and (e.op != EQ).any():
            raise InputError("the k-index answers point events only (every predicate '=')")

    # ---------------------------------------------------------------- build
    def _entries(self) -> tuple[np.ndarray, ...]:
        """(K, key, id, neg, weight) of every posting entry of the live subscriptions."""
        st = self._store
        dlo, dhi = self.domain
        ids = np.flatnonzero(st.alive[: st.n])
        size = st.s_end[ids] - st.s_start[ids]
        sub, j = _expand(st.s_start[ids], size)
        sub = ids[sub]
        kk = np.repeat(size, size)
        op = st.p_op[j].astype(np.int64)
        base = st.p_attr[j] * SHIFT + OFFSET
        w = st.p_w[j]
        vals = st.values
        out: list[tuple] = []

        def emit(m, code, neg):
            out.append((kk[m], base[m] + code, sub[m], np.full(len(code), neg, np.int8),
                        w[m] if not neg else np.zeros(len(code))))  # fmt: skip

        def cell(x):
            ok = (x == np.floor(x)) & (x >= dlo) & (x <= dhi)
            return np.where(ok, x, FRAC).astype(np.int64), ok

        # = and in: each value
        m = np.flatnonzero((op == EQ) | (op == IN))
        r, v = _expand(st.p_vptr[j[m]], st.p_vptr[j[m] + 1] - st.p_vptr[j[m]])
        emit(m[r], cell(vals[v])[0], 0)
        # != and not in: ANY, and "not in" on each excluded integer of the domain
        m = np.flatnonzero((op == NE) | (op == NOTIN))
        emit(m, np.full(len(m), ANY, np.int64), 0)
        r, v = _expand(st.p_vptr[j[m]], st.p_vptr[j[m] + 1] - st.p_vptr[j[m]])
        code, ok = cell(vals[v])
        emit(m[r[ok]], code[ok], 1)
        # intervals: the domain's integers they cover (+ FRAC), or ANY when too many
        m = np.flatnonzero(np.isin(op, (LT, LE, GT, GE, BETWEEN)))
        lo, hi = st.p_lo[j[m]], st.p_hi[j[m]]
        a = np.ceil(np.clip(lo, dlo - 1.0, dhi + 1.0))
        b = np.floor(np.clip(hi, dlo - 1.0, dhi + 1.0))
        a, b = np.maximum(a, dlo), np.minimum(b, dhi)
        cnt = np.maximum(b - a + 1, 0).astype(np.int64)
        wide = cnt > self.max_cells
        emit(m[wide], np.full(int(wide.sum()), ANY, np.int64), 0)
        narrow = ~wide
        r, v = _expand(a[narrow].astype(np.int64), cnt[narrow])
        emit(m[narrow][r], v, 0)
        frac = narrow & ((lo < hi) | (cnt == 0))
        emit(m[frac], np.full(int(frac.sum()), FRAC, np.int64), 0)
        # the Z list: empty subscriptions (K = 0)
        z = ids[size == 0]
        out.append((np.zeros(len(z), np.int64), np.full(len(z), -1, np.int64), z,
                    np.zeros(len(z), np.int8), np.zeros(len(z))))  # fmt: skip
        return tuple(np.concatenate([o[t] for o in out]) for t in range(5))

    def _build(self) -> None:
        kk, key, sid, neg, w = self._entries()
        o = np.lexsort((-neg, sid, key, kk))
        kk, key, sid, neg, w = kk[o], key[o], sid[o], neg[o], w[o]
        if len(kk):  # an "in" on two values that share a key (FRAC): one entry
            keep = np.ones(len(kk), bool)
            keep[1:] = (
                (kk[1:] != kk[:-1])
                | (key[1:] != key[:-1])
                | (sid[1:] != sid[:-1])
                | (neg[1:] != neg[:-1])
            )
            kk, key, sid, neg, w = kk[keep], key[keep], sid[keep], neg[keep], w[keep]
        new = np.ones(len(kk), bool)
        new[1:] = (kk[1:] != kk[:-1]) | (key[1:] != key[:-1])
        l_start = np.flatnonzero(new)
        l_end = np.append(l_start[1:], len(kk)).astype(np.int64)
        l_key = key[l_start]
        l_ub = np.maximum.reduceat(w, l_start) if len(l_start) else np.empty(0)
        n_part = int(kk.max()) + 1 if len(kk) else 0
        pk_ptr = np.searchsorted(kk[l_start], np.arange(n_part + 1)).astype(np.int64)
        self._built = (
            pk_ptr, l_key, l_start.astype(np.int64), l_end, l_ub, sid.astype(np.int64),
            neg.astype(np.bool_), float(self.domain[0]), float(self.domain[1]),
        )  # fmt: skip
        self._dirty = False
        self._dead_since = 0
        self._live_at_build = len(self)

    def _kernel(self) -> tuple:
        if self._dirty or self._built is None:
            self._build()
        return kindex_kernel, (*self._built, self._store.arrays())

    def _nbytes(self) -> int:
        if self._built is None:
            return 0
        return sum(a.nbytes for a in self._built if isinstance(a, np.ndarray))

    def stats(self) -> dict:
        """Partitions, posting lists and entries (for the benchmark)."""
        if self._dirty or self._built is None:
            self._build()
        pk_ptr, l_key = self._built[0], self._built[1]
        return {"partitions": len(pk_ptr) - 1, "lists": len(l_key),
                "entries": len(self._built[5])}  # fmt: skip
