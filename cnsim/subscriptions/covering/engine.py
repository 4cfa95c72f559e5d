"""The G_k command loop of seed 001 §III-C in numba, over columnar arrays.

One call runs a batch of commands (subscribe / unsubscribe) against one relation graph
``G_k`` and its covering index, without returning to Python between commands; the
graph's Python API (:class:`cnsim.subscriptions.covering.graph.GkGraph`) runs every
single command through the same loop, so there is one implementation.

Notation (seed 001 §III): ``S`` the live subscriptions, ``cov_k(S, s)`` up to ``k``
of them covering ``s``; an edge ``t -> s`` says ``t`` covers ``s``; a subscription
is forwarded iff it had no in-edge when last examined.

* subscribe ``s``: ``C <- cov_k(S, s)`` (before ``s`` enters the index), insert ``s``,
  add the in-edges ``C -> s``; forward ``s`` iff ``C`` is empty.
* unsubscribe ``s``: delete ``s`` from the index, drop its in-edges and out-edges;
  every former out-neighbour left without an in-edge (an *orphan*) is queried again,
  in increasing slot order, and forwarded if still uncovered.

Graph arrays, by slot (``cap`` slots, ``k`` in-edges at most per node):

* ``gs[slot] = (indegree, outdegree, first out-edge, examined, forwarded, sid)``;
* ``inn[slot, :indegree]``: the in-neighbours in the order they were found;
* edge ``e = slot * k + j`` is ``inn[slot, j] -> slot``; ``ed[e] = (next, previous)``
  threads it into its source's doubly linked out-list, so that dropping a node costs
  its degree, not a search;
* ``free[:gm[NFREE]]``: a stack of free slots (a freed slot is reused first, as the
  Python reference does); ``gm`` the counters (see the names below).

The covering index is reached through ``ix_room``, ``ix_insert``, ``ix_delete`` and
``ix_query``, resolved at compile time to the
:class:`~cnsim.subscriptions.covering.base.Kernels` the index declared for the class
of its ``kernel_state()`` (:data:`~cnsim.subscriptions.covering.base.KERNELS`), so the
loop compiles once per index and is cached; a new index that declares its kernels
runs here with no change to this file.  Numba keys that cache on this file only, so a
change to the index functions (``kdtree.py``, ``naive.py``, ``zorder.py``,
``base.qualifies``) would leave the loop with their old machine code:
:data:`INDEX_SOURCES` is a digest of those files, and a test fails until it is brought
up to date — which changes this file, and so invalidates the cache.
"""

from __future__ import annotations

import numba
import numpy as np
from numba.extending import overload

from cnsim.subscriptions.covering.base import KERNELS, Kernels

SUB, UNSUB = 0, 1
# sha256 of base.py, kdtree.py, naive.py, zorder.py (in that order), first 16 hex digits:
# see the module docstring (tests/subscriptions/covering/test_engine_cache.py checks it)
INDEX_SOURCES = "79ba133b887f82e2"
# gs columns
INDEG, OUTDEG, OHEAD, EXAMINED, FWD, SID = range(6)
NEXT, PREV = 0, 1
# gm entries: free slots, next never-used slot, arrival counter, live points; the
# latest query's nodes and comparisons; then, counted per call (``gm[QS:]`` zeroed by
# the caller): covering queries / nodes visited / point comparisons on subscribe and
# on unsubscribe, re-forwarded entries written
(NFREE, FRESH, SEQ, NLIVE, LAST_NV, LAST_PC, QS, NVS, PCS, QU, NVU, PCU, NRF) = range(13)
GM_SIZE = 13
# return codes beyond the index's own (1..9)
DONE, NEED_SLOTS, NEED_RF, BAD_UNSUB = 0, 10, 11, 12


def _kernels(st) -> Kernels | None:
    """The kernels an index declared for the numba type ``st`` of its kernel state."""
    return KERNELS.get(getattr(st, "instance_class", None))


def _index_call(kernel: str):
    """``ix_<kernel>(st, ...)``: the index's kernel of that name (a field of
    :class:`Kernels`), chosen at compile time by the type of ``st``."""

    def call(st, *args):  # pragma: no cover - numba overload below
        raise NotImplementedError

    @overload(call)
    def _ol(st, *args):
        if (kn := _kernels(st)) is not None:
            fn = getattr(kn, kernel)
            return lambda st, *args: fn(st, *args)
        return None

    return call


ix_room, ix_insert, ix_delete, ix_query = map(_index_call, ("room", "insert", "delete", "query"))


@numba.njit(cache=True, inline="always")
def _link(gs, inn, ed, k, src, dst):
    """Append the edge ``src -> dst``."""
    j = gs[dst, INDEG]
    inn[dst, j] = src
    gs[dst, INDEG] = j + 1
    e = dst * k + j
    h = gs[src, OHEAD]
    ed[e, NEXT] = h
    ed[e, PREV] = -1
    if h >= 0:
        ed[h, PREV] = e
    gs[src, OHEAD] = e
    gs[src, OUTDEG] += 1


@numba.njit(cache=True, inline="always")
def _unthread(gs, ed, src, e):
    """Take edge ``e`` out of ``src``'s out-list."""
    n = ed[e, NEXT]
    p = ed[e, PREV]
    if p >= 0:
        ed[p, NEXT] = n
    else:
        gs[src, OHEAD] = n
    if n >= 0:
        ed[n, PREV] = p
    gs[src, OUTDEG] -= 1


@numba.njit(cache=True)
def _remove_in_edge(gs, inn, ed, k, c, j):
    """Remove in-edge ``j`` of ``c`` (its source's out-list is the caller's), keeping
    the order of the others: each later edge moves down one position."""
    n = gs[c, INDEG]
    for t in range(j + 1, n):
        e = c * k + t
        f = e - 1
        src = inn[c, t]
        nx = ed[e, NEXT]
        pv = ed[e, PREV]
        ed[f, NEXT] = nx
        ed[f, PREV] = pv
        if pv >= 0:
            ed[pv, NEXT] = f
        else:
            gs[src, OHEAD] = f
        if nx >= 0:
            ed[nx, PREV] = f
        inn[c, t - 1] = src
    gs[c, INDEG] = n - 1


@numba.njit(cache=True)
def gk_run(
    ist,
    P,
    seq,
    alive,
    gs,
    inn,
    ed,
    free,
    gm,
    k,
    op,
    ref,
    sids,
    pts,
    i0,
    cmd_slot,
    fwd_out,
    rf_ptr,
    rf_buf,
    kids,
    out,
    cost,
):
    """Run commands ``i0..`` of ``op``; returns ``(i, code)``: ``code == DONE`` when all
    ran, else command ``i`` did not start and needs what ``code`` names (Python grows
    it and calls again from ``i``).  ``ref[i]``: for a subscribe, its row of ``pts``;
    for an unsubscribe, the slot, or ``-(j + 1)`` for the subscribe command ``j`` of
    this batch.  Writes ``cmd_slot[i]`` (the slot a subscribe took), ``fwd_out[i]``
    and the re-forwarded ``(slot, sid)`` pairs of unsubscribe ``i`` at
    ``rf_buf[rf_ptr[i]:rf_ptr[i + 1]]``; with ``cost`` of one row per command (else
    zero rows), its covering queries, nodes visited and point comparisons at
    ``cost[i]`` (the overlay's batch replay attributes them to commands)."""
    D = P.shape[1]
    per_cmd = cost.shape[0] > 0
    for i in range(i0, op.shape[0]):
        rf_ptr[i] = gm[NRF]
        if op[i] == SUB:
            if gm[NFREE] > 0:
                slot = free[gm[NFREE] - 1]
            else:
                slot = gm[FRESH]
                if slot >= P.shape[0]:
                    return i, NEED_SLOTS
            r = ref[i]
            for j in range(D):
                P[slot, j] = pts[r, j]
            code = ix_room(ist, P, slot)
            if code != 0:
                return i, code
            if gm[NFREE] > 0:
                gm[NFREE] -= 1
            else:
                gm[FRESH] += 1
            sq = gm[SEQ] + 1
            kk = min(k, gm[NLIVE] + 1)
            found, nv, pc = ix_query(ist, P, seq, P[slot], sq, kk, True, out)
            gm[QS] += 1
            gm[NVS] += nv
            gm[PCS] += pc
            gm[LAST_NV] = nv
            gm[LAST_PC] = pc
            if per_cmd:
                cost[i, 0] = 1
                cost[i, 1] = nv
                cost[i, 2] = pc
            seq[slot] = sq
            alive[slot] = True
            ix_insert(ist, P, slot)
            gm[NLIVE] += 1
            gm[SEQ] = sq
            gs[slot, INDEG] = 0
            gs[slot, OUTDEG] = 0
            gs[slot, OHEAD] = -1
            gs[slot, EXAMINED] = sq
            gs[slot, SID] = sids[i]
            for j in range(found):
                _link(gs, inn, ed, k, out[j], slot)
            f = found == 0
            gs[slot, FWD] = f
            fwd_out[i] = f
            cmd_slot[i] = slot
            continue
        r = ref[i]
        slot = r if r >= 0 else cmd_slot[-r - 1]
        if slot < 0 or not alive[slot]:
            return i, BAD_UNSUB
        if gm[NRF] + gs[slot, OUTDEG] > rf_buf.shape[0]:
            return i, NEED_RF
        if r < 0:
            cmd_slot[-r - 1] = -2  # unsubscribed: a second unsubscribe is an error
        ix_delete(ist, P, slot)
        alive[slot] = False
        gm[NLIVE] -= 1
        for j in range(gs[slot, INDEG]):
            _unthread(gs, ed, inn[slot, j], slot * k + j)
        gs[slot, INDEG] = 0
        nch = 0
        e = gs[slot, OHEAD]
        while e >= 0:
            nx = ed[e, NEXT]
            c = e // k
            _remove_in_edge(gs, inn, ed, k, c, e - c * k)
            kids[nch] = c
            nch += 1
            e = nx
        gs[slot, OHEAD] = -1
        gs[slot, OUTDEG] = 0
        gs[slot, FWD] = 0
        orphans = np.sort(kids[:nch])
        for t in orphans:
            if gs[t, INDEG] > 0:
                continue
            kk = min(k, gm[NLIVE] + 1)
            found, nv, pc = ix_query(ist, P, seq, P[t], seq[t], kk, True, out)
            gm[QU] += 1
            gm[NVU] += nv
            gm[PCU] += pc
            gm[LAST_NV] = nv
            gm[LAST_PC] = pc
            if per_cmd:
                cost[i, 0] += 1
                cost[i, 1] += nv
                cost[i, 2] += pc
            gs[t, EXAMINED] = gm[SEQ]
            for j in range(found):
                _link(gs, inn, ed, k, out[j], t)
            if found == 0:
                gs[t, FWD] = 1
                rf_buf[gm[NRF], 0] = t
                rf_buf[gm[NRF], 1] = gs[t, SID]
                gm[NRF] += 1
        free[gm[NFREE]] = slot
        gm[NFREE] += 1
    rf_ptr[op.shape[0]] = gm[NRF]
    return op.shape[0], DONE


def supports(index) -> bool:
    """Whether the command loop can drive this index (its class declares kernels)."""
    return getattr(type(index), "kernels", None) is not None


# ---- G and the poset: the forwarded set over a command stream ---------------------------
# By Property 1 (exact for G and the poset), a subscription is forwarded iff no live
# subscription strictly covers it, and the overlay withdraws what a newly forwarded one
# covers: the forwarded set is always the maximal elements of S.  ``g_run`` keeps that
# set without storing G's edges (G can hold |S|^2 / 36 of them at d = 2): per slot only
# ``indeg`` (live strict coverers), the forwarded flag and the id, over the same index
# and with the same slot reuse, arrival numbers and counted queries as the Python
# ``FullGraph`` / ``PosetGraph`` (subscribe: insert, then ``covering`` and ``covered``
# with k = all, both counted; unsubscribe: no counted query).
W_SUB, W_UNSUB, W_WITHDRAW = 0, 1, 2  # the kinds of message g_run writes


@numba.njit(cache=True)
def g_run(
    ist, P, seq, alive, indeg, fwd, gsid, free, gm, slot_of, op, sids, pts, i0,
    o_row, o_kind, o_sid, up_buf, dn_buf, cost,
):  # fmt: skip
    """Run commands ``i0..`` of ``op`` (subscribe ``sids[i]`` with point ``pts[i]``, or
    unsubscribe it; ``slot_of[sid]`` its slot, -1 when not live) through ``G`` and write
    the messages for the neighbour at ``o_*[gm[NRF]:]``: per subscribe, the subscribe if
    forwarded, then the withdrawals (``W_WITHDRAW``) of the forwarded subscriptions it
    covers in slot order; per unsubscribe, the subscriptions it leaves uncovered in slot
    order, then the unsubscription if it was forwarded.  Returns ``(i, code)`` as
    :func:`gk_run`; ``cost[i]`` receives command ``i``'s counted queries, nodes visited
    and point comparisons."""
    for i in range(i0, op.shape[0]):
        if gm[NRF] + gm[NLIVE] + 2 > o_row.shape[0]:
            return i, NEED_RF
        s = sids[i]
        if op[i] == SUB:
            if gm[NFREE] > 0:
                slot = free[gm[NFREE] - 1]
            else:
                slot = gm[FRESH]
                if slot >= P.shape[0] or slot + 1 >= up_buf.shape[0]:
                    return i, NEED_SLOTS
            for j in range(P.shape[1]):
                P[slot, j] = pts[i, j]
            code = ix_room(ist, P, slot)
            if code != 0:
                return i, code
            if gm[NFREE] > 0:
                gm[NFREE] -= 1
            else:
                gm[FRESH] += 1
            sq = gm[SEQ] + 1
            seq[slot] = sq
            alive[slot] = True
            ix_insert(ist, P, slot)
            gm[NLIVE] += 1
            gm[SEQ] = sq
            gsid[slot] = s
            slot_of[s] = slot
            kk = gm[NLIVE] + 1
            fu, nv, pc = ix_query(ist, P, seq, P[slot], sq, kk, True, up_buf)
            cost[i, 0] += 1
            cost[i, 1] += nv
            cost[i, 2] += pc
            fd, nv, pc = ix_query(ist, P, seq, P[slot], sq, kk, False, dn_buf)
            cost[i, 0] += 1
            cost[i, 1] += nv
            cost[i, 2] += pc
            gm[QS] += 2
            indeg[slot] = fu
            for j in range(fd):
                indeg[dn_buf[j]] += 1
            if fu > 0:
                fwd[slot] = False
                continue
            fwd[slot] = True
            m = gm[NRF]
            o_row[m], o_kind[m], o_sid[m] = i, W_SUB, s
            m += 1
            nw = 0
            for j in range(fd):
                c = dn_buf[j]
                if fwd[c]:
                    dn_buf[nw] = c
                    nw += 1
            gone = np.sort(dn_buf[:nw])
            for c in gone:
                fwd[c] = False
                o_row[m], o_kind[m], o_sid[m] = i, W_WITHDRAW, gsid[c]
                m += 1
            gm[NRF] = m
            continue
        slot = slot_of[s] if 0 <= s < slot_of.shape[0] else -1
        if slot < 0 or not alive[slot]:
            return i, BAD_UNSUB
        was = fwd[slot]
        # the out-neighbours in G: every live subscription it strictly covers (not a
        # query of the protocol, which reads them off its edges: not counted)
        fd, nv, pc = ix_query(ist, P, seq, P[slot], seq[slot], gm[NLIVE] + 1, False, dn_buf)
        ix_delete(ist, P, slot)
        alive[slot] = False
        gm[NLIVE] -= 1
        slot_of[s] = -1
        fwd[slot] = False
        indeg[slot] = 0
        nr = 0
        for j in range(fd):
            c = dn_buf[j]
            indeg[c] -= 1
            if indeg[c] == 0 and not fwd[c]:
                dn_buf[nr] = c
                nr += 1
        m = gm[NRF]
        back = np.sort(dn_buf[:nr])
        for c in back:
            fwd[c] = True
            o_row[m], o_kind[m], o_sid[m] = i, W_SUB, gsid[c]
            m += 1
        if was:
            o_row[m], o_kind[m], o_sid[m] = i, W_UNSUB, s
            m += 1
        gm[NRF] = m
        free[gm[NFREE]] = slot
        gm[NFREE] += 1
    return op.shape[0], DONE
