"""The dynamic BE*-tree's one-by-one insertion in numba (seed 002 §IV-V, Algorithms 1,
2, 4 and 5, expression after expression): ``BEStarTree.insert_many`` into any
non-rigid tree.  It builds exactly the tree the Python path (``BEStarTree._insert_at``,
kept as the reference, used by single ``insert`` calls) builds, node for node: the
same node numbering, l-nodes, p-directories, weight summaries, bounds and boxes
(``tests/.../test_betree_build.py`` compares every table).

The node tables are plain numpy columns with room to spare: a table's columns share
one capacity (their size) and its used length is a counter in ``U``; the kernel never
reallocates.  Before every insertion and every step of the task stack it checks that
each table has room for the most that insertion or step can add (:func:`_room_insert`,
:func:`_room_step`, bounds from the sizes involved); if one has not, it returns with the
task stack as it is, the caller grows the short tables and calls again, which resumes
exactly there (:func:`insert_many`).  (The previous version kept the tables in numba
typed lists, ~30 ns per element access against ~1 ns for an array.)

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

#: numba without reference counting (``_nrt=False``), for the functions an insertion
#: runs through: they allocate nothing (a box goes into the scratch rows ``T[12]``, the
#: descent's flags into ``T[13]``) and only read and write the caller's tables, so no
#: count is needed; with it, every call counted every array of the table tuple ``T`` up
#: and down (~60% of the insertion's time).  Such a function cannot allocate (numba
#: refuses to compile it), and returns scalars only.
_borrowing = numba.njit(cache=True, _nrt=False)
#: ... and inlined into its caller, for those an insertion runs once per level
#: (:func:`_descend`, :func:`_sum_add`, :func:`_leaf_add`): a call passes ``T`` as its
#: ~60 arrays' fields one by one (~350 values written to the stack), which cost the
#: descent ~20% of its time
_inlined = numba.njit(cache=True, _nrt=False, inline="always")


# ----------------------------------------------------------------- used lengths
# U[...]: the used length of each growable table (rows, or a pool's entries), and the
# longest l-node (for the room checks; never decreases here)
LF_ROWS, LF_POOL, PD_ROWS, PD_POOL, SM_ROWS, SM_POOL = 0, 1, 2, 3, 4, 5
CN_ROWS, PN_ROWS, PN_DIMS, BK_ROWS, BX_POOL, MAX_LEAF = 6, 7, 8, 9, 10, 11
N_COUNTERS = 12


@numba.njit(cache=True, inline="always")
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


@numba.njit(cache=True, inline="always")
def _move(pool, s, new, n, r):
    """Copy ``pool[s : s + n]`` to ``pool[new : new + n]`` and zero the rest up to ``r``."""
    for t in range(n):
        pool[new + t] = pool[s + t]
    for t in range(n, r):
        pool[new + t] = 0


@numba.njit(cache=True, inline="always")
def _relocate(slab, U, pool_end, lst, need):
    """Make list ``lst`` of a slab (``start, length, room`` its first columns) hold
    ``need`` entries: ``(old start, new start, length, new room)`` for the caller to
    :func:`_move` each of its pools, the new start -1 if it has the room already."""
    start, length, room = slab[0], slab[1], slab[2]
    s, n = start[lst], length[lst]
    if need <= room[lst]:
        return s, -1, n, n
    r = max(need, 2 * room[lst])
    new = U[pool_end]
    U[pool_end] = new + r
    start[lst] = new
    room[lst] = r
    return s, new, n, r


@numba.njit(cache=True, inline="always")
def _open(slab, U, rows, pool_end, r):
    """A new empty list with room ``r`` at the end of a slab: its row and start (the
    caller zeroes its pools there)."""
    row, at = U[rows], U[pool_end]
    slab[0][row] = at
    slab[1][row] = 0
    slab[2][row] = r
    U[rows] = row + 1
    U[pool_end] = at + r
    return row, at


@_borrowing
def _reserve_leaf(LF, U, lst, need):
    """Room for ``need`` entries in list ``lst`` of the l-node slab ``LF``."""
    s, new, n, r = _relocate(LF, U, LF_POOL, lst, need)
    if new >= 0:
        _move(LF[3], s, new, n, r)


@_borrowing
def _reserve_two(slab, U, pool_end, lst, need):
    """:func:`_reserve_leaf` for a slab of two pools (``PD``, ``SM``)."""
    s, new, n, r = _relocate(slab, U, pool_end, lst, need)
    if new >= 0:
        _move(slab[3], s, new, n, r)
        _move(slab[4], s, new, n, r)


@_borrowing
def _insert_two(slab, U, pool_end, lst, pos, x, y):
    """``(x, y)`` inserted at position ``pos`` of list ``lst`` of a slab of two pools
    (``PD``, ``SM``), the later entries moved up one."""
    start, length, _, px, py = slab
    n = length[lst]
    _reserve_two(slab, U, pool_end, lst, n + 1)
    s0 = start[lst]
    for t in range(s0 + n, s0 + pos, -1):
        px[t] = px[t - 1]
        py[t] = py[t - 1]
    px[s0 + pos] = x
    py[s0 + pos] = y
    length[lst] = n + 1


@_borrowing
def _new_leaf(LF, U, r):
    """A new empty list of room ``r`` at the end of the l-node slab ``LF``."""
    at = _open(LF, U, LF_ROWS, LF_POOL, r)[1]
    _move(LF[3], at, at, 0, r)


@_borrowing
def _new_two(slab, U, rows, pool_end, r):
    """:func:`_new_leaf` for a slab of two pools (``PD``, ``SM``); its row."""
    row, at = _open(slab, U, rows, pool_end, r)
    _move(slab[3], at, at, 0, r)
    _move(slab[4], at, at, 0, r)
    return row


@numba.njit(cache=True)
def _leaf_ids(LF, c):
    start, length, _, pool = LF
    return pool[start[c] : start[c] + length[c]].copy()


@numba.njit(cache=True)
def _leaf_set(LF, U, c, ids):
    _reserve_leaf(LF, U, c, ids.size)
    start, length, _, pool = LF
    for t in range(ids.size):
        pool[start[c] + t] = ids[t]
    length[c] = ids.size
    U[MAX_LEAF] = max(U[MAX_LEAF], ids.size)


@numba.njit(cache=True)
def _sum_set(T, lst, ids):
    """The weight summary of ``ids`` (``BEStarTree._sum_rebuild``)."""
    SM = T[2]
    S = T[7]
    ka, kw = summary(S[0], S[1], S[2], S[5], ids)
    _reserve_two(SM, T[10], SM_POOL, lst, ka.size)
    start, length, _, sa, sw = SM
    for t in range(ka.size):
        sa[start[lst] + t] = ka[t]
        sw[start[lst] + t] = kw[t]
    length[lst] = ka.size


@_inlined
def _sum_add(T, lst, i):
    """Fold expression i into a weight summary (max weight per attribute)."""
    SM = T[2]
    s_start, s_end, p_attr, _, _, p_w = T[7]
    start, length, _, sa, sw = SM
    for j in range(s_start[i], s_end[i]):
        a = p_attr[j]
        w = p_w[j]
        s0 = start[lst]
        s1 = s0 + length[lst]
        at = _lower(sa, s0, s1, a)
        if at < s1 and sa[at] == a:
            if sw[at] < w:
                sw[at] = w
            continue
        _insert_two(SM, T[10], SM_POOL, lst, at - s0, a, w)


@_inlined
def _leaf_add(T, c, i):
    LF, U = T[0], T[10]
    n = LF[1][c]
    _reserve_leaf(LF, U, c, n + 1)
    LF[3][LF[0][c] + n] = i
    LF[1][c] = n + 1
    U[MAX_LEAF] = max(U[MAX_LEAF], n + 1)
    _sum_add(T, T[3][0][c], i)
    T[8][i] = c


# ------------------------------------------------------------------------ nodes


@_borrowing
def _new_cnode(T, bucket):
    LF, PD, SM, CN, U = T[0], T[1], T[2], T[3], T[10]
    A = T[9][0]
    cn_sum, cn_bucket, cn_cap, cn_bx = CN
    c = U[CN_ROWS]
    U[CN_ROWS] = c + 1
    _new_leaf(LF, U, A + 1)
    _new_two(PD, U, PD_ROWS, PD_POOL, 2)
    cn_sum[c] = _new_two(SM, U, SM_ROWS, SM_POOL, 4)
    cn_bucket[c] = bucket
    cn_cap[c] = A
    cn_bx[c] = -1
    return c


@_borrowing
def _new_box(bx, U, k):
    at = U[BX_POOL]
    for d in range(k):
        bx[at + 2 * d] = INF
        bx[at + 2 * d + 1] = -INF
    U[BX_POOL] = at + 2 * k
    return at


@_borrowing
def _new_bucket(T, p, parent):
    CN, PN, BKI, BKF, U = T[3], T[4], T[5], T[6], T[10]
    bk_left, bk_right, bk_parent, bk_cnode, bk_pnode, bk_split, bk_bx = BKI
    bk_lo, bk_hi, bk_olo, bk_ohi, bx = BKF
    b = U[BK_ROWS]
    U[BK_ROWS] = b + 1
    bk_lo[b] = INF
    bk_hi[b] = -INF
    bk_olo[b] = INF
    bk_ohi[b] = -INF
    bk_left[b] = -1
    bk_right[b] = -1
    bk_parent[b] = parent
    bk_pnode[b] = p
    bk_split[b] = 0
    bk_cnode[b] = -1
    k = PN[6][p]
    bk_bx[b] = _new_box(bx, U, k)
    c = _new_cnode(T, b)
    bk_cnode[b] = c
    CN[3][c] = _new_box(bx, U, k)
    return b


@_borrowing
def _new_pnode(T, attr, c):
    PD, SM, CN, PN, BKI, U = T[1], T[2], T[3], T[4], T[5], T[10]
    pn_attr, pn_root, pn_cnode, pn_count, pn_sum, pn_dstart, pn_dlen, dims = PN
    p = U[PN_ROWS]
    U[PN_ROWS] = p + 1
    pn_attr[p] = attr
    pn_cnode[p] = c
    pn_count[p] = 0
    pn_sum[p] = _new_two(SM, U, SM_ROWS, SM_POOL, 4)
    at = U[PN_DIMS]
    d = at
    if c:
        q = BKI[4][CN[1][c]]
        for t in range(pn_dstart[q], pn_dstart[q] + pn_dlen[q]):
            dims[d] = dims[t]
            d += 1
        pn_dlen[p] = pn_dlen[q] + 1
    else:
        pn_dlen[p] = 1
    dims[d] = attr
    U[PN_DIMS] = d + 1
    pn_dstart[p] = at
    pn_root[p] = -1
    pn_root[p] = _new_bucket(T, p, -1)
    # into the p-directory, sorted by attribute
    start, length, _, pa, _ = PD
    pos = _lower(pa, start[c], start[c] + length[c], attr) - start[c]
    _insert_two(PD, U, PD_POOL, c, pos, attr, p)
    return p


# ------------------------------------------------------------------------ boxes


@numba.njit(cache=True, inline="always")
def _pred(S, i, attr):
    """Index of expression i's predicate on ``attr`` (it must have one)."""
    s_start, s_end, p_attr = S[0], S[1], S[2]
    return _lower(p_attr, s_start[i], s_end[i], attr)


@numba.njit(cache=True, inline="always")
def _box(T, i, p):
    """Expression i's box over p-node p's path attributes: the first k rows of the
    scratch ``T[12]`` (k x 2; no array is allocated per call)."""
    dims, p_attr, p_lo, p_hi = T[4][7], T[7][2], T[7][3], T[7][4]
    k = T[4][6][p]
    d0 = T[4][5][p]
    a, e = T[7][0][i], T[7][1][i]
    box = T[12]
    for d in range(k):
        j = _lower(p_attr, a, e, dims[d0 + d])
        box[d, 0] = p_lo[j]
        box[d, 1] = p_hi[j]
    return box


@numba.njit(cache=True, inline="always")
def _union(bx, at, box, k):
    for d in range(k):
        if box[d, 0] < bx[at + 2 * d]:
            bx[at + 2 * d] = box[d, 0]
        if box[d, 1] > bx[at + 2 * d + 1]:
            bx[at + 2 * d + 1] = box[d, 1]


@numba.njit(cache=True, inline="always")
def _sync(T, b):
    """Copy the active dimension (the last row) of b's boxes into the bounds."""
    bx = T[6][4]  # (arrays taken one by one: each one unpacked is reference-counted)
    k = T[4][6][T[5][4][b]]
    t = T[5][6][b] + 2 * (k - 1)
    o = T[3][3][T[5][3][b]] + 2 * (k - 1)
    T[6][0][b] = bx[t]
    T[6][1][b] = bx[t + 1]
    T[6][2][b] = bx[o]
    T[6][3][b] = bx[o + 1]


@numba.njit(cache=True, inline="always")
def _grow_own(T, b, box):
    bx = T[6][4]
    k = T[4][6][T[5][4][b]]
    _union(bx, T[3][3][T[5][3][b]], box, k)
    _union(bx, T[5][6][b], box, k)
    _sync(T, b)


@numba.njit(cache=True, inline="always")
def _grow_total(T, b, box):
    _union(T[6][4], T[5][6][b], box, T[4][6][T[5][4][b]])
    _sync(T, b)


@_borrowing
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


@_borrowing
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


@_borrowing
def _insert_cdir(T, i, b):
    """Algorithm 2: the bucket whose c-node receives expression i."""
    PN, S = T[4], T[7]
    p = T[5][4][b]
    j = _pred(S, i, PN[0][p])
    return _descend(T, b, _box(T, i, p), S[3][j], S[4][j])


@_inlined
def _descend(T, b, box, lo, hi):
    """Algorithm 2 from bucket b for an expression whose box over b's p-node's path
    attributes is ``box`` and whose interval on its attribute is ``[lo, hi]``."""
    BKI, BKF = T[5], T[6]
    beta = T[9][2]
    bk_left, bk_right, _, _, _, bk_split, _ = BKI
    bk_lo, bk_hi = BKF[0], BKF[1]
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
    _leaf_set(LF, T[10], c, stay)
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
    _leaf_set(LF, T[10], c, stay)
    _sum_set(T, CN[0][c], stay)
    if c:
        _recompute_own(T, c)
        _sync(T, CN[1][c])
    # the loop's next round after clustering the new p-node
    st_kind.append(PARTITION)
    st_node.append(c)
    st_kind.append(CLUSTER)
    st_node.append(root)


# ------------------------------------------------------------------ room checks
# The most one insertion's descent (levels <= E, the longest expression: Algorithm 2's
# new parent and sibling buckets per level, the p-nodes' summaries, the final l-node)
# or one task (two new buckets or a p-node, at most s expressions moved, s the l-node's
# size) can add to each table; E bounds a path's attributes, D the attributes (a summary
# or p-directory holds at most D entries).  A list of final length m grown by doubling
# from any room has taken at most 4m of its pool; everything is doubled again for slack.


@_borrowing
def _free_ok(T, need):
    """Whether every table has ``need`` free (``T[11]``: the tables' capacities, per
    counter, as the caller measured them)."""
    cap, U = T[11], T[10]
    ok = True
    for g in range(N_COUNTERS - 1):
        if cap[g] - U[g] < need[g]:
            ok = False
    return ok


@_borrowing
def _room_insert(T, need):
    """Room for one insertion's descent and its l-node (Algorithms 1, 2)."""
    A, E, D = T[9][0], T[9][5], T[9][6]
    m = T[10][MAX_LEAF]
    rows = 2 * E + 2
    need[LF_ROWS] = need[PD_ROWS] = need[CN_ROWS] = need[BK_ROWS] = rows
    need[SM_ROWS] = rows
    need[PN_ROWS] = need[PN_DIMS] = 0
    need[LF_POOL] = 2 * (rows * (A + 1) + 2 * (m + 1))
    need[PD_POOL] = 2 * (2 * rows)
    need[SM_POOL] = 2 * (4 * rows + 4 * (E + 1) * (D + 1))
    need[BX_POOL] = 2 * (4 * rows * E)
    return _free_ok(T, need)


@_borrowing
def _room_step(T, s, need):
    """Room for one task (Algorithm 4's round or Algorithm 5) on an l-node of size s."""
    A, E, D = T[9][0], T[9][5], T[9][6]
    need[LF_ROWS] = need[PD_ROWS] = need[CN_ROWS] = need[BK_ROWS] = 4
    need[SM_ROWS] = 6
    need[PN_ROWS] = 2
    need[PN_DIMS] = 2 * (E + 1)
    need[LF_POOL] = 2 * (2 * (A + 1) + 4 * (s + 1) + 4 * (s + 1))
    need[PD_POOL] = 2 * (4 + 4 * (D + 1))
    need[SM_POOL] = 2 * (12 + 4 * 4 * (D + 1) + 2 * (D + 1))
    need[BX_POOL] = 2 * (4 * 2 * E)
    return _free_ok(T, need)


@numba.njit(cache=True)
def _run(T, st_kind, st_node, need):
    """Run the task stack to its end; False (the stack kept) where a table is short of
    room for the next task."""
    while len(st_kind):
        kind = st_kind[-1]
        node = st_node[-1]
        c = node if kind == PARTITION else T[5][3][node]
        if not _room_step(T, T[0][1][c], need):
            return False
        st_kind.pop()
        st_node.pop()
        if kind == PARTITION:
            _partition_step(T, node, st_kind, st_node)
        else:
            _cluster_step(T, node, st_kind, st_node)
    return True


@_borrowing
def _insert(T, i):
    """Algorithm 1 from the root (``BEStarTree._insert_at``) down to the l-node that
    takes expression i: that c-node if its l-node now overflows (Algorithm 4 at the
    root, else 5 on its bucket: the caller's tasks), else -1."""
    PD, CN, PN, BKI = T[1], T[3], T[4], T[5]
    s_start, s_end, p_attr, p_lo, p_hi = T[7][0], T[7][1], T[7][2], T[7][3], T[7][4]
    pd_start, pd_len, _, pd_attr, pd_pn = PD
    pn_count = PN[3]
    # The path's attributes are those of the p-nodes the descent chose, so they are
    # kept as they are chosen: ``taken`` flags i's predicates on them, and the box
    # over them (``T[12]``, in path order) gains a row per level.
    j0, e = s_start[i], s_end[i]
    taken = T[13]
    for j in range(e - j0):
        taken[j] = 0
    box = T[12]
    k = 0
    c = 0
    while True:
        best, rank, jb = -1, -1, -1
        if pd_len[c]:
            a0, a1 = pd_start[c], pd_start[c] + pd_len[c]
            for j in range(j0, e):
                if taken[j - j0]:
                    continue
                a = p_attr[j]
                at = _lower(pd_attr, a0, a1, a)
                if at < a1 and pd_attr[at] == a:
                    p = pd_pn[at]
                    if pn_count[p] > rank:
                        best, rank, jb = p, pn_count[p], j
        if best < 0:  # no partition: into the l-node
            _leaf_add(T, c, i)
            return c if T[0][1][c] > CN[2][c] else -1
        taken[jb - j0] = 1
        box[k, 0] = p_lo[jb]
        box[k, 1] = p_hi[jb]
        k += 1
        b = _descend(T, PN[1][best], box, p_lo[jb], p_hi[jb])
        pn_count[best] += 1
        _sum_add(T, PN[4][best], i)
        c = BKI[3][b]


@numba.njit(cache=True)
def insert_many(S, LF, PD, SM, CN, PN, BKI, BKF, U, cap, sub, prm, ids, t0, st_kind,
                st_node, need):  # fmt: skip
    """Insert expressions ``ids[t0:]`` one by one into the tree given by the column
    tuples (see ``BEStarTree._insert_numba``), their used lengths in ``U`` (updated in
    place, as every column and ``sub``, each expression's c-node) and capacities in
    ``cap`` (indexed like ``U``); ``prm`` = (A, alpha,
    beta, exhaustive split?, selectivity ranking?, E, D) (:func:`_room_insert`).  First
    runs the tasks left in ``st_kind`` / ``st_node`` by a previous call.  Returns the
    position in ``ids`` reached: ``ids.size`` with an empty task stack when done;
    otherwise ``need`` holds the room the next insertion or task needs, to be made by
    growing the columns before calling again with ``t0`` = the returned position."""
    T = (LF, PD, SM, CN, PN, BKI, BKF, S, sub, prm, U, cap, np.empty((prm[5] + 1, 2)),
         np.empty(prm[5] + 1, np.int64))
    if not _run(T, st_kind, st_node, need):
        return t0
    for t in range(t0, ids.size):
        if not _room_insert(T, need):
            return t
        c = _insert(T, ids[t])
        if c < 0:
            continue
        st_kind.append(PARTITION if c == 0 else CLUSTER)
        st_node.append(0 if c == 0 else CN[1][c])
        if not _run(T, st_kind, st_node, need):
            return t + 1
    return ids.size
