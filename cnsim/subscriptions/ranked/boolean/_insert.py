"""The dynamic BE*-tree's one-by-one insertion in numba (seed 002 §IV-V, Algorithms 1,
2, 4 and 5, expression after expression): ``BEStarTree.insert_many`` into any
non-rigid tree.  It builds exactly the tree the Python path (``BEStarTree._insert_at``,
kept as the reference, used by single ``insert`` calls) builds, node for node: the
same node numbering, l-nodes, p-directories, weight summaries, bounds and boxes
(``tests/.../test_betree_build.py`` compares every table).

The node tables come in as numpy columns, live here as numba lists (growable, no
Python object per node or per expression) and go back as columns (:func:`insert_many`).
Notation follows ``betree.py``: c-nodes ``c`` (an l-node in the ``LF`` slab, a
p-directory in ``PD``, a weight summary in ``SM``), p-nodes ``p`` (attribute, root
bucket, count, summary, the path's attributes ``dims``), buckets ``b`` (B^k as
``bk_lo``/``bk_hi``, B_O as ``bk_olo``/``bk_ohi``, children, parent, c-node, p-node).
Every bucket and every non-root c-node keeps its box over its path's attributes (the
inactive dimensions) as ``k`` rows of ``(lo, hi)`` in the float pool ``bx`` from
``bk_bx[b]`` / ``cn_bx[c]``.

Python's mutual recursion (``_cluster`` calls ``_partition`` which calls ``_cluster``)
is replayed on one explicit task stack: a task is ``(kind, node)``, kind 0 = one round
of Algorithm 4's loop on c-node ``node``, kind 1 = Algorithm 5 on bucket ``node``;
what Python runs synchronously is pushed on top, what it runs after is pushed below.
"""

from __future__ import annotations

import numba
import numpy as np

from cnsim.subscriptions.ranked.boolean._build import (
    HIST_BUCKETS,
    gather,
    rank_attribute,
    split,
    summary,
)

INF = np.inf
PARTITION = 0
CLUSTER = 1


# ----------------------------------------------------------------- list helpers


@numba.njit(cache=True)
def _ilist(a):
    out = [0]
    out.pop()
    for t in range(a.size):
        out.append(a[t])
    return out


@numba.njit(cache=True)
def _flist(a):
    out = [0.0]
    out.pop()
    for t in range(a.size):
        out.append(a[t])
    return out


@numba.njit(cache=True)
def _iarr(lst):
    out = np.empty(len(lst), np.int64)
    for t in range(len(lst)):
        out[t] = lst[t]
    return out


@numba.njit(cache=True)
def _farr(lst):
    out = np.empty(len(lst), np.float64)
    for t in range(len(lst)):
        out[t] = lst[t]
    return out


@numba.njit(cache=True)
def _lower(lst, a, b, x):
    """First position in the sorted ``lst[a:b]`` whose value is >= x."""
    while a < b:
        m = (a + b) >> 1
        if lst[m] < x:
            a = m + 1
        else:
            b = m
    return a


@numba.njit(cache=True, inline="always")
def _length(lo, hi):
    return hi - lo if lo <= hi else 0.0


# ------------------------------------------------------------------------ slabs
# A slab keeps many growable lists in shared pools (``betree.Slab``): list l occupies
# ``start[l] : start[l] + len[l]`` with room ``room[l]``; a list that outgrows its room
# moves to the end of the pools with twice the room.


@numba.njit(cache=True)
def _reserve_leaf(LF, lst, need):
    start, length, room, pool = LF
    if need <= room[lst]:
        return
    r = max(need, 2 * room[lst])
    s, n = start[lst], length[lst]
    new = len(pool)
    for t in range(n):
        pool.append(pool[s + t])
    for _ in range(r - n):
        pool.append(0)
    start[lst] = new
    room[lst] = r


@numba.njit(cache=True)
def _reserve_pd(PD, lst, need):
    start, length, room, pa, pp = PD
    if need <= room[lst]:
        return
    r = max(need, 2 * room[lst])
    s, n = start[lst], length[lst]
    new = len(pa)
    for t in range(n):
        pa.append(pa[s + t])
        pp.append(pp[s + t])
    for _ in range(r - n):
        pa.append(0)
        pp.append(0)
    start[lst] = new
    room[lst] = r


@numba.njit(cache=True)
def _reserve_sm(SM, lst, need):
    start, length, room, sa, sw = SM
    if need <= room[lst]:
        return
    r = max(need, 2 * room[lst])
    s, n = start[lst], length[lst]
    new = len(sa)
    for t in range(n):
        sa.append(sa[s + t])
        sw.append(sw[s + t])
    for _ in range(r - n):
        sa.append(0)
        sw.append(0.0)
    start[lst] = new
    room[lst] = r


@numba.njit(cache=True)
def _new_leaf(LF, r):
    start, length, room, pool = LF
    start.append(len(pool))
    length.append(0)
    room.append(r)
    for _ in range(r):
        pool.append(0)


@numba.njit(cache=True)
def _new_pd(PD, r):
    start, length, room, pa, pp = PD
    start.append(len(pa))
    length.append(0)
    room.append(r)
    for _ in range(r):
        pa.append(0)
        pp.append(0)


@numba.njit(cache=True)
def _new_sm(SM, r):
    start, length, room, sa, sw = SM
    start.append(len(sa))
    length.append(0)
    room.append(r)
    for _ in range(r):
        sa.append(0)
        sw.append(0.0)
    return len(start) - 1


@numba.njit(cache=True)
def _leaf_ids(LF, c):
    start, length, _, pool = LF
    out = np.empty(length[c], np.int64)
    for t in range(length[c]):
        out[t] = pool[start[c] + t]
    return out


@numba.njit(cache=True)
def _leaf_set(LF, c, ids):
    _reserve_leaf(LF, c, ids.size)
    start, length, _, pool = LF
    for t in range(ids.size):
        pool[start[c] + t] = ids[t]
    length[c] = ids.size


@numba.njit(cache=True)
def _sum_set(T, lst, ids):
    """The weight summary of ``ids`` (``BEStarTree._sum_rebuild``)."""
    SM = T[2]
    S = T[7]
    ka, kw = summary(S[0], S[1], S[2], S[5], ids)
    _reserve_sm(SM, lst, ka.size)
    start, length, _, sa, sw = SM
    for t in range(ka.size):
        sa[start[lst] + t] = ka[t]
        sw[start[lst] + t] = kw[t]
    length[lst] = ka.size


@numba.njit(cache=True)
def _sum_add(T, lst, i):
    """Fold expression i into a weight summary (max weight per attribute)."""
    SM = T[2]
    s_start, s_end, p_attr, _, _, p_w = T[7]
    for j in range(s_start[i], s_end[i]):
        a = p_attr[j]
        w = p_w[j]
        start, length, _, sa, sw = SM
        s0 = start[lst]
        s1 = s0 + length[lst]
        at = _lower(sa, s0, s1, a)
        if at < s1 and sa[at] == a:
            if sw[at] < w:
                sw[at] = w
            continue
        pos = at - s0
        n = length[lst]
        _reserve_sm(SM, lst, n + 1)
        s0 = start[lst]
        for t in range(s0 + n, s0 + pos, -1):
            sa[t] = sa[t - 1]
            sw[t] = sw[t - 1]
        sa[s0 + pos] = a
        sw[s0 + pos] = w
        length[lst] = n + 1


@numba.njit(cache=True)
def _leaf_add(T, c, i):
    LF = T[0]
    n = LF[1][c]
    _reserve_leaf(LF, c, n + 1)
    LF[3][LF[0][c] + n] = i
    LF[1][c] = n + 1
    _sum_add(T, T[3][0][c], i)
    T[8][i] = c


# ------------------------------------------------------------------------ nodes


@numba.njit(cache=True)
def _new_cnode(T, bucket):
    LF, PD, SM, CN = T[0], T[1], T[2], T[3]
    A = T[9][0]
    cn_sum, cn_bucket, cn_cap, cn_bx = CN
    c = len(cn_bucket)
    _new_leaf(LF, A + 1)
    _new_pd(PD, 2)
    cn_sum.append(_new_sm(SM, 4))
    cn_bucket.append(bucket)
    cn_cap.append(A)
    cn_bx.append(-1)
    return c


@numba.njit(cache=True)
def _new_box(bx, k):
    at = len(bx)
    for _ in range(k):
        bx.append(INF)
        bx.append(-INF)
    return at


@numba.njit(cache=True)
def _new_bucket(T, p, parent):
    CN, PN, BKI, BKF = T[3], T[4], T[5], T[6]
    bk_left, bk_right, bk_parent, bk_cnode, bk_pnode, bk_split, bk_bx = BKI
    bk_lo, bk_hi, bk_olo, bk_ohi, bx = BKF
    b = len(bk_lo)
    bk_lo.append(INF)
    bk_hi.append(-INF)
    bk_olo.append(INF)
    bk_ohi.append(-INF)
    bk_left.append(-1)
    bk_right.append(-1)
    bk_parent.append(parent)
    bk_pnode.append(p)
    bk_split.append(0)
    bk_cnode.append(-1)
    k = PN[6][p]
    bk_bx.append(_new_box(bx, k))
    c = _new_cnode(T, b)
    bk_cnode[b] = c
    CN[3][c] = _new_box(bx, k)
    return b


@numba.njit(cache=True)
def _new_pnode(T, attr, c):
    PD, SM, CN, PN, BKI = T[1], T[2], T[3], T[4], T[5]
    pn_attr, pn_root, pn_cnode, pn_count, pn_sum, pn_dstart, pn_dlen, dims = PN
    p = len(pn_attr)
    pn_attr.append(attr)
    pn_cnode.append(c)
    pn_count.append(0)
    pn_sum.append(_new_sm(SM, 4))
    at = len(dims)
    if c:
        q = BKI[4][CN[1][c]]
        for t in range(pn_dstart[q], pn_dstart[q] + pn_dlen[q]):
            dims.append(dims[t])
        pn_dlen.append(pn_dlen[q] + 1)
    else:
        pn_dlen.append(1)
    dims.append(attr)
    pn_dstart.append(at)
    pn_root.append(-1)
    pn_root[p] = _new_bucket(T, p, -1)
    # into the p-directory, sorted by attribute
    start, length, _, pa, pp = PD
    n = length[c]
    pos = _lower(pa, start[c], start[c] + n, attr) - start[c]
    _reserve_pd(PD, c, n + 1)
    s0 = start[c]
    for t in range(s0 + n, s0 + pos, -1):
        pa[t] = pa[t - 1]
        pp[t] = pp[t - 1]
    pa[s0 + pos] = attr
    pp[s0 + pos] = p
    length[c] = n + 1
    return p


# ------------------------------------------------------------------------ boxes


@numba.njit(cache=True)
def _pred(S, i, attr):
    """Index of expression i's predicate on ``attr`` (it must have one)."""
    s_start, s_end, p_attr = S[0], S[1], S[2]
    return _lower(p_attr, s_start[i], s_end[i], attr)


@numba.njit(cache=True)
def _box(T, i, p):
    """Expression i's box over p-node p's path attributes (k x 2)."""
    PN = T[4]
    S = T[7]
    k = PN[6][p]
    d0 = PN[5][p]
    box = np.empty((k, 2))
    for d in range(k):
        j = _pred(S, i, PN[7][d0 + d])
        box[d, 0] = S[3][j]
        box[d, 1] = S[4][j]
    return box


@numba.njit(cache=True)
def _union(bx, at, box):
    for d in range(box.shape[0]):
        if box[d, 0] < bx[at + 2 * d]:
            bx[at + 2 * d] = box[d, 0]
        if box[d, 1] > bx[at + 2 * d + 1]:
            bx[at + 2 * d + 1] = box[d, 1]


@numba.njit(cache=True)
def _sync(T, b):
    """Copy the active dimension (the last row) of b's boxes into the bounds."""
    CN, PN, BKI, BKF = T[3], T[4], T[5], T[6]
    bk_lo, bk_hi, bk_olo, bk_ohi, bx = BKF
    k = PN[6][BKI[4][b]]
    t = BKI[6][b] + 2 * (k - 1)
    o = CN[3][BKI[3][b]] + 2 * (k - 1)
    bk_lo[b] = bx[t]
    bk_hi[b] = bx[t + 1]
    bk_olo[b] = bx[o]
    bk_ohi[b] = bx[o + 1]


@numba.njit(cache=True)
def _grow_own(T, b, box):
    bx = T[6][4]
    _union(bx, T[3][3][T[5][3][b]], box)
    _union(bx, T[5][6][b], box)
    _sync(T, b)


@numba.njit(cache=True)
def _grow_total(T, b, box):
    _union(T[6][4], T[5][6][b], box)
    _sync(T, b)


@numba.njit(cache=True)
def _recompute_own(T, c):
    """c's box: its l-node's expressions and its p-nodes' root buckets."""
    LF, PD, CN, PN, BKI, BKF, S = T[0], T[1], T[3], T[4], T[5], T[6], T[7]
    bx = BKF[4]
    at = CN[3][c]
    p = BKI[4][CN[1][c]]
    k = PN[6][p]
    d0 = PN[5][p]
    for d in range(k):
        bx[at + 2 * d] = INF
        bx[at + 2 * d + 1] = -INF
    for t in range(LF[0][c], LF[0][c] + LF[1][c]):
        i = LF[3][t]
        for d in range(k):
            j = _pred(S, i, PN[7][d0 + d])
            if S[3][j] < bx[at + 2 * d]:
                bx[at + 2 * d] = S[3][j]
            if S[4][j] > bx[at + 2 * d + 1]:
                bx[at + 2 * d + 1] = S[4][j]
    for t in range(PD[0][c], PD[0][c] + PD[1][c]):
        r = BKI[6][PN[1][PD[4][t]]]
        for d in range(k):
            bx[at + 2 * d] = min(bx[at + 2 * d], bx[r + 2 * d])
            bx[at + 2 * d + 1] = max(bx[at + 2 * d + 1], bx[r + 2 * d + 1])


# ----------------------------------------------------------------- Algorithm 2


@numba.njit(cache=True)
def _grow_up(T, b, box, lo, hi):
    """A new parent bucket above b holding the expression (Algorithm 2, 6-11)."""
    PN, BKI, BKF = T[4], T[5], T[6]
    bk_left, bk_right, bk_parent, _, bk_pnode, bk_split, bk_bx = BKI
    bk_lo, bk_hi = BKF[0], BKF[1]
    p, parent = bk_pnode[b], bk_parent[b]
    nb = _new_bucket(T, p, parent)
    other = _new_bucket(T, p, nb)
    if parent < 0:
        PN[1][p] = nb
    elif bk_left[parent] == b:
        bk_left[parent] = nb
    else:
        bk_right[parent] = nb
    bk_parent[b] = nb
    if (lo + hi) / 2 < (bk_lo[b] + bk_hi[b]) / 2:  # the old side of it
        bk_left[nb], bk_right[nb] = other, b
    else:
        bk_left[nb], bk_right[nb] = b, other
    bk_split[nb] = 1
    k = PN[6][p]
    bx = BKF[4]
    s, t = bk_bx[nb], bk_bx[b]
    for d in range(2 * k):
        if d % 2 == 0:
            bx[s + d] = min(bx[s + d], bx[t + d])
        else:
            bx[s + d] = max(bx[s + d], bx[t + d])
    _grow_own(T, nb, box)
    return nb


@numba.njit(cache=True)
def _insert_cdir(T, i, b):
    """Algorithm 2: the bucket whose c-node receives expression i."""
    PN, BKI, BKF, S = T[4], T[5], T[6], T[7]
    beta = T[9][2]
    bk_left, bk_right, _, _, bk_pnode, bk_split, _ = BKI
    bk_lo, bk_hi = BKF[0], BKF[1]
    p = bk_pnode[b]
    j = _pred(S, i, PN[0][p])
    lo, hi = S[3][j], S[4][j]
    box = _box(T, i, p)
    while True:
        if not bk_split[b]:  # a leaf bucket takes it
            _grow_own(T, b, box)
            return b
        tlo, thi = bk_lo[b], bk_hi[b]
        if tlo <= thi and _length(min(lo, tlo), max(hi, thi)) > beta * _length(tlo, thi):
            return _grow_up(T, b, box, lo, hi)  # bottom-up expansion
        _grow_total(T, b, box)
        L, R = bk_left[b], bk_right[b]
        hit_l = lo <= bk_hi[L] and bk_lo[L] <= hi
        hit_r = lo <= bk_hi[R] and bk_lo[R] <= hi
        if hit_l and hit_r:
            _grow_own(T, b, box)
            return b
        if hit_l:
            b = L
        elif hit_r:
            b = R
        else:  # minimum expansion, never making L and R overlap
            el = _length(min(lo, bk_lo[L]), max(hi, bk_hi[L]))
            er = _length(min(lo, bk_lo[R]), max(hi, bk_hi[R]))
            first, other = (L, R) if el < er else (R, L)
            nlo, nhi = min(lo, bk_lo[first]), max(hi, bk_hi[first])
            if nlo <= bk_hi[other] and bk_lo[other] <= nhi:
                _grow_own(T, b, box)
                return b
            b = first


# ------------------------------------------------------------- Algorithms 4, 5


@numba.njit(cache=True)
def _cluster_step(T, b, st_kind, st_node):
    """Algorithm 5 on bucket b (``BEStarTree._cluster``'s loop body)."""
    LF, PD, CN, PN, BKI = T[0], T[1], T[3], T[4], T[5]
    S = T[7]
    alpha, exh = T[9][1], T[9][3]
    c = BKI[3][b]
    if LF[1][c] <= CN[2][c]:
        return
    if BKI[5][b] or PD[1][c]:
        st_kind.append(PARTITION)
        st_node.append(c)
        return
    ids = _leaf_ids(LF, c)
    p = BKI[4][b]
    attr = PN[0][p]
    lo = gather(S[0], S[1], S[2], S[3], ids, attr)
    hi = gather(S[0], S[1], S[2], S[4], ids, attr)
    side = split(lo, hi, alpha, exh)
    if not np.any(side != 1):  # an atomic bucket: partitioned, not split (§IV-C)
        st_kind.append(PARTITION)
        st_node.append(c)
        return
    L = _new_bucket(T, p, b)
    R = _new_bucket(T, p, b)
    BKI[0][b], BKI[1][b], BKI[5][b] = L, R, 1
    stay = np.empty(ids.size, np.int64)
    ns = 0
    for t in range(ids.size):
        i = ids[t]
        if side[t] == 1:
            stay[ns] = i
            ns += 1
            continue
        ch = L if side[t] == 0 else R
        _leaf_add(T, BKI[3][ch], i)
        _grow_own(T, ch, _box(T, i, p))
    stay = stay[:ns]
    _leaf_set(LF, c, stay)
    _sum_set(T, CN[0][c], stay)
    _recompute_own(T, c)
    _sync(T, b)
    # Python: partition(c) now, then the work stack pops R, then L
    st_kind.append(CLUSTER)
    st_node.append(L)
    st_kind.append(CLUSTER)
    st_node.append(R)
    st_kind.append(PARTITION)
    st_node.append(c)


@numba.njit(cache=True)
def _partition_step(T, c, st_kind, st_node):
    """One round of Algorithm 4's loop on c-node c (``BEStarTree._partition``): the
    highest-ranked unused attribute gets a p-node, which is then clustered before the
    next round."""
    LF, PD, CN, PN, BKI = T[0], T[1], T[3], T[4], T[5]
    S = T[7]
    A = T[9][0]
    s_start, s_end, p_attr = S[0], S[1], S[2]
    n = LF[1][c]
    if n <= CN[2][c]:
        return
    ids = _leaf_ids(LF, c)
    # used: the path's attributes and the p-directory's
    nu = 0
    q = -1
    if c:
        q = BKI[4][CN[1][c]]
        nu = PN[6][q]
    m = PD[1][c]
    used = np.empty(nu + m, np.int64)
    for t in range(nu):
        used[t] = PN[7][PN[5][q] + t]
    for t in range(m):
        used[nu + t] = PD[3][PD[0][c] + t]
    tot = 0
    for t in range(ids.size):
        tot += s_end[ids[t]] - s_start[ids[t]]
    cand = np.empty(tot, np.int64)
    w = 0
    for t in range(ids.size):
        for j in range(s_start[ids[t]], s_end[ids[t]]):
            a = p_attr[j]
            hit = False
            for u in range(used.size):
                if used[u] == a:
                    hit = True
                    break
            if not hit:
                cand[w] = a
                w += 1
    if w == 0:  # UpdateClusterCapacity: nothing left to partition on
        CN[2][c] = max(A, 2 * n)
        return
    if T[9][4]:  # the selectivity ranking (§V-B's histogram)
        attr = rank_attribute(s_start, s_end, p_attr, S[3], S[4], ids, np.sort(used),
                              HIST_BUCKETS)  # fmt: skip
    else:  # optimistic popularity: the most frequent, ties by the smaller attribute
        cand = np.sort(cand[:w])
        attr = cand[0]
        best = 0
        t = 0
        while t < w:
            u = t
            while u < w and cand[u] == cand[t]:
                u += 1
            if u - t > best:
                best = u - t
                attr = cand[t]
            t = u
    p = _new_pnode(T, attr, c)
    root = PN[1][p]
    rc = BKI[3][root]
    stay = np.empty(ids.size, np.int64)
    ns = 0
    for t in range(ids.size):
        i = ids[t]
        j = _lower(p_attr, s_start[i], s_end[i], attr)
        if j < s_end[i] and p_attr[j] == attr:
            _insert_cdir(T, i, root)  # a leaf root bucket: grows its bounds
            _leaf_add(T, rc, i)
            PN[3][p] += 1
            _sum_add(T, PN[4][p], i)
        else:
            stay[ns] = i
            ns += 1
    stay = stay[:ns]
    _leaf_set(LF, c, stay)
    _sum_set(T, CN[0][c], stay)
    if c:
        _recompute_own(T, c)
        _sync(T, CN[1][c])
    # the loop's next round after clustering the new p-node
    st_kind.append(PARTITION)
    st_node.append(c)
    st_kind.append(CLUSTER)
    st_node.append(root)


@numba.njit(cache=True)
def _run(T, st_kind, st_node):
    while len(st_kind):
        kind = st_kind.pop()
        node = st_node.pop()
        if kind == PARTITION:
            _partition_step(T, node, st_kind, st_node)
        else:
            _cluster_step(T, node, st_kind, st_node)


@numba.njit(cache=True)
def _insert(T, i, st_kind, st_node):
    """Algorithm 1 from the root (``BEStarTree._insert_at``)."""
    PD, CN, PN, BKI = T[1], T[3], T[4], T[5]
    s_start, s_end, p_attr = T[7][0], T[7][1], T[7][2]
    pd_start, pd_len, _, pd_attr, pd_pn = PD
    pn_count = PN[3]
    c = 0
    while True:
        best, rank = -1, -1
        if pd_len[c]:
            nu = 0
            d0 = 0
            if c:
                q = BKI[4][CN[1][c]]
                nu = PN[6][q]
                d0 = PN[5][q]
            a0, a1 = pd_start[c], pd_start[c] + pd_len[c]
            for j in range(s_start[i], s_end[i]):
                a = p_attr[j]
                used = False
                for u in range(nu):
                    if PN[7][d0 + u] == a:
                        used = True
                        break
                if used:
                    continue
                at = _lower(pd_attr, a0, a1, a)
                if at < a1 and pd_attr[at] == a:
                    p = pd_pn[at]
                    if pn_count[p] > rank:
                        best, rank = p, pn_count[p]
        if best < 0:  # no partition: into the l-node
            _leaf_add(T, c, i)
            st_kind.append(PARTITION if c == 0 else CLUSTER)
            st_node.append(0 if c == 0 else CN[1][c])
            _run(T, st_kind, st_node)
            return
        b = _insert_cdir(T, i, PN[1][best])
        pn_count[best] += 1
        _sum_add(T, PN[4][best], i)
        c = BKI[3][b]


@numba.njit(cache=True)
def insert_many(S, LFa, PDa, SMa, CNa, PNa, BKIa, BKFa, sub, prm, ids):
    """Insert expressions ``ids`` one by one into the tree given by the column tuples
    (see ``BEStarTree._insert_numba``); ``sub`` (each expression's c-node) is updated
    in place; ``prm`` = (A, alpha, beta, exhaustive split?, selectivity ranking?);
    returns the grown column tuples in the same layout."""
    LF = (_ilist(LFa[0]), _ilist(LFa[1]), _ilist(LFa[2]), _ilist(LFa[3]))
    PD = (_ilist(PDa[0]), _ilist(PDa[1]), _ilist(PDa[2]), _ilist(PDa[3]), _ilist(PDa[4]))
    SM = (_ilist(SMa[0]), _ilist(SMa[1]), _ilist(SMa[2]), _ilist(SMa[3]), _flist(SMa[4]))
    CN = (_ilist(CNa[0]), _ilist(CNa[1]), _ilist(CNa[2]), _ilist(CNa[3]))
    PN = (_ilist(PNa[0]), _ilist(PNa[1]), _ilist(PNa[2]), _ilist(PNa[3]), _ilist(PNa[4]),
          _ilist(PNa[5]), _ilist(PNa[6]), _ilist(PNa[7]))  # fmt: skip
    BKI = (_ilist(BKIa[0]), _ilist(BKIa[1]), _ilist(BKIa[2]), _ilist(BKIa[3]),
           _ilist(BKIa[4]), _ilist(BKIa[5]), _ilist(BKIa[6]))  # fmt: skip
    BKF = (_flist(BKFa[0]), _flist(BKFa[1]), _flist(BKFa[2]), _flist(BKFa[3]), _flist(BKFa[4]))
    T = (LF, PD, SM, CN, PN, BKI, BKF, S, sub, prm)
    st_kind = [0]
    st_node = [0]
    st_kind.pop()
    st_node.pop()
    for t in range(ids.size):
        _insert(T, ids[t], st_kind, st_node)
    return (
        (_iarr(LF[0]), _iarr(LF[1]), _iarr(LF[2]), _iarr(LF[3])),
        (_iarr(PD[0]), _iarr(PD[1]), _iarr(PD[2]), _iarr(PD[3]), _iarr(PD[4])),
        (_iarr(SM[0]), _iarr(SM[1]), _iarr(SM[2]), _iarr(SM[3]), _farr(SM[4])),
        (_iarr(CN[0]), _iarr(CN[1]), _iarr(CN[2]), _iarr(CN[3])),
        (_iarr(PN[0]), _iarr(PN[1]), _iarr(PN[2]), _iarr(PN[3]), _iarr(PN[4]),
         _iarr(PN[5]), _iarr(PN[6]), _iarr(PN[7])),
        (_iarr(BKI[0]), _iarr(BKI[1]), _iarr(BKI[2]), _iarr(BKI[3]), _iarr(BKI[4]),
         _iarr(BKI[5]), _iarr(BKI[6])),
        (_farr(BKF[0]), _farr(BKF[1]), _farr(BKF[2]), _farr(BKF[3]), _farr(BKF[4])),
    )  # fmt: skip
