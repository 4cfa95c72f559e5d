"""numba helpers of BE*-tree construction: the exhaustive split in O(n) after one
sort, the gathers of the bulk (BE*-B) path, and the whole BE*-B build as a node-table
builder (:func:`build_main` over the work stack :func:`_grow`, :func:`boxes`; seed 002
§IV-V, Algorithms 4 and 5, applied top-down to a batch), whose deferred subtrees
:func:`grow_subtree` builds apart for the threads of ``_bulk_threads``.

``exhaustive(lo, hi, alpha)`` gives exactly the split of the plain definition
(``tests/.../test_betree_build.py`` holds the O(n^2) reference): for every cut I in
``[alpha, n - alpha]`` of Omega_up (the I smallest upper bounds go left) and of
Omega_low (mirrored), the rest is "far" (right) when it starts above the left bound's
end, else overlapping; minimum overlap length, then minimum coverage, then the first
(Omega_up before Omega_low, smaller I).  The cuts are swept from the largest I down; as
the left bound's end only decreases and the right side only grows, each cut's far
count, far bounds and overlap bounds are kept in O(1) amortized (:func:`_pass`).  Every
order the split needs is a counting sort of the bounds' dense ranks
(:func:`dense_ranks`, a radix sort of the floats' bits; :func:`stable_by`;
:func:`split_orders`): one sort per bound, and in BE*-B one per p-node, whose
members' intervals are gathered once and whose orders, sorted at its first split, are
carried down its whole c-directory (each split restricts them to its two sides in one
pass, :func:`child_orders`, instead of the children's sorts).  The partition plan
reads each group's intervals and weight summary in the same pass that places its members
(:func:`partition_gathered`).  After the root's partition (Algorithm 4 on the whole
batch) the build reads a copy of the predicates renumbered group by group and by lower
bound (:func:`root_localized`), so that the deeper partitions' and the boxes' walks
over a c-node's expressions stay within a small part of memory; the tree is the same.
Each l-node's box is taken when the build sets the l-node, its expressions still in
cache (the ``leaf_box`` tables); :func:`boxes` folds the buckets' boxes bottom-up."""

from __future__ import annotations

import numba
import numpy as np

INF = np.inf


@numba.njit(cache=True, inline="always")
def _length(lo, hi):
    return hi - lo if lo <= hi else 0.0


@numba.njit(cache=True, inline="always")
def _lower(vals, a, b, x):
    """``a + np.searchsorted(vals[a:b], x)``: the first position in the sorted
    ``vals[a:b]`` whose value is >= x (no view of ``vals`` made per call)."""
    while a < b:
        m = (a + b) >> 1
        if vals[m] < x:
            a = m + 1
        else:
            b = m
    return a


@numba.njit(cache=True, inline="always")
def _before(a, b, c, d):
    """Whether interval (a, b) sorts before (c, d): by lo, then hi."""
    return a < c or (a == c and b < d)


@numba.njit(cache=True, inline="always")
def union_length3(a0, b0, a1, b1, a2, b2):
    """Measure of the union of three closed intervals (empty ones skipped), summed as
    ``betree._union_length`` does (sorted by (lo, hi), merged left to right).  Scalars
    only: the exhaustive split calls it at every cut."""
    n = 0
    x0 = y0 = x1 = y1 = x2 = y2 = 0.0
    for a, b in ((a0, b0), (a1, b1), (a2, b2)):
        if a <= b:
            if n == 0:
                x0, y0 = a, b
            elif n == 1:
                x1, y1 = a, b
            else:
                x2, y2 = a, b
            n += 1
    if n == 0:
        return 0.0
    if n >= 2 and _before(x1, y1, x0, y0):
        x0, y0, x1, y1 = x1, y1, x0, y0
    if n == 3:
        if _before(x2, y2, x1, y1):
            x1, y1, x2, y2 = x2, y2, x1, y1
        if _before(x1, y1, x0, y0):
            x0, y0, x1, y1 = x1, y1, x0, y0
    total = 0.0
    ca, cb = x0, y0
    for t in range(1, n):
        a, b = (x1, y1) if t == 1 else (x2, y2)
        if a > cb:
            total += cb - ca
            ca, cb = a, b
        else:
            cb = max(cb, b)
    total += cb - ca
    return total


@numba.njit(cache=True)
def argsort_int(keys):
    """``np.argsort(keys, kind="mergesort")`` (stable) for integer keys: a counting sort
    when their range is at most a few times their number (attribute ids), else the
    merge sort (numba's is several times slower than numpy's)."""
    n = keys.size
    if n == 0:
        return np.empty(0, np.int64)
    lo = keys.min()
    span = keys.max() - lo + 1
    if span > max(1024, 4 * n):
        return np.argsort(keys, kind="mergesort")
    count = np.zeros(span + 1, np.int64)
    for t in range(n):
        count[keys[t] - lo + 1] += 1
    for v in range(span):
        count[v + 1] += count[v]
    out = np.empty(n, np.int64)
    for t in range(n):
        v = keys[t] - lo
        out[count[v]] = t
        count[v] += 1
    return out


@numba.njit(cache=True)
def groups(keys):
    """``keys`` grouped by value: their positions sorted by key (stable,
    :func:`argsort_int`), the distinct keys ascending, and where each one's positions
    start in that order (one more entry: ``keys.size``)."""
    m = keys.size
    o = argsort_int(keys)
    uniq = np.empty(m, np.int64)
    start = np.empty(m + 1, np.int64)
    u = 0
    for t in range(m):
        x = keys[o[t]]
        if u == 0 or uniq[u - 1] != x:
            uniq[u] = x
            start[u] = t
            u += 1
    start[u] = m
    return o, uniq[:u], start[: u + 1]


#: below this many values :func:`dense_ranks` sorts by comparison, above by radix
RADIX_MIN = 512


@numba.njit(cache=True)
def dense_ranks(x):
    """Each value's rank among the distinct values of ``x`` (equal values, equal rank)
    and the number of distinct values: one sort (:func:`radix_order` from
    :data:`RADIX_MIN` values on, else numba's quicksort), the only sort of values the
    splits need (the orders below are counting sorts of these ranks)."""
    n = x.size
    r = np.empty(n, np.int64)
    if n >= RADIX_MIN and not np.isnan(x).any():
        o, keys = radix_order(x)  # (equal keys, equal values)
        k = -1
        for t in range(n):
            if k < 0 or keys[t] != keys[t - 1]:
                k += 1
            r[o[t]] = k
        return r, k + 1
    o = np.argsort(x)  # (quicksort: ties need no order to be ranked)
    k = -1
    prev = 0.0
    for t in range(n):
        v = x[o[t]]
        if k < 0 or v != prev:
            k += 1
            prev = v
        r[o[t]] = k
    return r, k + 1


@numba.njit(cache=True)
def radix_order(x):
    """Positions of ``x`` in ascending order of value (ties in any order; -0.0 and 0.0
    tie; NaN last, as ``np.argsort``) and the values' keys in that order (equal values,
    equal keys): an LSD radix sort of the floats' bits made order-preserving (the sign
    bit flipped, all bits for negatives), one byte per pass, a pass skipped where every
    key has the same byte."""
    n = x.size
    keys = (x + 0.0).view(np.uint64)  # (a copy; -0.0 becomes 0.0)
    for t in range(n):
        b = keys[t]
        if x[t] != x[t]:  # NaN: after every number
            keys[t] = np.uint64(0xFFFFFFFFFFFFFFFF)
        elif b >> np.uint64(63):
            keys[t] = ~b
        else:
            keys[t] = b | np.uint64(0x8000000000000000)
    hist = np.zeros((8, 257), np.int64)
    for t in range(n):
        k = keys[t]
        for d in range(8):
            hist[d, ((k >> np.uint64(8 * d)) & np.uint64(255)) + 1] += 1
    o = np.arange(n)
    o2 = np.empty(n, np.int64)
    k2 = np.empty(n, np.uint64)
    for d in range(8):
        h = hist[d]
        if h.max() == n:  # one byte value for all: this pass keeps the order
            continue
        for v in range(256):
            h[v + 1] += h[v]
        sh = np.uint64(8 * d)
        for t in range(n):
            k = keys[t]
            v = (k >> sh) & np.uint64(255)
            o2[h[v]] = o[t]
            k2[h[v]] = k
            h[v] += 1
        o, o2 = o2, o
        keys, k2 = k2, keys
    return o, keys


@numba.njit(cache=True)
def stable_by(keys, m, order):
    """``order`` stably re-sorted by ``keys[order]`` (integers in ``0..m-1``): a
    counting sort."""
    count = np.zeros(m + 1, np.int64)
    for t in range(order.size):
        count[keys[order[t]] + 1] += 1
    for v in range(m):
        count[v + 1] += count[v]
    out = np.empty(order.size, np.int64)
    for t in range(order.size):
        k = keys[order[t]]
        out[count[k]] = order[t]
        count[k] += 1
    return out


@numba.njit(cache=True)
def _lexorder_ranked(ra, ma, rb, mb):
    """np.lexsort((a, b)) from the dense ranks of a and b: by b, then a, then position."""
    return stable_by(rb, mb, stable_by(ra, ma, np.arange(ra.size)))


@numba.njit(cache=True)
def _lexorder(a, b):
    """np.lexsort((a, b)): by b, then a, then position."""
    ra, ma = dense_ranks(a)
    rb, mb = dense_ranks(b)
    return _lexorder_ranked(ra, ma, rb, mb)


@numba.njit(cache=True)
def _pass(lo, hi, order, by_a, alpha, best, mirror):
    """One direction of the exhaustive split over the intervals (a, b): (lo, hi), or
    with ``mirror`` (Omega_low) (-hi, -lo), given ``order`` (Omega_up: the intervals by
    b, then a, then position; ``np.lexsort((a, b))``) and ``by_a`` (the intervals by a,
    ties in any order); updates best = [overlap, coverage, mirror, cut] when a cut
    beats it (ties: the earlier (mirror, cut)).

    With the intervals in Omega_up order (``a_s``, ``b_s``) and ``rank`` each one's
    position in the order of the lower bounds, cut I leaves ``a_s[I:]`` on the right,
    ``T = b_s[I - 1]`` is the left bound's end and ``pos`` the number of lower bounds
    <= T; an interval i >= I is far when ``rank[i] >= pos``.  As I decreases, T and
    ``pos`` never increase and the right side only grows, so the far count (kept as
    ``c0``, the right side's intervals with ``rank < pos``) and the smallest far rank
    (``fr``, whose lower bound is the far bound's start) are kept in O(1) amortized per
    step; the far bound's end is ``b_s`` at the largest position of rank >= pos and the
    overlap's end ``b_s`` at the largest of rank < pos (both on the right side whenever
    that side has such an interval: precomputed suffix and prefix maxima).  O(n)."""
    n = lo.size
    sg = -1.0 if mirror else 1.0  # (-1.0 * x is -x, bit for bit)
    a = hi if mirror else lo
    b = lo if mirror else hi
    a_s = np.empty(n)
    b_s = np.empty(n)
    for i in range(n):
        a_s[i] = sg * a[order[i]]
        b_s[i] = sg * b[order[i]]
    pref = np.empty(n)
    m = INF
    rank = np.empty(n, np.int64)  # first: each interval's position in Omega_up
    for i in range(n):
        m = min(m, a_s[i])
        pref[i] = m
        rank[order[i]] = i
    # the positions in the order of a (equal values in any order: only values and
    # counts below a bound are read from this order), and each position's rank there
    at = np.empty(n, np.int64)
    a_sorted = np.empty(n)
    for r in range(n):
        at[r] = rank[by_a[r]]
        a_sorted[r] = sg * a[by_a[r]]
    for r in range(n):
        rank[at[r]] = r
    below = np.empty(n, np.int64)  # below[r]: the largest position of rank <= r
    above = np.empty(n + 1, np.int64)  # above[r]: the largest position of rank >= r
    mx = -1
    for r in range(n):
        mx = max(mx, at[r])
        below[r] = mx
    above[n] = -1
    for r in range(n - 1, -1, -1):
        above[r] = max(above[r + 1], at[r])
    inserted = 0
    sufmin = INF
    nxt = n  # positions nxt..n-1 are on the right
    pos = n
    c0 = 0  # right side, rank < pos
    fr = n  # smallest rank >= pos on the right side
    for cut in range(n - alpha, alpha - 1, -1):
        while nxt > cut:
            nxt -= 1
            r = rank[nxt]
            if r < pos:
                c0 += 1
            elif r < fr:
                fr = r
            inserted += 1
            sufmin = min(sufmin, a_s[nxt])
        T = b_s[cut - 1]
        while pos > 0 and a_sorted[pos - 1] > T:  # pos = searchsorted(a_sorted, T, "right")
            pos -= 1
            if at[pos] >= nxt:  # on the right side: now far
                c0 -= 1
                fr = pos
        nf = inserted - c0
        if nf < alpha:
            continue
        rlo = a_sorted[fr]
        rhi = b_s[above[pos]]
        if sufmin <= T:
            olo = sufmin
            ohi = b_s[below[pos - 1]]
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
    return exhaustive_ordered(lo, hi, split_orders(lo, hi), alpha)


@numba.njit(cache=True)
def split_orders(lo, hi):
    """The four orders the exhaustive split reads, as the rows of a (4, n) array:
    the positions by lo, Omega_up (``np.lexsort((lo, hi))``), by hi descending and
    Omega_low's (``np.lexsort((-hi, -lo))``), every tie by position.  One dense ranking
    of each bound (:func:`dense_ranks`), then four counting sorts (:func:`stable_by`)."""
    n = lo.size
    rl, ml = dense_ranks(lo)
    rh, mh = dense_ranks(hi)
    out = np.empty((4, n), np.int64)
    out[0] = stable_by(rl, ml, np.arange(n))
    out[1] = stable_by(rh, mh, out[0])
    out[2] = stable_by((mh - 1) - rh, mh, np.arange(n))  # (the ranks of -hi)
    out[3] = stable_by((ml - 1) - rl, ml, out[2])
    return out


@numba.njit(cache=True)
def child_orders(orders, side):
    """The :func:`split_orders` of the left (side 0) and the right (side 2) intervals,
    each in its own positions: the parent's orders restricted to them.  A stable order
    restricted to a subset that keeps its positions' order is the subset's own, so one
    pass over the parent's orders replaces the children's sorts."""
    n = side.size
    dest = np.empty(n, np.int64)  # each interval's position in its child, times 2, plus
    nl = 0  # 1 on the right (-1: overlapping): one lookup per entry below
    nr = 0
    for t in range(n):
        if side[t] == 0:
            dest[t] = 2 * nl
            nl += 1
        elif side[t] == 2:
            dest[t] = 2 * nr + 1
            nr += 1
        else:
            dest[t] = -1
    left = np.empty((4, nl), np.int64)
    right = np.empty((4, nr), np.int64)
    for j in range(4):
        wl = 0
        wr = 0
        for t in range(n):
            v = dest[orders[j, t]]
            if v >= 0:
                if v & 1:
                    right[j, wr] = v >> 1
                    wr += 1
                else:
                    left[j, wl] = v >> 1
                    wl += 1
    return left, right


@numba.njit(cache=True)
def by_side(ids, iv, side):
    """``ids`` split by side (left 0, right 2, overlapping 1), each part in ``ids``
    order, and the left's and the right's rows of ``iv``: one count, one pass."""
    n = side.size
    size = np.zeros(3, np.int64)
    for t in range(n):
        size[side[t]] += 1
    left = np.empty(size[0], np.int64)
    right = np.empty(size[2], np.int64)
    over = np.empty(size[1], np.int64)
    ivl, ivr = np.empty((size[0], 2)), np.empty((size[2], 2))
    wl = wr = wo = 0
    for t in range(n):
        if side[t] == 0:
            left[wl] = ids[t]
            ivl[wl, 0] = iv[t, 0]
            ivl[wl, 1] = iv[t, 1]
            wl += 1
        elif side[t] == 2:
            right[wr] = ids[t]
            ivr[wr, 0] = iv[t, 0]
            ivr[wr, 1] = iv[t, 1]
            wr += 1
        else:
            over[wo] = ids[t]
            wo += 1
    return (left, right, over), (ivl, ivr)


@numba.njit(cache=True)
def exhaustive_ordered(lo, hi, orders, alpha):
    """:func:`exhaustive` given :func:`split_orders` of lo and hi (computed, or carried
    down from a parent's split by :func:`child_orders`)."""
    n = lo.size
    best = np.array([INF, INF, -1.0, -1.0])
    by_lo, up, by_hi_desc, down = orders[0], orders[1], orders[2], orders[3]
    _pass(lo, hi, up, by_lo, alpha, best, 0)
    _pass(lo, hi, down, by_hi_desc, alpha, best, 1)
    side = np.ones(n, np.int64)
    if best[2] < 0:
        return side, False
    mirror = best[2] == 1
    cut = int(best[3])
    order = down if mirror else up
    if mirror:  # (a, b) = (-hi, -lo)
        T = -lo[order[cut - 1]]
        for t in range(n):
            i = order[t]
            if t < cut:
                side[i] = 2
            elif -hi[i] > T:
                side[i] = 0
    else:
        T = hi[order[cut - 1]]
        for t in range(n):
            i = order[t]
            if t < cut:
                side[i] = 0
            elif lo[i] > T:
                side[i] = 2
    return side, True


# ----------------------------------------------------------- bulk gathers


@numba.njit(cache=True)
def root_localized(s_start, s_end, p_attr, p_lo, p_hi, p_w, ids, gptr, members, rest, iv):
    """The root partition's expressions renumbered so that those BE*-B's later steps
    visit together lie together in memory: each group (p-node) in turn, by its members'
    lower bound on its attribute (their buckets in its c-directory), then the rest;
    their predicates copied in that order (:func:`localized`).  From the root plan's
    ``gptr``, ``members``, ``rest`` and ``iv`` (:func:`partition_gathered` of ``ids``).
    Returns the copy's columns, ``members`` and ``rest`` renumbered (each list in its
    order) and the old id of each new number.  Only where the build's walks over the
    predicates land in memory changes (the deeper plans' and the boxes'; the steps'
    orders are positions in their lists, which keep their order), not the tree."""
    g = gptr.size - 1
    nm = members.size
    n = ids.size
    grp = np.empty(nm, np.int64)
    for h in range(g):
        grp[gptr[h] : gptr[h + 1]] = h
    r, m = dense_ranks(iv[:, 0].copy())
    o = stable_by(grp, g, stable_by(r, m, np.arange(nm)))
    back = np.empty(n, np.int64)
    for k in range(nm):
        back[k] = members[o[k]]
    for k in range(rest.size):
        back[nm + k] = rest[k]
    pos = np.empty(s_start.size, np.int64)
    for t in range(n):
        pos[ids[t]] = t
    order = np.empty(n, np.int64)
    for k in range(n):
        order[k] = pos[back[k]]
    ns, ne, na, nlo, nhi, nw, new = localized(s_start, s_end, p_attr, p_lo, p_hi, p_w, ids, order)
    nmem = np.empty(nm, np.int64)
    for k in range(nm):
        nmem[k] = new[pos[members[k]]]
    nrest = np.empty(rest.size, np.int64)
    for k in range(rest.size):
        nrest[k] = new[pos[rest[k]]]
    return ns, ne, na, nlo, nhi, nw, nmem, nrest, back


@numba.njit(cache=True)
def localized(s_start, s_end, p_attr, p_lo, p_hi, p_w, ids, order):
    """The expressions ``ids[order]`` copied into fresh predicate columns, renumbered
    0, 1, ... in that order (``s_start, s_end, p_attr, p_lo, p_hi, p_w`` of the copy),
    and each position of ``ids``'s new number.  (The copy reads the columns in ``ids``
    order and scatters the writes: stores do not stall as loads do.)"""
    n = ids.size
    new = np.empty(n, np.int64)
    for k in range(n):
        new[order[k]] = k
    ns = np.empty(n, np.int64)
    ne = np.empty(n, np.int64)
    for t in range(n):
        ne[new[t]] = s_end[ids[t]] - s_start[ids[t]]
    m = 0
    for k in range(n):
        ns[k] = m
        m += ne[k]
        ne[k] = m
    na = np.empty(m, p_attr.dtype)
    nlo = np.empty(m)
    nhi = np.empty(m)
    nw = np.empty(m)
    for t in range(n):
        i = ids[t]
        d = ns[new[t]] - s_start[i]
        for j in range(s_start[i], s_end[i]):
            na[j + d] = p_attr[j]
            nlo[j + d] = p_lo[j]
            nhi[j + d] = p_hi[j]
            nw[j + d] = p_w[j]
    return ns, ne, na, nlo, nhi, nw, new


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
        out[t] = col[_lower(p_attr, s_start[i], s_end[i], attr)]
    return out


@numba.njit(cache=True)
def union_box(s_start, s_end, p_attr, p_lo, p_hi, ids, dims, box):
    """Fold the boxes of subscriptions ``ids`` over ``dims`` into ``box`` (k x 2)."""
    for t in range(ids.size):
        i = ids[t]
        a = s_start[i]
        e = s_end[i]
        for d in range(dims.size):
            j = _lower(p_attr, a, e, dims[d])
            if p_lo[j] < box[d, 0]:
                box[d, 0] = p_lo[j]
            if p_hi[j] > box[d, 1]:
                box[d, 1] = p_hi[j]


@numba.njit(cache=True)
def summary(s_start, s_end, p_attr, p_w, ids):
    """Weight summary of subscriptions ``ids``: sorted attributes, max weight each (the
    first weight met, replaced by a strictly larger one)."""
    m = 0
    top = -1
    for t in range(ids.size):
        i = ids[t]
        m += s_end[i] - s_start[i]
        if s_end[i] > s_start[i]:
            top = max(top, p_attr[s_end[i] - 1])  # (sorted: the last is the largest)
    slot = np.full(top + 1, -1, np.int64)  # each attribute's entry, in order of meeting
    ka = np.empty(m, np.int64)
    kw = np.empty(m)
    u = 0
    for t in range(ids.size):
        for j in range(s_start[ids[t]], s_end[ids[t]]):
            g = slot[p_attr[j]]
            if g < 0:
                slot[p_attr[j]] = u
                ka[u] = p_attr[j]
                kw[u] = p_w[j]
                u += 1
            elif p_w[j] > kw[g]:
                kw[g] = p_w[j]
    o = np.argsort(ka[:u])  # distinct attributes: any sort gives the one order
    return ka[o], kw[o]


#: the selectivity ranking's histogram: equi-width buckets over an attribute's range
HIST_BUCKETS = 10


@numba.njit(cache=True)
def rank_attribute(s_start, s_end, p_attr, p_lo, p_hi, ids, used, n_buckets):
    """§V-B's selectivity ranking for splitting an overflowing l-node: for every
    attribute of the expressions ``ids`` not in ``used`` (sorted),
    ``rank(l_i) = gain(l_i) - loss(l_i)`` with ``gain`` the number of expressions with a
    predicate on it and ``loss`` the average size of the non-empty buckets of an
    ``n_buckets``-bucket equi-width histogram of their Table I intervals over the range
    of their finite endpoints (an interval counts in every bucket it meets; no range,
    all endpoints equal or infinite, or a range too narrow to divide: one bucket,
    loss = gain).  Returns the attribute of
    highest rank (ties: the smaller), -1 if there is none."""
    m = 0
    for t in range(ids.size):
        m += s_end[ids[t]] - s_start[ids[t]]
    pa = np.empty(m, np.int64)
    lo = np.empty(m)
    hi = np.empty(m)
    w = 0
    for t in range(ids.size):
        for j in range(s_start[ids[t]], s_end[ids[t]]):
            a = p_attr[j]
            if used.size and used[min(np.searchsorted(used, a), used.size - 1)] == a:
                continue
            pa[w] = a
            lo[w] = p_lo[j]
            hi[w] = p_hi[j]
            w += 1
    if w == 0:
        return -1
    o, uniq, start = groups(pa[:w])
    hist = np.zeros(n_buckets, np.int64)
    best = -1
    best_rank = -np.inf
    for g in range(uniq.size):
        a = uniq[g]
        t, u = start[g], start[g + 1]
        fmin = np.inf
        fmax = -np.inf
        for r in range(t, u):
            x = o[r]
            for v in (lo[x], hi[x]):
                if np.isfinite(v):
                    fmin = min(fmin, v)
                    fmax = max(fmax, v)
        gain = u - t
        loss = float(gain)
        width = (fmax - fmin) / n_buckets  # (0 when the range underflows: one bucket)
        if fmin < fmax and width > 0.0:
            hist[:] = 0
            for r in range(t, u):
                x = o[r]
                b0 = int(min(n_buckets - 1.0, (max(lo[x], fmin) - fmin) / width))
                b1 = int(min(n_buckets - 1.0, (min(hi[x], fmax) - fmin) / width))
                for b in range(b0, b1 + 1):
                    hist[b] += 1
            tot = 0
            full = 0
            for b in range(n_buckets):
                tot += hist[b]
                full += hist[b] > 0
            loss = tot / full
        rank = gain - loss
        if rank > best_rank:  # attributes ascend: a tie keeps the smaller
            best_rank = rank
            best = a
    return best


@numba.njit(cache=True)
def partition_plan(s_start, s_end, p_attr, p_lo, p_hi, ids, used, cap, selectivity=False):
    """Algorithm 4 on the expressions ``ids`` of one l-node: while more than ``cap``
    remain, the unused attribute of highest rank takes every remaining expression having
    it; the rank is the optimistic popularity (the number of remaining expressions with
    the attribute; ties: the smaller attribute), or with ``selectivity``
    :func:`rank_attribute` over the remaining expressions.  Returns the chosen
    attributes, the pointer of each one's members into ``members`` (in ``ids`` order),
    the expressions left in the l-node, and whether it ran out of attributes (capacity
    doubling)."""
    if selectivity:
        return _partition_plan_selective(s_start, s_end, p_attr, p_lo, p_hi, ids, used, cap)
    plan = _plan(s_start, s_end, p_attr, p_lo, p_hi, p_lo, ids, used, cap, False)
    return plan[0], plan[1], plan[2], plan[3], plan[4]


@numba.njit(cache=True)
def partition_gathered(s_start, s_end, p_attr, p_lo, p_hi, p_w, ids, used, cap):
    """:func:`partition_plan` (popularity ranking) with what BE*-B needs next of each
    group, from the same walk over the predicates: the members' intervals on their
    group's attribute (``iv``, a row per member) and the weight summaries
    (:func:`summary`) of each group and of the rest, group g's
    ``(kattr, kw)[kptr[g]:kptr[g + 1]]``, the rest's the last.  Returns ``(attrs, gptr,
    members, rest, capped, iv, kptr, kattr, kw)``."""
    return _plan(s_start, s_end, p_attr, p_lo, p_hi, p_w, ids, used, cap, True)


@numba.njit(cache=True)
def _plan(s_start, s_end, p_attr, p_lo, p_hi, p_w, ids, used, cap, gathered):
    """:func:`partition_plan` with the popularity ranking and, if ``gathered``, what
    :func:`partition_gathered` adds (otherwise ``iv``, ``kattr`` and ``kw`` are empty):
    the greedy rounds assign each expression its group, then one pass over the
    expressions in ``ids`` order places the members and reads their intervals and
    weights (each group's members and summary in ``ids`` order, as the plain
    definitions meet them)."""
    n = ids.size
    # the expressions' attributes gathered once (``pa[ptr[t]:ptr[t + 1]]``: ids[t]'s,
    # at ``base[t] + ptr[t]`` in the predicate columns), then each attribute's
    # expressions (positions in ``ids``, in ``ids`` order), a counting sort over the
    # attribute ids (attribute ids and positions below 2**31)
    ptr = np.zeros(n + 1, np.int64)
    for t in range(n):
        ptr[t + 1] = ptr[t] + s_end[ids[t]] - s_start[ids[t]]
    pa = np.empty(ptr[n], np.int32)
    base = np.empty(n, np.int64)
    top = -1
    for t in range(n):
        base[t] = s_start[ids[t]] - ptr[t]
        for q in range(ptr[t], ptr[t + 1]):
            pa[q] = p_attr[base[t] + q]
        if ptr[t + 1] > ptr[t]:
            top = max(top, pa[ptr[t + 1] - 1])  # (sorted: the last is the largest)
    first = np.zeros(top + 2, np.int64)
    for q in range(pa.size):
        first[pa[q] + 1] += 1
    for a in range(top + 1):
        first[a + 1] += first[a]
    owner = np.empty(pa.size, np.int32)
    at = first[:-1].copy()
    for t in range(n):
        for q in range(ptr[t], ptr[t + 1]):
            owner[at[pa[q]]] = t
            at[pa[q]] += 1
    # the rank: predicates per attribute among the remaining expressions (-1: used)
    counts = np.empty(top + 1, np.int64)
    for a in range(top + 1):
        counts[a] = first[a + 1] - first[a]
    for u in range(used.size):
        if used[u] <= top and counts[used[u]] > 0:
            counts[used[u]] = -1
    group = np.full(n, -1, np.int64)  # each expression's group (-1: the rest)
    left = n
    out_attr = np.empty(top + 1, np.int64)
    out_ptr = np.zeros(top + 2, np.int64)
    g = 0
    capped = False
    while left > cap:
        best = -1
        for a in range(top + 1):  # the first maximum: ties go to the smaller attribute
            if best < 0 or counts[a] > counts[best]:
                best = a
        if best < 0 or counts[best] <= 0:
            capped = True
            break
        out_attr[g] = best
        for q in range(first[best], first[best + 1]):
            x = owner[q]
            if group[x] < 0:
                group[x] = g
                left -= 1
                out_ptr[g + 1] += 1
                for q in range(ptr[x], ptr[x + 1]):
                    counts[pa[q]] -= 1
        counts[best] = -1
        g += 1
    for h in range(g):
        out_ptr[h + 1] += out_ptr[h]
    # members and rest in ``ids`` order; gathered: the members' intervals, and every
    # group's summary (the rest's: row g) by attribute
    members = np.empty(n - left, np.int64)
    rest = np.empty(left, np.int64)
    cur = out_ptr[:g].copy()
    r = 0
    rows = g + 1 if gathered else 0
    iv = np.empty((n - left if gathered else 0, 2))
    wmax = np.empty((rows, top + 1))
    seen = np.zeros((rows, top + 1), np.bool_)
    k = 0  # (a member's row)
    for t in range(n):
        h = group[t]
        if h >= 0:
            k = cur[h]
            members[k] = ids[t]
            cur[h] += 1
        else:
            rest[r] = ids[t]
            r += 1
            h = g
        if gathered:
            for q in range(ptr[t], ptr[t + 1]):
                a = pa[q]
                j = base[t] + q
                if h < g and a == out_attr[h]:  # the member's interval
                    iv[k, 0] = p_lo[j]
                    iv[k, 1] = p_hi[j]
                if not seen[h, a]:  # the first weight met, replaced by a larger one
                    seen[h, a] = True
                    wmax[h, a] = p_w[j]
                elif p_w[j] > wmax[h, a]:
                    wmax[h, a] = p_w[j]
    kptr = np.zeros(rows + 1, np.int64)
    for h in range(rows):
        kptr[h + 1] = kptr[h] + seen[h].sum()
    kattr = np.empty(kptr[rows], np.int64)
    kw = np.empty(kptr[rows])
    for h in range(rows):
        w = kptr[h]
        for a in range(top + 1):
            if seen[h, a]:
                kattr[w] = a
                kw[w] = wmax[h, a]
                w += 1
    return out_attr[:g], out_ptr[: g + 1], members, rest, capped, iv, kptr, kattr, kw


@numba.njit(cache=True)
def _partition_plan_selective(s_start, s_end, p_attr, p_lo, p_hi, ids, used, cap):
    """:func:`partition_plan` with the selectivity ranking, recomputed over the
    remaining expressions at every round (the histogram changes as expressions leave)."""
    n = ids.size
    rest = ids.copy()
    taken = np.empty(0, np.int64)
    used_now = used.copy()
    out_attr = np.empty(n, np.int64)
    out_ptr = np.zeros(n + 1, np.int64)
    members = np.empty(n, np.int64)
    g = 0
    w = 0
    capped = False
    while rest.size > cap:
        a = rank_attribute(s_start, s_end, p_attr, p_lo, p_hi, rest, used_now, HIST_BUCKETS)
        if a < 0:
            capped = True
            break
        out_attr[g] = a
        keep = np.empty(rest.size, np.int64)
        k = 0
        for t in range(rest.size):
            i = rest[t]
            j = s_start[i] + np.searchsorted(p_attr[s_start[i] : s_end[i]], a)
            if j < s_end[i] and p_attr[j] == a:
                members[w] = i
                w += 1
            else:
                keep[k] = i
                k += 1
        rest = keep[:k]
        g += 1
        out_ptr[g] = w
        taken = np.append(taken, a)
        used_now = np.sort(np.concatenate((used, taken)))
    return out_attr[:g], out_ptr[: g + 1], members[:w], rest, capped


# --------------------------------------------------- the node-table builder (BE*-B)


@numba.njit(cache=True)
def approximate(lo, hi, alpha):
    """split_apx (``BEStarTree._approximate``): left takes intervals by ascending upper
    bound, right by descending lower bound, each while disjoint from the other."""
    n = lo.size
    up = _lexorder(lo, hi)
    down = _lexorder(-hi, -lo)
    side = np.ones(n, np.int64)
    llo = INF
    rlo = INF
    lhi = -INF
    rhi = -INF
    for t in range(n):
        x = up[t]
        if side[x] == 1:
            nlo, nhi = min(llo, lo[x]), max(lhi, hi[x])
            if nhi < rlo or nlo > rhi:
                side[x] = 0
                llo, lhi = nlo, nhi
        y = down[t]
        if side[y] == 1:
            nlo, nhi = min(rlo, lo[y]), max(rhi, hi[y])
            if nhi < llo or nlo > lhi:
                side[y] = 2
                rlo, rhi = nlo, nhi
    nl = 0
    nr = 0
    for t in range(n):
        nl += side[t] == 0
        nr += side[t] == 2
    return side, nl >= alpha and nr >= alpha


@numba.njit(cache=True)
def split(lo, hi, alpha_share, exhaustive_split):
    """``BEStarTree._split``: the data split (exhaustive or approximate; the space split
    when neither exists), then the insertion rule (what a child's bound encloses goes to
    that child).  Side 0 left, 1 overlapping, 2 right."""
    orders = split_orders(lo, hi) if exhaustive_split else np.empty((4, 0), np.int64)
    return split_ordered(lo, hi, orders, alpha_share, exhaustive_split)


@numba.njit(cache=True)
def split_ordered(lo, hi, orders, alpha_share, exhaustive_split):
    """:func:`split` given the orders of :func:`split_orders` (unread by the
    approximate split)."""
    n = lo.size
    alpha = max(1, int(np.ceil(alpha_share * n)))
    ok = False
    side = np.ones(n, np.int64)
    if n >= 2 * alpha:
        if exhaustive_split:
            side, ok = exhaustive_ordered(lo, hi, orders, alpha)
        else:
            side, ok = approximate(lo, hi, alpha)
    if not ok:  # split_spaceClustering at the centre of the finite endpoints
        side = np.ones(n, np.int64)
        fmin, fmax, seen = INF, -INF, False
        for t in range(n):
            for v in (lo[t], hi[t]):
                if np.isfinite(v):
                    seen = True
                    fmin, fmax = min(fmin, v), max(fmax, v)
        if seen:
            s = (fmin + fmax) / 2
            for t in range(n):
                if hi[t] < s:
                    side[t] = 0
                elif lo[t] > s:
                    side[t] = 2
    # each side's bound, then the overlap's intervals inside L's go left, the rest inside
    # R's right (moving intervals to L leaves R's bound as it was)
    llo, lhi, rlo, rhi = INF, -INF, INF, -INF
    any_l = any_r = False
    for t in range(n):
        if side[t] == 0:
            any_l = True
            llo, lhi = min(llo, lo[t]), max(lhi, hi[t])
        elif side[t] == 2:
            any_r = True
            rlo, rhi = min(rlo, lo[t]), max(rhi, hi[t])
    for t in range(n):
        if side[t] == 1:
            if any_l and lo[t] >= llo and hi[t] <= lhi:
                side[t] = 0
            elif any_r and lo[t] >= rlo and hi[t] <= rhi:
                side[t] = 2
    return side


#: the counters that number the build's rows: c-nodes, p-nodes, buckets, the p-nodes'
#: dims pool, weight-summary lists, the summaries' pool, the l-nodes' pool, summary ids,
#: the l-nodes' boxes' pool
COUNTERS = ("cnode", "pnode", "bucket", "dims", "sums", "sum_pool", "leaf_pool", "sum_id",
            "leaf_box")  # fmt: skip

#: the build's tables in the order :func:`_grow` holds them (integer columns, then
#: float): each column's name, the counter numbering its rows and the counter its
#: values are numbers of (``None``: plain values); the catalog the threaded build's
#: merge (``_bulk_threads``) renumbers by
TABLES = (
    ("cn_bucket", "cnode", "bucket"),
    ("cn_cap", "cnode", None),
    ("cn_sum", "cnode", "sum_id"),
    ("leaf_start", "cnode", "leaf_pool"),
    ("leaf_len", "cnode", None),
    ("leaf_pool", "leaf_pool", None),
    ("leaf_box", "cnode", "leaf_box"),
    ("pn_attr", "pnode", None),
    ("pn_cnode", "pnode", "cnode"),
    ("pn_count", "pnode", None),
    ("pn_root", "pnode", "bucket"),
    ("pn_sum", "pnode", "sum_id"),
    ("pn_dstart", "pnode", "dims"),
    ("pn_dlen", "pnode", None),
    ("dims_pool", "dims", None),
    ("pd_c", "pnode", "cnode"),
    ("pd_attr", "pnode", None),
    ("pd_p", "pnode", "pnode"),
    ("bk_parent", "bucket", "bucket"),
    ("bk_left", "bucket", "bucket"),
    ("bk_right", "bucket", "bucket"),
    ("bk_cnode", "bucket", "cnode"),
    ("bk_pnode", "bucket", "pnode"),
    ("sum_of", "sums", "sum_id"),
    ("sum_start", "sums", "sum_pool"),
    ("sum_len", "sums", None),
    ("sum_attr", "sum_pool", None),
    ("bk_clo", "bucket", None),
    ("bk_chi", "bucket", None),
    ("sum_w", "sum_pool", None),
    ("lb_lo", "leaf_box", None),
    ("lb_hi", "leaf_box", None),
)

#: a deferred task's row (:func:`build_main`): kind, node, attribute, then each counter
#: of :data:`COUNTERS` when it was deferred
TASK_KIND, TASK_NODE, TASK_ATTR, TASK_MARKS = 0, 1, 2, 3


@numba.njit(cache=True)
def _root_tables(A):
    """The build's tables (:data:`TABLES`) holding the root c-node alone."""
    cn_bucket, cn_cap, cn_sum, leaf_start, leaf_len = [-1], [A], [0], [0], [0]
    leaf_box = [-1]
    leaf_pool, pn_attr, pn_cnode, pn_count, pn_root, pn_sum = [0], [0], [0], [0], [0], [0]
    pn_dstart, pn_dlen, dims_pool, pd_c, pd_attr, pd_p = [0], [0], [0], [0], [0], [0]
    bk_parent, bk_left, bk_right, bk_cnode, bk_pnode = [0], [0], [0], [0], [0]
    sum_of, sum_start, sum_len, sum_attr = [0], [0], [0], [0]
    bk_clo, bk_chi, sum_w, lb_lo, lb_hi = [0.0], [0.0], [0.0], [0.0], [0.0]
    for lst in (leaf_pool, pn_attr, pn_cnode, pn_count, pn_root, pn_sum, pn_dstart, pn_dlen,
                dims_pool, pd_c, pd_attr, pd_p, bk_parent, bk_left, bk_right, bk_cnode,
                bk_pnode, sum_of, sum_start, sum_len, sum_attr):  # fmt: skip
        lst.pop()
    for lst in (bk_clo, bk_chi, sum_w, lb_lo, lb_hi):
        lst.pop()
    return (cn_bucket, cn_cap, cn_sum, leaf_start, leaf_len, leaf_pool, leaf_box, pn_attr,
            pn_cnode, pn_count, pn_root, pn_sum, pn_dstart, pn_dlen, dims_pool, pd_c, pd_attr,
            pd_p, bk_parent, bk_left, bk_right, bk_cnode, bk_pnode, sum_of, sum_start, sum_len,
            sum_attr, bk_clo, bk_chi, sum_w, lb_lo, lb_hi)  # fmt: skip


@numba.njit(cache=True)
def _stack(kind, node, attr, ids, iv, od):
    """A work stack holding one task: (kind, node, attr, ids, iv, od) per task, and
    the gathered weight summaries (ka, kw) of the new p-nodes' tasks that carry them
    (none yet)."""
    no_iv = np.empty((0, 2))
    st_ka, st_kw = [np.empty(0, np.int64)], [no_iv[:, 0]]
    st_ka.pop()
    st_kw.pop()
    return [kind], [node], [attr], [ids], [iv], [od], st_ka, st_kw


@numba.njit(cache=True)
def _deferred():
    """No deferred tasks yet: their rows (:data:`TASK_KIND` ...) and their ids, iv,
    od, ka and kw as the stack held them."""
    no_iv = np.empty((0, 2))
    no_ids = np.empty(0, np.int64)
    d_task, d_ids, d_iv, d_od = [no_ids], [no_ids], [no_iv], [np.empty((4, 0), np.int64)]
    d_ka, d_kw = [no_ids], [no_iv[:, 0]]
    d_task.pop()
    d_ids.pop()
    d_iv.pop()
    d_od.pop()
    d_ka.pop()
    d_kw.pop()
    return d_task, d_ids, d_iv, d_od, d_ka, d_kw


@numba.njit(cache=True, inline="always")
def _path_dims(c, cn_bucket, bk_pnode, pn_dstart, pn_dlen, dims_pool):
    """The attributes of c-node ``c``'s path (its bucket's p-node's dims, in path
    order; none for the root)."""
    if not c:
        return np.empty(0, np.int64)
    q = bk_pnode[cn_bucket[c]]
    dims = np.empty(pn_dlen[q], np.int64)
    for d in range(pn_dlen[q]):
        dims[d] = dims_pool[pn_dstart[q] + d]
    return dims


@numba.njit(cache=True, nogil=True)
def _grow(cols, tabs, ctr, stack, A, alpha_share, exh, rigid, dlo, dhi, selectivity,
          grain, dfr):  # fmt: skip
    """Run the work stack of BE*-B (see :func:`build_main`) until it is empty, growing
    the tables ``tabs`` (:data:`TABLES`; ``ctr[0]``: the next summary id).  With
    ``grain`` > 0 every task of ``grain`` expressions or more but the first is not run
    but deferred (appended to ``dfr``, with every counter as it stood): its subtree can
    be built apart and numbered in afterwards.  Partitioning the root c-node switches
    to a localized copy of the predicates (:func:`root_localized`).  Returns the
    columns read last and, if they were localized here, the old id of each new number
    (else an empty array)."""
    s_start, s_end, p_attr, p_lo, p_hi, p_w = cols
    (cn_bucket, cn_cap, cn_sum, leaf_start, leaf_len, leaf_pool, leaf_box, pn_attr,
     pn_cnode, pn_count, pn_root, pn_sum, pn_dstart, pn_dlen, dims_pool, pd_c, pd_attr,
     pd_p, bk_parent, bk_left, bk_right, bk_cnode, bk_pnode, sum_of, sum_start, sum_len,
     sum_attr, bk_clo, bk_chi, sum_w, lb_lo, lb_hi) = tabs  # fmt: skip
    st_kind, st_node, st_attr, st_ids, st_iv, st_od, st_ka, st_kw = stack
    d_task, d_ids, d_iv, d_od, d_ka, d_kw = dfr
    # the work stack: (kind, node, attr, ids); kinds: 0 partition c-node, 1 new p-node
    # of c-node ``node`` on ``attr`` then cluster it, 2 cluster bucket ``node``.  A
    # cluster task also carries its expressions' intervals on the p-node's attribute
    # (``iv``: lo, hi), gathered once per p-node, and below a split the exhaustive
    # split's orders of them (``od``, :func:`split_orders`; sorted at the p-node's
    # first split, the directory's splits take their subsets, :func:`child_orders`;
    # ``iv`` and ``od`` are empty where not carried).  A new
    # p-node's task carries its members' intervals and weight summary when the
    # partition plan gathered them (:func:`partition_gathered`; the summaries on a
    # stack of their own, one entry per such task)
    no_iv = np.empty((0, 2))
    no_od = np.empty((4, 0), np.int64)
    no_ids = np.empty(0, np.int64)
    local = False  # renumbered (:func:`root_localized`): ``back`` gives the old ids
    back = np.empty(0, np.int64)
    first = True
    while len(st_kind):
        kind, node, attr, arr = st_kind.pop(), st_node.pop(), st_attr.pop(), st_ids.pop()
        iv, od = st_iv.pop(), st_od.pop()
        if grain and arr.size >= grain and not first:  # built apart
            ka, kw = no_ids, no_iv[:, 0]
            if kind == 1 and iv.shape[0]:
                ka, kw = st_ka.pop(), st_kw.pop()
            d_task.append(np.array([kind, node, attr, len(cn_bucket), len(pn_attr),
                                    len(bk_parent), len(dims_pool), len(sum_of),
                                    len(sum_attr), len(leaf_pool), ctr[0],
                                    len(lb_lo)]))  # fmt: skip
            d_ids.append(arr)
            d_iv.append(iv)
            d_od.append(od)
            d_ka.append(ka)
            d_kw.append(kw)
            continue
        first = False
        if kind == 2:
            b = node
            c = bk_cnode[b]
            if arr.size > cn_cap[c]:
                p = bk_pnode[b]
                lo = iv[:, 0]
                hi = iv[:, 1]
                mid = 0.0
                if rigid:
                    clo, chi = bk_clo[b], bk_chi[b]
                    if chi - clo <= 1:  # an atomic cell: partition the c-node instead
                        st_kind.append(0)
                        st_node.append(c)
                        st_attr.append(0)
                        st_ids.append(arr)
                        st_iv.append(no_iv)
                        st_od.append(no_od)
                        continue
                    mid = np.floor((clo + chi) / 2) if chi - clo > 1 else (clo + chi) / 2
                    side = np.ones(arr.size, np.int64)
                    for t in range(arr.size):
                        if hi[t] < mid:
                            side[t] = 0
                        elif lo[t] >= mid:
                            side[t] = 2
                else:
                    if exh and not od.shape[1]:  # the p-node's first split: sort
                        od = split_orders(lo, hi)
                    side = split_ordered(lo, hi, od, alpha_share, exh)
                    if not np.any(side != 1):  # atomic: nothing to separate (§IV-C)
                        st_kind.append(0)
                        st_node.append(c)
                        st_attr.append(0)
                        st_ids.append(arr)
                        st_iv.append(no_iv)
                        st_od.append(no_od)
                        continue
                kids = np.empty(2, np.int64)
                for j in range(2):  # new buckets L, R (each with its c-node)
                    nb = len(bk_parent)
                    kids[j] = nb
                    bk_parent.append(b)
                    bk_left.append(-1)
                    bk_right.append(-1)
                    bk_pnode.append(p)
                    bk_cnode.append(len(cn_bucket))
                    bk_clo.append(bk_clo[b] if j == 0 else mid)
                    bk_chi.append(mid if j == 0 else bk_chi[b])
                    cn_bucket.append(nb)
                    cn_cap.append(A)
                    cn_sum.append(ctr[0])
                    ctr[0] += 1
                    leaf_start.append(0)
                    leaf_len.append(0)
                    leaf_box.append(-1)
                bk_left[b], bk_right[b] = kids[0], kids[1]
                # L, then R, then the overlap's partition on top: the partition runs
                # first, then R's subtree, then L's (the Python build's order)
                kid_od = (no_od, no_od)
                if od.shape[1]:
                    kid_od = child_orders(od, side)
                kid_ids, kid_iv = by_side(arr, iv, side)
                for j in range(3):
                    st_kind.append(2 if j < 2 else 0)
                    st_node.append(kids[j] if j < 2 else c)
                    st_attr.append(0)
                    st_ids.append(kid_ids[j])
                    st_iv.append(kid_iv[j] if j < 2 else no_iv)
                    st_od.append(kid_od[j] if j < 2 else no_od)
                continue
            kind, node = 3, c  # an l-node: set below
        if kind == 1:
            c = node
            p = len(pn_attr)
            pn_attr.append(attr)
            pn_cnode.append(c)
            pn_count.append(arr.size)
            pn_sum.append(ctr[0])
            sid = ctr[0]
            ctr[0] += 1
            if iv.shape[0]:  # gathered by the plan
                ka, kw = st_ka.pop(), st_kw.pop()
            else:
                ka, kw = summary(s_start, s_end, p_attr, p_w, arr)
                iv = np.empty((arr.size, 2))
                iv[:, 0] = gather(s_start, s_end, p_attr, p_lo, arr, attr)
                iv[:, 1] = gather(s_start, s_end, p_attr, p_hi, arr, attr)
            sum_of.append(sid)
            sum_start.append(len(sum_attr) if ka.size else 0)  # (an empty list at 0)
            sum_len.append(ka.size)
            for t in range(ka.size):
                sum_attr.append(ka[t])
                sum_w.append(kw[t])
            pn_dstart.append(len(dims_pool))
            if c:
                q = bk_pnode[cn_bucket[c]]
                for t in range(pn_dstart[q], pn_dstart[q] + pn_dlen[q]):
                    dims_pool.append(dims_pool[t])
                pn_dlen.append(pn_dlen[q] + 1)
            else:
                pn_dlen.append(1)
            dims_pool.append(attr)
            b = len(bk_parent)  # its root bucket and the bucket's c-node
            bk_parent.append(-1)
            bk_left.append(-1)
            bk_right.append(-1)
            bk_pnode.append(p)
            bk_cnode.append(len(cn_bucket))
            bk_clo.append(dlo)
            bk_chi.append(dhi)
            cn_bucket.append(b)
            cn_cap.append(A)
            cn_sum.append(ctr[0])
            ctr[0] += 1
            leaf_start.append(0)
            leaf_len.append(0)
            leaf_box.append(-1)
            pn_root.append(b)
            pd_c.append(c)
            pd_attr.append(attr)
            pd_p.append(p)
            st_kind.append(2)
            st_node.append(b)
            st_attr.append(0)
            st_ids.append(arr)
            st_iv.append(iv)
            st_od.append(no_od)  # (sorted at its first split)
            continue
        c = node
        rest = arr
        if kind == 0 and arr.size > cn_cap[c]:
            used = np.sort(_path_dims(c, cn_bucket, bk_pnode, pn_dstart, pn_dlen, dims_pool))
            if selectivity:
                attrs, gptr, members, rest, capped = partition_plan(
                    s_start, s_end, p_attr, p_lo, p_hi, arr, used, cn_cap[c], True
                )
                giv = no_iv
                kptr = np.zeros(attrs.size + 2, np.int64)
                kattr, kws = no_ids, no_iv[:, 0]
            else:
                attrs, gptr, members, rest, capped, giv, kptr, kattr, kws = partition_gathered(
                    s_start, s_end, p_attr, p_lo, p_hi, p_w, arr, used, cn_cap[c]
                )
                if c == 0 and not local:  # from here on the build reads a local copy
                    s_start, s_end, p_attr, p_lo, p_hi, p_w, members, rest, back = (
                        root_localized(s_start, s_end, p_attr, p_lo, p_hi, p_w, arr, gptr,
                                       members, rest, giv)
                    )  # fmt: skip
                    local = True
            for g in range(attrs.size - 1, -1, -1):  # the first group on top
                st_kind.append(1)
                st_node.append(c)
                st_attr.append(attrs[g])
                st_ids.append(members[gptr[g] : gptr[g + 1]].copy())
                st_iv.append(giv[gptr[g] : gptr[g + 1]].copy() if giv.shape[0] else no_iv)
                st_od.append(no_od)
                if giv.shape[0]:
                    st_ka.append(kattr[kptr[g] : kptr[g + 1]].copy())
                    st_kw.append(kws[kptr[g] : kptr[g + 1]].copy())
            if capped:
                cn_cap[c] = max(A, 2 * rest.size)
            g = attrs.size  # the rest's summary
            if selectivity:
                ka, kw = summary(s_start, s_end, p_attr, p_w, rest)
            else:
                ka, kw = kattr[kptr[g] : kptr[g + 1]], kws[kptr[g] : kptr[g + 1]]
        else:
            ka, kw = summary(s_start, s_end, p_attr, p_w, rest)
        leaf_start[c] = len(leaf_pool) if rest.size else 0
        leaf_len[c] = rest.size
        for t in range(rest.size):
            leaf_pool.append(rest[t])
        leaf_box[c] = -1
        if c and rest.size and not rigid:  # its box over the path's attributes
            leaf_box[c] = len(lb_lo)
            dims = _path_dims(c, cn_bucket, bk_pnode, pn_dstart, pn_dlen, dims_pool)
            k = dims.size
            box = np.empty((k, 2))
            box[:, 0] = INF
            box[:, 1] = -INF
            union_box(s_start, s_end, p_attr, p_lo, p_hi, rest, dims, box)
            for d in range(k):
                lb_lo.append(box[d, 0])
                lb_hi.append(box[d, 1])
        sum_of.append(cn_sum[c])
        sum_start.append(len(sum_attr) if ka.size else 0)
        sum_len.append(ka.size)
        for t in range(ka.size):
            sum_attr.append(ka[t])
            sum_w.append(kw[t])
    return (s_start, s_end, p_attr, p_lo, p_hi, p_w), back


@numba.njit(cache=True)
def build_main(s_start, s_end, p_attr, p_lo, p_hi, p_w, ids, A, alpha_share, exh,
               rigid=False, dlo=0.0, dhi=1.0, selectivity=False, grain=0):  # fmt: skip
    """BE*-B (``BEStarTree._bulk``) for an empty tree, entirely in numba: the same
    Algorithms 4 and 5 applied top-down to the batch, nodes numbered in the order the
    Python build creates them (its recursion replayed on one explicit stack,
    :func:`_grow`).  With ``rigid`` the BE-tree's bulk load: every overflowing bucket is
    cut at the middle of its grid cell of ``[dlo, dhi]`` (``_mid``), an atomic cell
    (width <= 1) is partitioned instead.  With ``grain`` > 0 the root's tasks of
    ``grain`` expressions or more are deferred: each is the root of a subtree that
    :func:`grow_subtree` builds apart and ``_bulk_threads`` numbers in.  Returns the
    tables as arrays (:data:`TABLES`), the next summary id, the predicate columns the
    build read after the root partition (:func:`root_localized`'s copy) with the old
    id of each new number (empty if not localized), and the deferred tasks."""
    tabs = _root_tables(A)
    ctr = np.ones(1, np.int64)
    stack = _stack(0, 0, 0, ids, np.empty((0, 2)), np.empty((4, 0), np.int64))
    dfr = _deferred()
    cols = (s_start, s_end, p_attr, p_lo, p_hi, p_w)
    loc, back = _grow(cols, tabs, ctr, stack, A, alpha_share, exh, rigid, dlo, dhi,
                      selectivity, grain, dfr)  # fmt: skip
    return _arrays(tabs), ctr[0], loc, back, dfr


@numba.njit(cache=True)
def _arrays(tabs):
    """The tables (:data:`TABLES`) as arrays."""
    return (
        np.array(tabs[0]), np.array(tabs[1]), np.array(tabs[2]), np.array(tabs[3]),
        np.array(tabs[4]), np.array(tabs[5]), np.array(tabs[6]), np.array(tabs[7]),
        np.array(tabs[8]), np.array(tabs[9]), np.array(tabs[10]), np.array(tabs[11]),
        np.array(tabs[12]), np.array(tabs[13]), np.array(tabs[14]), np.array(tabs[15]),
        np.array(tabs[16]), np.array(tabs[17]), np.array(tabs[18]), np.array(tabs[19]),
        np.array(tabs[20]), np.array(tabs[21]), np.array(tabs[22]), np.array(tabs[23]),
        np.array(tabs[24]), np.array(tabs[25]), np.array(tabs[26]), np.array(tabs[27]),
        np.array(tabs[28]), np.array(tabs[29]), np.array(tabs[30]), np.array(tabs[31]),
    )  # fmt: skip


@numba.njit(cache=True)
def _listed(arrs):
    """The tables (:data:`TABLES`) as lists to grow, from arrays."""
    return (
        list(arrs[0]), list(arrs[1]), list(arrs[2]), list(arrs[3]), list(arrs[4]),
        list(arrs[5]), list(arrs[6]), list(arrs[7]), list(arrs[8]), list(arrs[9]),
        list(arrs[10]), list(arrs[11]), list(arrs[12]), list(arrs[13]), list(arrs[14]),
        list(arrs[15]), list(arrs[16]), list(arrs[17]), list(arrs[18]), list(arrs[19]),
        list(arrs[20]), list(arrs[21]), list(arrs[22]), list(arrs[23]), list(arrs[24]),
        list(arrs[25]), list(arrs[26]), list(arrs[27]), list(arrs[28]), list(arrs[29]),
        list(arrs[30]), list(arrs[31]),
    )  # fmt: skip


@numba.njit(cache=True, nogil=True)
def grow_subtree(cols, tables, n_sums, task, ids, iv, od, ka, kw, A, alpha_share, exh, rigid,
                 dlo, dhi, selectivity, grain):  # fmt: skip
    """The subtree of one deferred task, built on a copy of the tables that deferred it
    (``tables``, arrays of :data:`TABLES`, and ``n_sums``, the next summary id, as they
    stood when it was built) over the columns ``cols`` the build reads; its own tasks of
    ``grain`` expressions or more are deferred in turn.  Returns the copy's tables,
    grown, as arrays, the next summary id and the tasks it deferred (as
    :func:`build_main`)."""
    tabs = _listed(tables)
    ctr = np.full(1, n_sums, np.int64)
    stack = _stack(task[TASK_KIND], task[TASK_NODE], task[TASK_ATTR], ids, iv, od)
    if task[TASK_KIND] == 1 and iv.shape[0]:
        stack[6].append(ka)
        stack[7].append(kw)
    dfr = _deferred()
    _grow(cols, tabs, ctr, stack, A, alpha_share, exh, rigid, dlo, dhi, selectivity,
          grain, dfr)  # fmt: skip
    return _arrays(tabs), ctr[0], dfr


@numba.njit(cache=True)
def boxes(leaf_box, lb_lo, lb_hi, pd_ptr, pd_p, pn_root, pn_dlen, bk_left, bk_right,
          bk_cnode, bk_pnode):  # fmt: skip
    """Every bucket's box over its path's attributes — its c-node's (``own``: its
    l-node's expressions, whose box the build computed (rows ``lb_lo``, ``lb_hi`` from
    ``leaf_box``; -1, no box: an empty l-node, the root, the rigid build), and the root
    buckets of its p-nodes) and its subtree's (``total``: own and both children) —
    bottom-up (``_recompute_own`` / ``_recompute_total``). Rows of bucket b:
    ``ptr[b]:ptr[b + 1]``."""
    nb = bk_cnode.size
    ptr = np.zeros(nb + 1, np.int64)
    for b in range(nb):
        ptr[b + 1] = ptr[b] + pn_dlen[bk_pnode[b]]
    own = np.empty((ptr[nb], 2))
    total = np.empty((ptr[nb], 2))
    own[:, 0] = INF
    own[:, 1] = -INF
    for b in range(nb - 1, -1, -1):  # children are created after their parents
        c = bk_cnode[b]
        p = bk_pnode[b]
        k = pn_dlen[p]
        box = own[ptr[b] : ptr[b + 1]]
        if leaf_box[c] >= 0:
            for d in range(k):
                box[d, 0] = lb_lo[leaf_box[c] + d]
                box[d, 1] = lb_hi[leaf_box[c] + d]
        for t in range(pd_ptr[c], pd_ptr[c + 1]):
            r = ptr[pn_root[pd_p[t]]]
            for d in range(k):
                box[d, 0] = min(box[d, 0], total[r + d, 0])
                box[d, 1] = max(box[d, 1], total[r + d, 1])
        tot = total[ptr[b] : ptr[b + 1]]
        tot[:, :] = box
        for ch in (bk_left[b], bk_right[b]):
            if ch >= 0:
                r = ptr[ch]
                for d in range(k):
                    tot[d, 0] = min(tot[d, 0], total[r + d, 0])
                    tot[d, 1] = max(tot[d, 1], total[r + d, 1])
    return ptr, own, total
