"""numba helpers of BE*-tree construction: the exhaustive split in O(n log n) and the
gathers of the bulk (BE*-B) path.

``exhaustive(lo, hi, alpha)`` gives exactly the split of the plain definition
(``tests/.../test_betree_build.py`` holds the O(n^2) reference): for every cut I in
``[alpha, n - alpha]`` of Omega_up (the I smallest upper bounds go left) and of
Omega_low (mirrored), the rest is "far" (right) when it starts above the left bound's
end, else overlapping; minimum overlap length, then minimum coverage, then the first
(Omega_up before Omega_low, smaller I).  The cuts are swept from the largest I down,
inserting one interval at a time into Fenwick trees over the ranks of the lower bounds,
so each cut's far count, far bounds and overlap bounds cost O(log n).
"""

from __future__ import annotations

import numba
import numpy as np

INF = np.inf


@numba.njit(cache=True, inline="always")
def _length(lo, hi):
    return hi - lo if lo <= hi else 0.0


@numba.njit(cache=True)
def union_length3(a0, b0, a1, b1, a2, b2):
    """Measure of the union of three closed intervals (empty ones skipped), summed as
    ``betree._union_length`` does (sorted by (lo, hi), merged left to right)."""
    A = np.empty(3)
    B = np.empty(3)
    m = 0
    for a, b in ((a0, b0), (a1, b1), (a2, b2)):
        if a <= b:
            t = m
            while t > 0 and (A[t - 1] > a or (A[t - 1] == a and B[t - 1] > b)):
                A[t] = A[t - 1]
                B[t] = B[t - 1]
                t -= 1
            A[t] = a
            B[t] = b
            m += 1
    total = 0.0
    if m == 0:
        return total
    ca = A[0]
    cb = B[0]
    for t in range(1, m):
        if A[t] > cb:
            total += cb - ca
            ca = A[t]
            cb = B[t]
        else:
            cb = max(cb, B[t])
    total += cb - ca
    return total


@numba.njit(cache=True)
def _lexorder(a, b):
    """np.lexsort((a, b)): by b, then a, then position."""
    o1 = np.argsort(a, kind="mergesort")
    o2 = np.argsort(b[o1], kind="mergesort")
    return o1[o2]


@numba.njit(cache=True)
def _pass(a, b, alpha, best, mirror):
    """One direction of the exhaustive split; updates best = [overlap, coverage,
    mirror, cut] when a cut beats it (ties: the earlier (mirror, cut))."""
    n = a.size
    order = _lexorder(a, b)
    a_s = a[order]
    b_s = b[order]
    pref = np.empty(n)
    m = INF
    for i in range(n):
        m = min(m, a_s[i])
        pref[i] = m
    ra = np.argsort(a_s, kind="mergesort")
    a_sorted = a_s[ra]
    rank = np.empty(n, np.int64)
    for r in range(n):
        rank[ra[r]] = r
    cnt = np.zeros(n + 1, np.int64)  # Fenwick: inserted count by rank
    pmax = np.full(n + 1, -1, np.int64)  # Fenwick prefix max of index, by rank
    smax = np.full(n + 1, -1, np.int64)  # Fenwick prefix max of index, by reversed rank
    LOG = 1
    while n >= (1 << LOG):
        LOG += 1
    inserted = 0
    sufmin = INF
    nxt = n  # elements nxt..n-1 are inserted
    for cut in range(n - alpha, alpha - 1, -1):
        while nxt > cut:
            nxt -= 1
            r = rank[nxt] + 1
            x = r
            while x <= n:
                cnt[x] += 1
                if pmax[x] < nxt:
                    pmax[x] = nxt
                x += x & -x
            x = n - r + 1
            while x <= n:
                if smax[x] < nxt:
                    smax[x] = nxt
                x += x & -x
            inserted += 1
            sufmin = min(sufmin, a_s[nxt])
        T = b_s[cut - 1]
        pos = np.searchsorted(a_sorted, T, side="right")  # ranks < pos: a <= T
        c0 = 0
        x = pos
        while x > 0:
            c0 += cnt[x]
            x -= x & -x
        nf = inserted - c0
        if nf < alpha:
            continue
        # far: smallest inserted rank >= pos (the (c0 + 1)-th inserted rank)
        want = c0 + 1
        p = 0
        for lg in range(LOG, -1, -1):
            q = p + (1 << lg)
            if q <= n and cnt[q] < want:
                p = q
                want -= cnt[q]
        rlo = a_sorted[p]
        mi = -1
        x = n - pos  # reversed ranks 1..n-pos are the ranks >= pos
        while x > 0:
            mi = max(mi, smax[x])
            x -= x & -x
        rhi = b_s[mi]
        if sufmin <= T:
            olo = sufmin
            mi = -1
            x = pos
            while x > 0:
                mi = max(mi, pmax[x])
                x -= x & -x
            ohi = b_s[mi]
            overlap = _length(olo, ohi)
        else:
            olo = INF
            ohi = -INF
            overlap = 0.0
        cov = union_length3(pref[cut - 1], T, olo, ohi, rlo, rhi)
        better = False
        if best[2] < 0 or overlap < best[0] or (overlap == best[0] and cov < best[1]):
            better = True
        elif overlap == best[0] and cov == best[1]:
            better = mirror < best[2] or (mirror == best[2] and cut < best[3])
        if better:
            best[0] = overlap
            best[1] = cov
            best[2] = mirror
            best[3] = cut


@numba.njit(cache=True)
def exhaustive(lo, hi, alpha):
    """Side of every interval (0 left, 1 overlap, 2 right) of the best exhaustive split,
    and whether one exists."""
    n = lo.size
    best = np.array([INF, INF, -1.0, -1.0])
    _pass(lo, hi, alpha, best, 0)
    _pass(-hi, -lo, alpha, best, 1)
    side = np.ones(n, np.int64)
    if best[2] < 0:
        return side, False
    mirror = best[2] == 1
    cut = int(best[3])
    a = -hi if mirror else lo
    b = -lo if mirror else hi
    order = _lexorder(a, b)
    T = b[order[cut - 1]]
    for t in range(n):
        i = order[t]
        if t < cut:
            side[i] = 2 if mirror else 0
        elif a[i] > T:
            side[i] = 0 if mirror else 2
    return side, True


# ----------------------------------------------------------- bulk gathers


def expand(starts: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For ranges ``starts[r] : starts[r] + counts[r]``: (range of each item, item)."""
    rows = np.repeat(np.arange(len(counts)), counts)
    first = np.repeat(np.cumsum(counts) - counts, counts)
    return rows, np.repeat(starts, counts) + (np.arange(len(rows)) - first)


@numba.njit(cache=True)
def gather(s_start, s_end, p_attr, col, ids, attr):
    """``col`` of each subscription's predicate on ``attr`` (it must have one)."""
    out = np.empty(ids.size)
    for t in range(ids.size):
        i = ids[t]
        a = s_start[i]
        j = a + np.searchsorted(p_attr[a : s_end[i]], attr)
        out[t] = col[j]
    return out


@numba.njit(cache=True)
def union_box(s_start, s_end, p_attr, p_lo, p_hi, ids, dims, box):
    """Fold the boxes of subscriptions ``ids`` over ``dims`` into ``box`` (k x 2)."""
    for t in range(ids.size):
        i = ids[t]
        a = s_start[i]
        e = s_end[i]
        for d in range(dims.size):
            j = a + np.searchsorted(p_attr[a:e], dims[d])
            if p_lo[j] < box[d, 0]:
                box[d, 0] = p_lo[j]
            if p_hi[j] > box[d, 1]:
                box[d, 1] = p_hi[j]


@numba.njit(cache=True)
def summary(s_start, s_end, p_attr, p_w, ids):
    """Weight summary of subscriptions ``ids``: sorted attributes, max weight each."""
    m = 0
    for t in range(ids.size):
        m += s_end[ids[t]] - s_start[ids[t]]
    at = np.empty(m, np.int64)
    w = np.empty(m)
    m = 0
    for t in range(ids.size):
        for j in range(s_start[ids[t]], s_end[ids[t]]):
            at[m] = p_attr[j]
            w[m] = p_w[j]
            m += 1
    o = np.argsort(at, kind="mergesort")
    ka = np.empty(m, np.int64)
    kw = np.empty(m)
    u = -1
    for t in range(m):
        x = at[o[t]]
        if u < 0 or ka[u] != x:
            u += 1
            ka[u] = x
            kw[u] = w[o[t]]
        elif w[o[t]] > kw[u]:
            kw[u] = w[o[t]]
    return ka[: u + 1], kw[: u + 1]


@numba.njit(cache=True)
def partition_plan(s_start, s_end, p_attr, ids, used, cap):
    """Algorithm 4 on the expressions ``ids`` of one l-node: while more than ``cap``
    remain, the unused attribute occurring in most of them (ties: the smaller) takes
    every remaining expression having it.  Returns the chosen attributes, the pointer
    of each one's members into ``members`` (in ``ids`` order), the expressions left in
    the l-node, and whether it ran out of attributes (capacity doubling)."""
    n = ids.size
    ptr = np.zeros(n + 1, np.int64)
    for t in range(n):
        ptr[t + 1] = ptr[t] + s_end[ids[t]] - s_start[ids[t]]
    m = ptr[n]
    pa = np.empty(m, np.int64)
    own = np.empty(m, np.int64)
    for t in range(n):
        a = s_start[ids[t]]
        for q in range(ptr[t], ptr[t + 1]):
            pa[q] = p_attr[a + q - ptr[t]]
            own[q] = t
    o = np.argsort(pa, kind="mergesort")
    inv = np.empty(m, np.int64)
    uniq = np.empty(m, np.int64)
    gstart = np.empty(m + 1, np.int64)
    u = -1
    for t in range(m):
        x = pa[o[t]]
        if u < 0 or uniq[u] != x:
            u += 1
            uniq[u] = x
            gstart[u] = t
        inv[o[t]] = u
    nu = u + 1
    gstart[nu] = m
    counts = np.empty(nu, np.int64)
    for g in range(nu):
        counts[g] = gstart[g + 1] - gstart[g]
        if used.size and used[min(np.searchsorted(used, uniq[g]), used.size - 1)] == uniq[g]:
            counts[g] = -1
    remaining = np.ones(n, np.bool_)
    left = n
    out_attr = np.empty(nu, np.int64)
    out_ptr = np.zeros(nu + 1, np.int64)
    members = np.empty(n, np.int64)
    g = 0
    w = 0
    capped = False
    while left > cap:
        best = 0
        for x in range(1, nu):
            if counts[x] > counts[best]:
                best = x
        if nu == 0 or counts[best] <= 0:
            capped = True
            break
        out_attr[g] = uniq[best]
        for t in range(gstart[best], gstart[best + 1]):
            x = own[o[t]]
            if remaining[x]:
                remaining[x] = False
                left -= 1
                members[w] = ids[x]
                w += 1
                for q in range(ptr[x], ptr[x + 1]):
                    counts[inv[q]] -= 1
        counts[best] = -1
        g += 1
        out_ptr[g] = w
    rest = np.empty(left, np.int64)
    r = 0
    for t in range(n):
        if remaining[t]:
            rest[r] = ids[t]
            r += 1
    return out_attr[:g], out_ptr[: g + 1], members[:w], rest, capped
