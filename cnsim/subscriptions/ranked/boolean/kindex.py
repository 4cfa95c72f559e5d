"""The k-index (Whang et al., *Indexing Boolean Expressions*, VLDB 2009): the paper's
main competitor (seed 002 §VII, "k-ind").

Conjunctions are partitioned by their size K; inside a partition, one posting list per
key ``(attribute, value)`` holds ``(subscription id, in/not-in)`` entries sorted by id
(a "not in" entry before an "in" entry of the same id).  An event retrieves the lists of
its keys in every partition; the skipping algorithm (the paper's Algorithm 1,
"conjunction") sorts the lists by their current id and reports an id when the K
lowest lists agree on it and none of them rejects it; K = 0 is the Z list.  Top-k
(the paper's §5) keeps, per posting list, the maximum weight of its "in" entries.  Every
partition's bound UB(K) (the K largest ``list max x event weight`` among the event's
lists in partition K; the Z list's is 0) is computed first, and the partitions are
visited in descending UB(K), ties by larger K (``partition_order="bound"``, the
default), the search stopping altogether at the first partition whose bound is strictly
below the current k-th score; inside a partition, the bound over its lists not yet
exhausted stops it as soon as it cannot beat the k-th score.
``partition_order="size"`` visits them in Whang's matching order, largest K first,
skipping those that cannot beat the k-th score (the first version; for comparison).
Only a bound *strictly* below the k-th score prunes (ties by smaller id), so both
orders give the same answers, bit for bit.

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
rebuilt before the next query; deletes only clear the id's live flag (a dead id is
skipped) until dead entries outnumber live ones, then the next query rebuilds.  Only
point events (every predicate ``=``) are answered.

**Build** (numba, two passes over the live subscriptions in id order, nothing per entry
but the result): the first finds every list ``(K, key)`` through an open-addressing
hash table and counts its entries and its bound, the lists are sorted by ``(K, key)``
(a few hundred thousand rows) and their starts summed; the second pass writes every
entry at its list's cursor, so the lists come out sorted by id without sorting the
entries (a counting sort).  The same lists as the first build (every entry
materialised as five columns, one lexsort, gathers; ``_build_numpy``, kept as the
tests' reference), array for array; at 1M benchmark subscriptions its peak is the
store plus the 431 MB of lists (the first build went past 3.3 GB).
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
    live = np.empty(nl)
    m = 0
    for L in range(nl):
        if cur[L] < end[L]:
            live[m] = ub[L]
            m += 1
    if m < kk:
        return -1.0  # the partition cannot produce another match
    return _top_sum(live, m, kk)


@numba.njit(cache=True)
def _top_sum(x, n, kk):
    """Sum of the kk largest of x[:n] (inflated), added largest first."""
    tmp = np.empty(n)
    for m in range(n):
        v = x[m]
        t = m
        while t > 0 and tmp[t - 1] < v:  # descending insertion sort
            tmp[t] = tmp[t - 1]
            t -= 1
        tmp[t] = v
    s = 0.0
    for t in range(kk):
        s += tmp[t]
    return s * (1.0 + SLACK)


@numba.njit(cache=True)
def kindex_kernel(T, E, k, R):
    pk_ptr, l_key, l_start, l_end, l_ub, en_id, en_neg, dlo, dhi, by_bound, S = T
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
    # every partition's lists and upper bound first: the event's lists in partition K
    # are pq[K * nk : K * nk + pn[K]], their bounds ``list max x event weight`` in pw
    pq = np.empty(max(top + 1, 1) * nk, np.int64)
    pw = np.empty(max(top + 1, 1) * nk)
    pn = np.zeros(max(top + 1, 1), np.int64)
    cand_k = np.empty(top + 2, np.int64)  # the partitions to visit and their bounds
    cand_b = np.empty(top + 2)
    nc = 0
    for kk in range(top, 0, -1):  # largest K first: the order "size" visits
        p0 = pk_ptr[kk]
        p1 = pk_ptr[kk + 1]
        if p1 - p0 < kk:
            continue
        nl = 0
        for t in range(nk):
            q = K.find(l_key, p0, p1, keys[t])
            if q >= 0:
                pq[kk * nk + nl] = q
                pw[kk * nk + nl] = l_ub[q] * kw[t]
                nl += 1
        if nl < kk:
            continue  # fewer than K of the event's lists: no match in partition K
        pn[kk] = nl
        cand_k[nc] = kk
        cand_b[nc] = _top_sum(pw[kk * nk : kk * nk + nl], nl, kk)
        nc += 1
    # K = 0: the Z list (the empty subscriptions match every event, score 0)
    if n_part > 0 and pk_ptr[1] > pk_ptr[0]:
        cand_k[nc] = 0
        cand_b[nc] = 0.0
        nc += 1
    if by_bound and prune:
        # descending bound, ties by larger K (insertion sort: a handful of partitions)
        for a in range(1, nc):
            xk = cand_k[a]
            xb = cand_b[a]
            b = a
            while b > 0 and (cand_b[b - 1] < xb or (cand_b[b - 1] == xb and cand_k[b - 1] < xk)):
                cand_k[b] = cand_k[b - 1]
                cand_b[b] = cand_b[b - 1]
                b -= 1
            cand_k[b] = xk
            cand_b[b] = xb
    for c in range(nc):
        kk = cand_k[c]
        bound = cand_b[c]
        if prune and K.can_prune(R, k, bound):
            if by_bound:
                break  # no partition left can beat the k-th score
            continue  # partition pruning
        if kk == 0:
            q = pk_ptr[0]
            for t in range(l_start[q], l_end[q]):
                i = en_id[t]
                if alive[i]:
                    K.offer(R, k, 0.0, i)
                    if prune and K.can_prune(R, k, 0.0):
                        break
            continue
        nl = pn[kk]
        for L in range(nl):
            q = pq[kk * nk + L]
            cur[L] = l_start[q]
            end[L] = l_end[q]
            ub[L] = pw[kk * nk + L]
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


# ---------------------------------------------------------------------- build
#
# The lists are built in two passes over the live subscriptions in id order, each
# predicate's entries produced into a small scratch buffer (``_pred_keys``): the first
# finds every list (K, key) through an open-addressing hash table and counts its
# entries, the second writes each entry at its list's cursor.  Ids arrive ascending, so
# every list comes out sorted by id with no sort of the entries; the only per-entry
# memory is the result (``sid``, ``neg``).  ``_build_numpy`` (the vectorised
# materialise-and-lexsort build it replaced) is kept as the reference the tests compare
# with, array for array.

#: the counting pass's table, rows, bounds and outputs: none (it makes its own)
_NOTHING = (np.empty(0, np.int64), np.empty((0, 4), np.int64), np.empty(0),
            np.empty(0, np.int64), np.empty(0, np.bool_))  # fmt: skip

_H1 = np.uint64(0x9E3779B97F4A7C15)
_H2 = np.uint64(0xD6E8FEB86659FD93)
_S32 = np.uint64(32)


@numba.njit(cache=True, inline="always")
def _slot(kk, key, mask):
    x = np.uint64(key) * _H1 + np.uint64(kk)
    x ^= x >> _S32
    x *= _H2
    x ^= x >> _S32
    return np.int64(x & np.uint64(mask))


@numba.njit(cache=True, inline="always")
def _find(tab, rows, kk, key):
    """(slot, list) of the list (kk, key) in the hash table; list -1 (free slot) if new."""
    m = tab.size - 1
    h = _slot(kk, key, m)
    while True:
        li = tab[h]
        if li < 0 or (rows[li, 0] == kk and rows[li, 1] == key):
            return h, li
        h = (h + 1) & m


@numba.njit(cache=True, inline="always")
def _cell(x, dlo, dhi):
    """The key code of value x: itself if an integer of the domain, else FRAC."""
    if x == np.floor(x) and dlo <= x <= dhi:
        return np.int64(x)
    return FRAC


@numba.njit(cache=True)
def _pred_keys(i, j, s_start, s_end, p_attr, p_op, p_lo, p_hi, p_w, p_vptr, values, dlo, dhi,
               max_cells, okey, oneg, ow):  # fmt: skip
    """The posting entries of predicate ``s_start[i] + j`` of subscription i (key,
    not-in flag, weight) into ``okey, oneg, ow``; their number.  An empty subscription
    (j = 0) gives its one Z list entry."""
    if s_end[i] == s_start[i]:
        okey[0] = -1
        oneg[0] = False
        ow[0] = 0.0
        return 1
    j += s_start[i]
    base = p_attr[j] * SHIFT + OFFSET
    op = p_op[j]
    w = p_w[j]
    n = 0
    if op == EQ or op == IN:  # noqa: SIM109 (numba)
        for v in range(p_vptr[j], p_vptr[j + 1]):  # each value
            okey[n] = base + _cell(values[v], dlo, dhi)
            oneg[n] = False
            ow[n] = w
            n += 1
    elif op == NE or op == NOTIN:  # noqa: SIM109 (numba)
        okey[0] = base + ANY  # ANY, and "not in" on each excluded integer of the domain
        oneg[0] = False
        ow[0] = w
        n = 1
        for v in range(p_vptr[j], p_vptr[j + 1]):
            code = _cell(values[v], dlo, dhi)
            if code != FRAC:
                okey[n] = base + code
                oneg[n] = True
                ow[n] = 0.0
                n += 1
    else:  # an interval: the domain's integers it covers (+ FRAC), or ANY when too many
        lo = p_lo[j]
        hi = p_hi[j]
        a = max(np.ceil(min(max(lo, dlo - 1.0), dhi + 1.0)), dlo)
        b = min(np.floor(min(max(hi, dlo - 1.0), dhi + 1.0)), dhi)
        cnt = np.int64(max(b - a + 1.0, 0.0))
        if cnt > max_cells:
            okey[0] = base + ANY
            oneg[0] = False
            ow[0] = w
            return 1
        a0 = base + np.int64(a)
        for r in range(cnt):
            okey[n] = a0 + r
            oneg[n] = False
            ow[n] = w
            n += 1
        if lo < hi or cnt == 0:
            okey[n] = base + FRAC
            oneg[n] = False
            ow[n] = w
            n += 1
    return n


@numba.njit(cache=True)
def _grow(a, cap):
    b = np.empty(cap, a.dtype)
    b[: a.size] = a
    return b


@numba.njit(cache=True)
def _grow_rows(a, cap):
    b = np.empty((cap, a.shape[1]), a.dtype)
    b[: a.shape[0]] = a
    return b


@numba.njit(cache=True)
def _lists_pass(ids, s_start, s_end, p_attr, p_op, p_lo, p_hi, p_w, p_vptr, values, dlo, dhi,
                max_cells, room, fill, tab, rows, l_ub, sid, neg):  # fmt: skip
    """One pass over the posting entries of the subscriptions ``ids`` (ascending).  A
    list's state is one row ``(K, key, last id entered, cursor)`` of ``rows``, found
    through the hash table ``tab`` (slot -> list, -1 free): one cache line per entry
    besides the table's.

    * Counting (not ``fill``; ``tab``, ``rows``, ``l_ub`` ignored): finds every list
      (K, key), its number of entries (cursor from 0) and its bound ``l_ub`` (maximum
      weight of its "in" entries); returns the table, the rows and the bounds.
    * Filling (the first pass's table, the cursors at the lists' starts in sorted order,
      ``rows[:, 2]`` reset to -1): writes every entry at its list's cursor into ``sid``
      and ``neg``; ids come ascending, so every list ends sorted by id.

    Duplicates are dropped (a value given twice, several values on FRAC): one id never
    has both an "in" and a "not in" entry in a list (a subscription has one predicate
    per attribute, and a != / not in predicate's "in" entry is on ANY, its "not in"
    entries on values), so a second entry of the list for the same id is a duplicate."""
    okey = np.empty(room, np.int64)
    oneg = np.empty(room, np.bool_)
    ow = np.empty(room)
    nl = rows.shape[0]
    if not fill:
        tab = np.full(1 << 12, -1, np.int64)
        rows = np.empty((1 << 11, 4), np.int64)
        l_ub = np.empty(1 << 11)
        nl = 0
    for t in range(ids.size):
        i = ids[t]
        kk = s_end[i] - s_start[i]
        for j in range(max(kk, 1)):
            n = _pred_keys(i, j, s_start, s_end, p_attr, p_op, p_lo, p_hi, p_w, p_vptr, values,
                           dlo, dhi, max_cells, okey, oneg, ow)  # fmt: skip
            for u in range(n):
                h, li = _find(tab, rows, kk, okey[u])
                if li < 0:  # a new list (counting only)
                    if nl == l_ub.size:
                        rows = _grow_rows(rows, 2 * nl)
                        l_ub = _grow(l_ub, 2 * nl)
                    li = nl
                    nl += 1
                    tab[h] = li
                    rows[li, 0] = kk
                    rows[li, 1] = okey[u]
                    rows[li, 2] = -1
                    rows[li, 3] = 0
                    l_ub[li] = -np.inf
                    if 2 * nl > tab.size:  # keep the load at most 1/2
                        tab = np.full(2 * tab.size, -1, np.int64)
                        for q in range(nl):
                            h, _ = _find(tab, rows, rows[q, 0], rows[q, 1])
                            tab[h] = q
                if rows[li, 2] == i:
                    continue  # a duplicate entry
                rows[li, 2] = i
                c = rows[li, 3]
                rows[li, 3] = c + 1
                if fill:
                    sid[c] = i
                    neg[c] = oneg[u]
                else:
                    x = 0.0 if oneg[u] else ow[u]
                    if x > l_ub[li]:
                        l_ub[li] = x
    return tab, rows[:nl].copy(), l_ub[:nl].copy()


def _build_numpy(ix: KIndex) -> tuple:
    """Reference: the first build (every entry materialised as five columns, one lexsort,
    gathers); ``_built`` of the same index.  Kept for the tests only: at 1M benchmark
    subscriptions it takes over 3 GB."""
    kk, key, sid, neg, w = _entries_numpy(ix)
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
    return (
        pk_ptr, l_key, l_start.astype(np.int64), l_end, l_ub, sid.astype(np.int64),
        neg.astype(np.bool_), float(ix.domain[0]), float(ix.domain[1]),
    )  # fmt: skip


def _entries_numpy(ix: KIndex) -> tuple[np.ndarray, ...]:
    """(K, key, id, neg, weight) of every posting entry of the live subscriptions."""
    st = ix._store
    dlo, dhi = ix.domain
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
    wide = cnt > ix.max_cells
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


# ------------------------------------------------------------------ the index


class KIndex(BooleanIndex):
    """The k-index of Whang et al. (VLDB'09): size partitions, posting lists sorted by
    id, the skipping ("conjunction") algorithm, top-k by per-list weight bounds.
    ``domain`` = the integers ``lo..hi`` enumerated for ranges (the workload's
    cardinality); intervals covering more than ``max_cells`` of them are indexed on
    the attribute's ANY key instead.  ``partition_order``: top-k visits the partitions
    by descending bound ("bound", default) or by descending size ("size").  Point
    events only."""

    name: ClassVar[str] = "kindex"
    point_events_only: ClassVar[bool] = True

    def __init__(
        self,
        subscriptions=None,
        *,
        domain: tuple[int, int] = (0, 2**32 - 1),
        max_cells: int = 64,
        partition_order: str = "bound",
    ):
        try:
            lo, hi = (int(x) for x in domain)
        except (TypeError, ValueError):
            raise InputError(f"domain must be two integers (lo, hi), got {domain!r}") from None
        if not (-(2**34) < lo <= hi < 2**34):
            raise InputError(f"domain must have -2**34 < lo <= hi < 2**34, got {domain!r}")
        if isinstance(max_cells, bool) or int(max_cells) != max_cells or max_cells < 1:
            raise InputError(f"max_cells must be a positive integer, got {max_cells!r}")
        if partition_order not in ("bound", "size"):
            raise InputError(f"partition_order must be 'bound' or 'size', got {partition_order!r}")
        self.domain = (lo, hi)
        self.partition_order = partition_order
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
    def _build(self) -> None:
        """The posting lists of the live subscriptions, in two numba passes (count, then
        fill) without materialising the entries (see ``_lists_pass``)."""
        st = self._store
        S = st.arrays()
        ids = np.flatnonzero(S[2])
        dlo, dhi = float(self.domain[0]), float(self.domain[1])
        vmax = int(np.diff(S[8]).max()) if st.m else 0
        room = max(self.max_cells, vmax) + 1  # entries one predicate can give
        cols = (S[0], S[1], *S[3:])  # s_start, s_end, p_attr, p_op, p_lo, p_hi, p_w, ...
        args = (ids, *cols, dlo, dhi, self.max_cells, room)
        tab, rows, l_ub = _lists_pass(*args, False, *_NOTHING)
        order = np.lexsort((rows[:, 1], rows[:, 0]))  # lists by (K, key)
        l_k, l_key, cnt, l_ub = rows[order, 0], rows[order, 1], rows[order, 3], l_ub[order]
        l_end = np.cumsum(cnt)
        l_start = l_end - cnt
        rows[order, 3] = l_start  # each list's cursor (rows keep the first pass's numbering)
        rows[:, 2] = -1
        total = int(l_end[-1]) if len(l_end) else 0
        sid, neg = np.empty(total, np.int64), np.empty(total, np.bool_)
        _lists_pass(*args, True, tab, rows, l_ub, sid, neg)
        del tab, rows
        n_part = int(l_k[-1]) + 1 if len(l_k) else 0
        pk_ptr = np.searchsorted(l_k, np.arange(n_part + 1)).astype(np.int64)
        self._built = (pk_ptr, l_key, l_start, l_end, l_ub, sid, neg, dlo, dhi)
        self._dirty = False
        self._dead_since = 0
        self._live_at_build = len(self)

    def _kernel(self) -> tuple:
        if self._dirty or self._built is None:
            self._build()
        return kindex_kernel, (*self._built, self.partition_order == "bound", self._store.arrays())

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
