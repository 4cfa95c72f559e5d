"""numba kernels shared by the Boolean-expression indexes.

``S`` (the subscription store) is the tuple ``(s_start, s_end, alive, p_attr, p_op,
p_lo, p_hi, p_w, p_vptr, values)``; ``E`` (one event) is ``(slot, e_attr, e_op, e_lo,
e_hi, e_w, e_vptr, e_values)`` where ``slot[a]`` is the event's predicate on attribute
``a`` or -1.  Results are collected in ``R = (rs, rid, cnt)``: with ``k >= 0`` a k-min-heap
(root = worst: lowest score, then largest id), with ``k < 0`` a plain list of all matches.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from cnsim.subscriptions.ranked.boolean.expressions import IN, NE, NOTIN


@numba.njit(cache=True)
def all_finite(a, b):
    """Are all values of the float arrays ``a`` and ``b`` finite?  (In numba: ~1 us per
    call against ~15 us for two ``np.isfinite(...).all()`` on a small event.)"""
    for x in a:
        if not math.isfinite(x):
            return False
    for x in b:  # noqa: SIM110 (numba loop)
        if not math.isfinite(x):
            return False
    return True


@numba.njit(cache=True, inline="always")
def _kind(op):
    if op == IN:
        return 1
    if op == NE or op == NOTIN:  # noqa: SIM109 (numba)
        return 2
    return 0


@numba.njit(cache=True)
def find(vals, a, b, x):
    """Position of x in the sorted ``vals[a:b]``, or -1."""
    i = a + np.searchsorted(vals[a:b], x)
    return i if i < b and vals[i] == x else -1


@numba.njit(cache=True)
def _has(vals, a, b, x):
    """Is x in the sorted vals[a:b]?"""
    return find(vals, a, b, x) >= 0


@numba.njit(cache=True)
def pred_meet(o1, lo1, hi1, va1, vb1, vals1, o2, lo2, hi2, va2, vb2, vals2):
    """Exact: does some float64 satisfy both predicates?  (Table I intervals first.)"""
    if lo1 > hi2 or lo2 > hi1:
        return False
    k1 = _kind(o1)
    k2 = _kind(o2)
    if k1 == 0 and k2 == 0:
        return True
    if k1 == 2 and k2 == 2:
        return True
    if k1 > k2:
        o1, lo1, hi1, va1, vb1, vals1, o2, lo2, hi2, va2, vb2, vals2 = (
            o2, lo2, hi2, va2, vb2, vals2, o1, lo1, hi1, va1, vb1, vals1,
        )  # fmt: skip
        k1, k2 = k2, k1
    if k1 == 0 and k2 == 1:
        for t in range(va2, vb2):  # noqa: SIM110 (numba loop)
            if lo1 <= vals2[t] <= hi1:
                return True
        return False
    if k1 == 1 and k2 == 1:
        a, b = va1, va2
        while a < vb1 and b < vb2:
            if vals1[a] == vals2[b]:
                return True
            if vals1[a] < vals2[b]:
                a += 1
            else:
                b += 1
        return False
    if k1 == 1:  # a set against a complement
        for t in range(va1, vb1):  # noqa: SIM110 (numba loop)
            if not _has(vals2, va2, vb2, vals1[t]):
                return True
        return False
    # an interval against a complement: walk the floats of [lo1, hi1]
    x = lo1
    for _ in range(vb2 - va2 + 1):
        if x > hi1:
            return False
        if not _has(vals2, va2, vb2, x):
            return True
        x = np.nextafter(x, np.inf)
    return False


@numba.njit(cache=True)
def match_score(i, S, E):
    """Score of subscription i for the event, or -1.0 when it does not match."""
    s_start, s_end, alive, p_attr, p_op, p_lo, p_hi, p_w, p_vptr, values = S
    slot, e_attr, e_op, e_lo, e_hi, e_w, e_vptr, e_values = E
    sc = 0.0
    for j in range(s_start[i], s_end[i]):
        a = p_attr[j]
        if a >= slot.size:
            return -1.0
        t = slot[a]
        if t < 0:
            return -1.0
        if not pred_meet(
            p_op[j], p_lo[j], p_hi[j], p_vptr[j], p_vptr[j + 1], values,
            e_op[t], e_lo[t], e_hi[t], e_vptr[t], e_vptr[t + 1], e_values,
        ):  # fmt: skip
            return -1.0
        sc += p_w[j] * e_w[t]
    return sc


# ------------------------------------------------------------------ collectors


@numba.njit(cache=True, inline="always")
def _worse(s1, i1, s2, i2):
    return s1 < s2 or (s1 == s2 and i1 > i2)


@numba.njit(cache=True, inline="always")
def shift(a, b, src, dst):
    """Move entry ``src`` of the parallel arrays ``a``, ``b`` to ``dst`` (one step of
    a heap's sift); returns ``src``, where the hole is now."""
    a[dst] = a[src]
    b[dst] = b[src]
    return src


@numba.njit(cache=True)
def offer(R, k, s, i):
    """Add a match (score s, id i) to the collector."""
    rs, rid, cnt = R
    n = cnt[0]
    if k < 0:
        c = n
        cnt[0] = n + 1
    elif n < k:
        c = n
        while c > 0:  # sift up: parents are worse
            p = (c - 1) >> 1
            if not _worse(s, i, rs[p], rid[p]):
                break
            c = shift(rs, rid, p, c)
        cnt[0] = n + 1
    elif k == 0 or not _worse(rs[0], rid[0], s, i):
        return
    else:
        c = 0
        while True:  # sift down from the root
            a = 2 * c + 1
            if a >= n:
                break
            b = a + 1
            if b < n and _worse(rs[b], rid[b], rs[a], rid[a]):
                a = b
            if not _worse(rs[a], rid[a], s, i):
                break
            c = shift(rs, rid, a, c)
    rs[c] = s
    rid[c] = i


@numba.njit(cache=True, inline="always")
def can_prune(R, k, ub):
    """True when nothing scoring at most ub can enter the top-k (ties by id: only a
    bound strictly below the k-th score prunes)."""
    rs, rid, cnt = R
    return k >= 0 and cnt[0] >= k and (k == 0 or ub < rs[0])


@numba.njit(cache=True)
def finish(R, k, out):
    """Write the collected ids to out (best first for top-k); returns the count."""
    rs, rid, cnt = R
    n = cnt[0]
    if k < 0:
        for t in range(n):
            out[t] = rid[t]
        return n
    key = np.empty(n)
    for t in range(n):
        key[t] = -rs[t]
    o = np.argsort(key, kind="mergesort")
    # ties by smaller id: sort ids inside runs of equal score
    t = 0
    while t < n:
        u = t + 1
        while u < n and rs[o[u]] == rs[o[t]]:
            u += 1
        ids = np.sort(rid[o[t:u]])
        for v in range(u - t):
            out[t + v] = ids[v]
        t = u
    return n


@numba.njit(cache=True)
def ub_sparse(attrs, ws, a, b, E):
    """Upper bound sum over a summary (sorted attrs[a:b], max weights ws[a:b]) for the
    event: terms added in attribute order, so the bound is >= every score below it in
    floating point too."""
    slot = E[0]
    e_w = E[5]
    ub = 0.0
    for t in range(a, b):
        x = attrs[t]
        if x < slot.size:
            j = slot[x]
            if j >= 0:
                ub += ws[t] * e_w[j]
    return ub


# -------------------------------------------------------------------- scan


@numba.njit(cache=True)
def scan_kernel(T, E, k, R):
    S, n = T
    alive = S[2]
    for i in range(n):
        if alive[i]:
            s = match_score(i, S, E)
            if s >= 0.0:
                offer(R, k, s, i)


# -------------------------------------------------------------------- driver


@numba.njit
def run_batch(kernel, T, ev_ptr, e_attr, e_op, e_lo, e_hi, e_w, e_vptr, e_values, slot, k, cap,
              out):  # fmt: skip
    """Run ``kernel`` for every event of a CSR batch; ``out[i, :]`` gets the top-k ids
    (-1 padded), or with ``k < 0`` ``out[i, 0]`` the number of matches."""
    rs = np.empty(cap)
    rid = np.empty(cap, np.int64)
    cnt = np.zeros(1, np.int64)
    R = (rs, rid, cnt)
    res = np.empty(cap, np.int64)
    for q in range(ev_ptr.size - 1):
        a, b = ev_ptr[q], ev_ptr[q + 1]
        for j in range(a, b):
            if e_attr[j] < slot.size:
                slot[e_attr[j]] = j - a
        E = (slot, e_attr[a:b], e_op[a:b], e_lo[a:b], e_hi[a:b], e_w[a:b], e_vptr[a : b + 1],
             e_values)  # fmt: skip
        cnt[0] = 0
        kernel(T, E, k, R)
        if k < 0:
            out[q, 0] = cnt[0]
        else:
            n = finish(R, k, res)
            for t in range(n):
                out[q, t] = res[t]
        for j in range(a, b):
            if e_attr[j] < slot.size:
                slot[e_attr[j]] = -1
