"""Relation graphs (seed 001 §III): which subscriptions a broker must forward.

One graph per neighbour.  Nodes are the live subscriptions received from everywhere
else; an edge ``t -> s`` says ``t`` covers ``s`` (strict order: identical boxes are
ordered by arrival, see ``base``).  A subscription is forwarded to the neighbour iff it
had no in-edge when it was (last) examined.  The API the overlay calls per neighbour::

    g = make_graph("g1", d, index="kdtree")   # or "gk" with k=..., "full", "poset"
    g.subscribe(sid, lo, hi) -> bool         # forward the subscription now?
    g.forwarded(sid) -> bool                 # (check before unsubscribing: forward the
    g.unsubscribe(sid) -> list[sid]          #  unsubscription too?) subscriptions to
                                             #  forward now, because no longer covered

* ``GkGraph`` (``G_k``, the §III-C algorithm): subscribe queries ``cov_k`` once and adds
  in-edges from the answers; unsubscribe removes the node and re-queries each
  out-neighbour left with no in-edge ("orphan"), forwarding those still uncovered.
  In-edges are only added when a node is examined, so a subscription covered only by
  later arrivals keeps in-degree 0 (and stays forwarded, as §III-A allows).
* ``FullGraph`` (``G``): every covering pair is an edge; subscribe asks the index for
  all subscriptions covering the new one and all it covers; unsubscribe needs no query.
* ``PosetGraph`` (SIENA's strict poset): the transitive reduction of ``G``; subscribe
  makes the same two queries and links the new node between its minimal coverers and
  maximal covered ones; unsubscribe links the orphaned children to the removed
  node's parents that do not already reach them.

Every graph counts its covering queries and their cost (nodes visited, point
comparisons) split into subscribe and unsubscribe (``stats()``).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import ClassVar

import numpy as np

from cnsim.errors import InputError
from cnsim.subscriptions.covering.base import ALL, CoveringIndex, strictly_covers

OPS = ("subscribe", "unsubscribe")


def make_index(index: str | CoveringIndex, d: int, **params) -> CoveringIndex:
    """An index by name (``naive``, ``kdtree``, ``zorder``) or the instance given."""
    if isinstance(index, CoveringIndex):
        if index.d != d or len(index):
            raise InputError("the index given must be empty and of the graph's dimension")
        return index
    from cnsim.subscriptions.covering import INDEXES

    if index not in INDEXES:
        raise InputError(f"unknown covering index {index!r}; one of {sorted(INDEXES)}")
    return INDEXES[index](d, **params)


class RelationGraph:
    """Common bookkeeping: slots, arrival numbers, forwarded flags, cost counters."""

    kind: ClassVar[str] = ""

    def __init__(
        self,
        d: int,
        index: str | CoveringIndex = "kdtree",
        counts: dict[str, list[int]] | None = None,
        **index_params,
    ):
        self.index = make_index(index, d, **index_params)
        self.d = self.index.d
        self._slot: dict[Hashable, int] = {}
        self._sid: list[Hashable] = []
        self._free: list[int] = []
        self._seq = 0
        self.inn: list[list[int]] = []  # in-neighbours (coverers) by slot
        self.out: list[set[int]] = []  # out-neighbours (covered) by slot
        self.fwd: list[bool] = []
        # queries, nodes, comparisons per operation; ``counts`` shares them between
        # graphs (an overlay totals the graphs of all its links without visiting them)
        self._counts = counts if counts is not None else {op: [0, 0, 0] for op in OPS}

    # ---- public API
    def __len__(self) -> int:
        return len(self._slot)

    def __contains__(self, sid) -> bool:
        return sid in self._slot

    def subscribe(self, sid: Hashable, lo, hi) -> bool:
        """Add subscription ``sid`` with box ``[lo, hi]``; whether to forward it now."""
        p = self._new_point(sid, lo, hi, np.empty(2 * self.d))
        slot = self._alloc(sid)
        self._seq += 1
        return self._subscribe(slot, p, self._seq)

    def unsubscribe(self, sid: Hashable) -> list:
        """Remove ``sid``; the subscriptions to forward now (no longer covered)."""
        slot = self._live_slot(sid)
        slots = self._unsubscribe(slot)
        del self._slot[sid]
        self._sid[slot] = None
        self._free.append(slot)
        return [self._sid[t] for t in slots]

    def forwarded(self, sid: Hashable) -> bool:
        """Whether ``sid`` is currently forwarded to the neighbour."""
        return self.fwd[self._slot[sid]]

    def coverers(self, sid: Hashable) -> list:
        """The in-neighbours of ``sid`` in the graph."""
        return [self._sid[t] for t in self.inn[self._slot[sid]]]

    def edges(self) -> set[tuple]:
        """Every edge ``(coverer, covered)`` by subscription id."""
        return {(self._sid[t], sid) for sid, s in self._slot.items() for t in self.inn[s]}

    def forwarded_set(self) -> set:
        return {sid for sid, s in self._slot.items() if self.fwd[s]}

    def withdraw_covered(self, sid: Hashable) -> list:
        """The forwarded subscriptions ``sid`` covers (its out-neighbours), now marked
        not forwarded: what a broker unsubscribes at the neighbour right after
        forwarding ``sid``, so the neighbour's table holds no covered subscription.
        In ``G`` and the poset this keeps "forwarded iff in-degree 0" exact; a new
        ``G_k`` node has no out-edges yet, so there it returns nothing."""
        slot = self._slot[sid]
        gone = sorted(c for c in self.out[slot] if self.fwd[c])
        for c in gone:
            self.fwd[c] = False
        return [self._sid[c] for c in gone]

    def stats(self) -> dict[str, dict[str, int]]:
        """Covering queries and their cost, split into subscribe and unsubscribe."""
        return {
            op: {"queries": c[0], "nodes_visited": c[1], "point_comparisons": c[2]}
            for op, c in self._counts.items()
        }

    # ---- helpers
    def _new_point(self, sid: Hashable, lo, hi, p: np.ndarray) -> np.ndarray:
        """Write the point of a new subscription's box ``[lo, hi]`` (checked) into ``p``."""
        if sid in self._slot:
            raise InputError(f"subscription {sid!r} is already subscribed")
        lo = np.asarray(lo, dtype=np.float64)
        hi = np.asarray(hi, dtype=np.float64)
        if lo.shape != (self.d,) or hi.shape != (self.d,):
            raise InputError(f"a box needs {self.d} lower and upper edges, got {lo.shape}")
        if not (lo <= hi).all():  # also catches NaN
            raise InputError(f"box {sid!r} has a lower edge above its upper edge (or NaN)")
        p[0::2] = -lo
        p[1::2] = hi
        return p

    def _live_slot(self, sid: Hashable) -> int:
        """The slot of the live subscription ``sid``."""
        slot = self._slot.get(sid)
        if slot is None:
            raise InputError(f"subscription {sid!r} is not subscribed")
        return slot

    def _alloc(self, sid) -> int:
        if self._free:
            slot = self._free.pop()
            self._sid[slot] = sid
        else:
            slot = len(self._sid)
            self._sid.append(sid)
            self.inn.append([])
            self.out.append(set())
            self.fwd.append(False)
        self._slot[sid] = slot
        return slot

    def _query(self, op: str, slot: int, k: int, up: bool = True) -> np.ndarray:
        ix = self.index
        res = ix.query_counted(ix.P[slot], int(ix.seq[slot]), k, up)
        c = self._counts[op]
        c[0] += 1
        c[1] += ix.last[0]
        c[2] += ix.last[1]
        return res

    def _drop_node(self, slot: int) -> tuple[list[int], set[int]]:
        """Remove ``slot`` from the index and unlink it; its former parents, children."""
        self.index.delete(slot)
        parents, children = self.inn[slot], self.out[slot]
        for t in parents:
            self.out[t].discard(slot)
        for c in children:
            self.inn[c].remove(slot)
        self.inn[slot] = []
        self.out[slot] = set()
        self.fwd[slot] = False
        return parents, children

    def _release(self, children) -> list[int]:
        """Forward the ``children`` left without a covering parent; those forwarded now."""
        now = []
        for c in sorted(children):  # slot order, as the batch replay (GStream) does
            if not self.inn[c] and not self.fwd[c]:
                self.fwd[c] = True
                now.append(c)
        return now

    def _subscribe(self, slot: int, point: np.ndarray, seq: int) -> bool:
        raise NotImplementedError

    def _unsubscribe(self, slot: int) -> list[int]:
        raise NotImplementedError


class ReferenceGkGraph(RelationGraph):
    """``G_k``: up to ``k`` in-edges per node, found when the node is examined — the
    plain-Python procedure over the index's API, kept as the reference the numba
    command loop (:class:`GkGraph`) is tested against."""

    kind = "gk"

    def __init__(self, d: int, k: int = 1, index: str | CoveringIndex = "kdtree", **index_params):
        if int(k) != k or k < 1:
            raise InputError(f"k must be an integer >= 1, got {k!r}")
        super().__init__(d, index, **index_params)
        self.k = int(k)
        self.examined: list[int] = []  # arrival counter when each slot was last examined

    def _alloc(self, sid) -> int:
        slot = super()._alloc(sid)
        if slot == len(self.examined):
            self.examined.append(0)
        return slot

    def _subscribe(self, slot, point, seq):
        ix = self.index
        res = ix.query_counted(point, seq, self.k, True)  # C <- cov_k(S, s), s not in S
        c = self._counts["subscribe"]
        c[0] += 1
        c[1] += ix.last[0]
        c[2] += ix.last[1]
        ix.insert(slot, point, seq)
        self.examined[slot] = seq
        inn = self.inn[slot]
        for t in res.tolist():
            inn.append(t)
            self.out[t].add(slot)
        fwd = not inn
        self.fwd[slot] = fwd
        return fwd

    def _unsubscribe(self, slot):
        _, children = self._drop_node(slot)
        now = []
        for t in sorted(children):  # in slot order, as the numba loop does
            if self.inn[t]:
                continue
            res = self._query("unsubscribe", t, self.k)
            self.examined[t] = self._seq
            for c in res.tolist():
                self.inn[t].append(c)
                self.out[c].add(t)
            if not self.inn[t]:
                self.fwd[t] = True
                now.append(t)
        return now


class FullGraph(RelationGraph):
    """``G``: every covering relation is an edge."""

    kind = "full"

    def _subscribe(self, slot, point, seq):
        self.index.insert(slot, point, seq)
        above = self._query("subscribe", slot, ALL, up=True).tolist()
        below = self._query("subscribe", slot, ALL, up=False).tolist()
        self._link(slot, above, below)
        fwd = not self.inn[slot]
        self.fwd[slot] = fwd
        return fwd

    def _link(self, slot: int, above: list[int], below: list[int]) -> None:
        self.inn[slot] = list(above)
        for t in above:
            self.out[t].add(slot)
        self.out[slot] = set(below)
        for c in below:
            self.inn[c].append(slot)

    def _unsubscribe(self, slot):
        _, children = self._drop_node(slot)
        return self._release(children)


class PosetGraph(FullGraph):
    """SIENA's strict poset: the transitive reduction of ``G``."""

    kind = "poset"

    def _extremes(self, slots: list[int], minimal: bool) -> list[int]:
        """The minimal (or maximal) elements of ``slots`` under strict covering."""
        if len(slots) <= 1:
            return slots
        idx = np.asarray(slots, np.int64)
        P, seq = self.index.P[idx], self.index.seq[idx]
        dominated = np.empty(len(idx), bool)
        for a0 in range(0, len(idx), 256):  # a row block of the strict covering matrix
            a = slice(a0, a0 + 256)
            if minimal:  # a covers some b
                ge = (P[a, None, :] >= P[None, :, :]).all(axis=2)
                eq = (P[a, None, :] == P[None, :, :]).all(axis=2)
                cov = ge & (~eq | (seq[a, None] < seq[None, :]))
            else:  # some b covers a
                ge = (P[None, :, :] >= P[a, None, :]).all(axis=2)
                eq = (P[None, :, :] == P[a, None, :]).all(axis=2)
                cov = ge & (~eq | (seq[None, :] < seq[a, None]))
            dominated[a] = cov.any(axis=1)  # the diagonal is never a strict cover
        return idx[~dominated].tolist()

    def _link(self, slot, above, below):
        parents = self._extremes(above, minimal=True)
        children = self._extremes(below, minimal=False)
        cs = set(children)
        for p in parents:  # p -> c is now implied by p -> slot -> c
            gone = self.out[p] & cs
            if gone:
                self.out[p] -= gone
                for c in gone:
                    self.inn[c].remove(p)
        super()._link(slot, parents, children)

    def _unsubscribe(self, slot):
        parents, children = self._drop_node(slot)
        P, seq = self.index.P, self.index.seq
        for c in children:
            have = list(self.inn[c])
            for p in parents:
                if not any(strictly_covers(P, seq, p, q) for q in have):
                    self.inn[c].append(p)
                    self.out[p].add(c)
        return self._release(children)


_NO_COST = np.zeros((0, 3), np.int64)  # gk_run's per-command costs, not asked for
MAX_FAST_K = 64  # G_k with a larger k keeps k in-edge columns per slot: use the reference


class GkGraph(RelationGraph):
    """``G_k`` run by the numba command loop of :mod:`~cnsim.subscriptions.covering.engine`
    over columnar graph arrays beside the index (same API, results and counts as
    :class:`ReferenceGkGraph`).  ``run_commands`` runs a whole command stream in one
    call; ``subscribe``/``unsubscribe`` run one command each through the same loop."""

    kind = "gk"

    def __init__(
        self,
        d: int,
        k: int = 1,
        index: str | CoveringIndex = "kdtree",
        counts: dict[str, list[int]] | None = None,
        **index_params,
    ):
        from cnsim.subscriptions.covering import engine

        if int(k) != k or not 1 <= k <= MAX_FAST_K:
            raise InputError(f"k must be an integer in [1, {MAX_FAST_K}], got {k!r}")
        self.index = make_index(index, d, **index_params)
        if not engine.supports(self.index):
            raise InputError(f"index {type(self.index).__name__} has no numba kernel state")
        self.d = self.index.d
        self.k = int(k)
        self._e = engine
        self._slot: dict[Hashable, int] = {}
        self._counts = counts if counts is not None else {op: [0, 0, 0] for op in OPS}
        self.gm = np.zeros(engine.GM_SIZE, np.int64)
        self._alloc_arrays(self.index.capacity)
        self.rf_buf = np.zeros((64, 2), np.int64)
        self._check_points = hasattr(self.index, "check_points")
        # the arrays of a one-command call, reused
        self._one = {
            "sub": np.zeros(1, np.int8),
            "unsub": np.ones(1, np.int8),
            "zero": np.zeros(1, np.int64),
            "ref": np.zeros(1, np.int64),
            "sids": np.zeros(1, np.int64),
            "pts": np.zeros((1, 2 * self.d)),
            "slot": np.zeros(1, np.int64),
            "fwd": np.zeros(1, np.bool_),
            "ptr": np.zeros(2, np.int64),
        }

    # ---- storage
    def _alloc_arrays(self, cap: int) -> None:
        e, k = self._e, self.k
        old = getattr(self, "gs", None)
        gs = np.zeros((cap, 6), np.int64)
        gs[:, e.OHEAD] = -1
        gs[:, e.SID] = -1
        inn = np.full((cap, k), -1, np.int64)
        ed = np.full((cap * k, 2), -1, np.int64)
        free = np.zeros(cap, np.int64)
        sid = np.full(cap, None, object)
        if old is not None:
            n = len(old)
            gs[:n] = old
            inn[:n] = self.inn
            ed[: n * k] = self.ed
            free[:n] = self.free
            sid[:n] = self._sid
        self.gs, self.inn, self.ed, self.free, self._sid = gs, inn, ed, free, sid
        self.kids = np.zeros(cap, np.int64)
        self.out_buf = np.zeros(cap + 1, np.int64)

    def _reserve(self, n_new: int) -> None:
        need = int(self.gm[self._e.FRESH]) + n_new
        if need > len(self.gs):
            cap = max(2 * len(self.gs), need)
            if cap > self.index.capacity:
                self.index._resize(cap)
            self._alloc_arrays(self.index.capacity)

    # ---- the command loop
    def _run(self, op, ref, sids, pts, cmd_slot, fwd_out, rf_ptr, cost=None) -> None:
        e, ix, gm = self._e, self.index, self.gm
        if cost is None:
            cost = _NO_COST
        if self._check_points:
            ix.check_points(pts[op == e.SUB])
        gm[e.NLIVE] = ix.n
        gm[e.QS :] = 0
        i = 0
        try:
            while True:
                i, code = e.gk_run(
                    ix.st, ix.P, ix.seq, ix.alive, self.gs, self.inn, self.ed, self.free, gm,
                    self.k, op, ref, sids, pts, i, cmd_slot, fwd_out, rf_ptr, self.rf_buf,
                    self.kids, self.out_buf, cost,
                )  # fmt: skip
                if code == e.DONE:
                    break
                if code == e.NEED_RF:
                    rf = np.zeros((2 * len(self.rf_buf) + len(self.gs), 2), np.int64)
                    rf[: len(self.rf_buf)] = self.rf_buf
                    self.rf_buf = rf
                elif code == e.NEED_SLOTS:
                    self._reserve(int((op[i:] == e.SUB).sum()))
                elif code == e.BAD_UNSUB:
                    raise InputError(
                        f"command {i} unsubscribes {sids[i]!r}, which is not subscribed then"
                    )
                else:
                    ix.make_room(code)
        finally:  # commands before ``i`` have run: bring the Python counters up to date
            ix.n = int(gm[e.NLIVE])
            self._seq = int(gm[e.SEQ])
            if gm[e.QS] or gm[e.QU]:
                qs, nvs, pcs, qu, nvu, pcu = gm[e.QS : e.PCU + 1].tolist()
                cs, cu = self._counts["subscribe"], self._counts["unsubscribe"]
                cs[0] += qs
                cs[1] += nvs
                cs[2] += pcs
                cu[0] += qu
                cu[1] += nvu
                cu[2] += pcu
                ix.queries += qs + qu
                ix.nodes_visited += nvs + nvu
                ix.point_comparisons += pcs + pcu
                ix.last = (int(gm[e.LAST_NV]), int(gm[e.LAST_PC]))

    def subscribe(self, sid: Hashable, lo, hi) -> bool:
        """Add subscription ``sid`` with box ``[lo, hi]``; whether to forward it now."""
        one = self._one
        p = one["pts"]
        self._new_point(sid, lo, hi, p[0])
        one["sids"][0] = sid if type(sid) is int and 0 <= sid < 2**62 else -1
        self._run(one["sub"], one["zero"], one["sids"], p, one["slot"], one["fwd"], one["ptr"])
        slot = int(one["slot"][0])
        self._slot[sid] = slot
        self._sid[slot] = sid
        return bool(one["fwd"][0])

    def unsubscribe(self, sid: Hashable) -> list:
        """Remove ``sid``; the subscriptions to forward now (no longer covered)."""
        slot = self._live_slot(sid)
        one = self._one
        one["ref"][0] = slot
        self._run(
            one["unsub"], one["ref"], one["sids"], one["pts"], one["slot"], one["fwd"], one["ptr"]
        )
        del self._slot[sid]
        self._sid[slot] = None
        return [self._sid[t] for t in self.rf_buf[: self.gm[self._e.NRF], 0]]

    def run_commands(
        self, op, sid, lo, hi, cost: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Run a command stream in one numba call: ``op[i]`` subscribe (0) or
        unsubscribe (1) of the integer id ``sid[i]`` (for a subscribe, with box
        ``lo[i], hi[i]``; the ids of a batch's subscribes are distinct and not live).
        Returns ``(forwarded, rf_ptr, rf_sid)``: ``forwarded[i]`` for subscribe ``i``,
        and the ids unsubscribe ``i`` made forwarded again at
        ``rf_sid[rf_ptr[i]:rf_ptr[i + 1]]``.  The same results, graph and counts as
        the commands one by one.  ``cost``, if given, a zeroed ``(len(op), 3)`` int64
        array, receives each command's covering queries, nodes visited and point
        comparisons."""
        e = self._e
        op = np.ascontiguousarray(op, np.int8)
        sid = np.ascontiguousarray(sid, np.int64)
        n = len(op)
        if sid.shape != (n,) or not np.isin(op, (e.SUB, e.UNSUB)).all():
            raise InputError("op must be 0 (subscribe) or 1 (unsubscribe), one sid each")
        sub = op == e.SUB
        lo_s, hi_s = np.asarray(lo, np.float64), np.asarray(hi, np.float64)
        if lo_s.shape != (n, self.d) or hi_s.shape != (n, self.d):
            raise InputError(f"lo and hi must have shape ({n}, {self.d}), got {lo_s.shape}")
        if not (lo_s[sub] <= hi_s[sub]).all():
            raise InputError("a subscribed box has a lower edge above its upper edge (or NaN)")
        pts = np.empty((n, 2 * self.d))
        pts[:, 0::2] = -lo_s
        pts[:, 1::2] = hi_s
        sub_ids = sid[sub]
        if len(np.unique(sub_ids)) != len(sub_ids) or any(
            int(s) in self._slot for s in sub_ids[np.isin(sub_ids, self._live_ints())]
        ):
            raise InputError("the subscribes of a batch need distinct ids that are not live")
        uns = np.flatnonzero(~sub)
        if len(np.unique(sid[uns])) != len(uns):
            raise InputError("a batch unsubscribes an id twice")
        # unsubscribe i -> the batch's subscribe of that id, else a live slot
        order = np.argsort(sub_ids, kind="stable")
        sub_pos = np.flatnonzero(sub)[order]
        at = np.searchsorted(sub_ids[order], sid[uns])
        at = np.minimum(at, max(len(order) - 1, 0))
        ref = np.arange(n, dtype=np.int64)
        hit = sub_ids[order][at] == sid[uns] if len(order) else np.zeros(len(uns), bool)
        ref[uns[hit]] = -(sub_pos[at[hit]] + 1)
        for i in uns[~hit]:
            s = self._slot.get(int(sid[i]))
            if s is None:
                raise InputError(f"command {i} unsubscribes {int(sid[i])}, not subscribed")
            ref[i] = s
        cmd_slot = np.full(n, -1, np.int64)
        fwd = np.zeros(n, np.bool_)
        rf_ptr = np.zeros(n + 1, np.int64)
        try:
            if cost is not None:
                assert cost.shape == (n, 3) and cost.dtype == np.int64
            self._run(op, ref, sid, pts, cmd_slot, fwd, rf_ptr, cost)
        finally:  # the slot map, for what ran
            for i in uns[~hit]:  # live before the batch: gone if its slot is dead or reused
                s, sl = int(sid[i]), int(ref[i])
                if not self.index.alive[sl] or self.gs[sl, e.SID] != s:
                    del self._slot[s]
                    self._sid[sl] = None
            live = cmd_slot >= 0
            ids, slots = sid[live], cmd_slot[live]
            self._slot.update(zip(ids.tolist(), slots.tolist(), strict=True))
            self._sid[slots] = ids.tolist()
        return fwd, rf_ptr, self.rf_buf[: self.gm[e.NRF], 1].copy()

    def _live_ints(self) -> np.ndarray:
        return np.array([s for s in self._slot if isinstance(s, int)], np.int64)

    # ---- views
    @property
    def examined(self) -> np.ndarray:
        """The arrival counter when each slot was last examined."""
        return self.gs[:, self._e.EXAMINED]

    def forwarded(self, sid: Hashable) -> bool:
        return bool(self.gs[self._slot[sid], self._e.FWD])

    def coverers(self, sid: Hashable) -> list:
        s = self._slot[sid]
        return [self._sid[t] for t in self.inn[s, : self.gs[s, self._e.INDEG]]]

    def edges(self) -> set[tuple]:
        ind = self.gs[:, self._e.INDEG]
        return {(self._sid[t], sid) for sid, s in self._slot.items() for t in self.inn[s, : ind[s]]}

    def forwarded_set(self) -> set:
        return {sid for sid, s in self._slot.items() if self.gs[s, self._e.FWD]}

    def _children(self, slot: int) -> list[int]:
        e, out, k = self._e, [], self.k
        x = self.gs[slot, e.OHEAD]
        while x >= 0:
            out.append(int(x // k))
            x = self.ed[x, e.NEXT]
        return out

    def withdraw_covered(self, sid: Hashable) -> list:
        gone = sorted(c for c in self._children(self._slot[sid]) if self.gs[c, self._e.FWD])
        for c in gone:
            self.gs[c, self._e.FWD] = 0
        return [self._sid[c] for c in gone]


class GStream:
    """The forwarding decisions of ``G`` over a whole command stream in one numba call
    (:func:`~cnsim.subscriptions.covering.engine.g_run`) — and of the poset, which
    decides the same: with Property 1 exact, a subscription is forwarded iff no live one
    strictly covers it, so the forwarded set is the maximal elements of ``S`` in both.
    Edges are not stored (``G`` can hold ``|S|^2 / 36`` of them at ``d = 2``); per slot
    only the number of live strict coverers.  The same index operations, slots, arrival
    numbers and counted queries as :class:`FullGraph` and :class:`PosetGraph` one command
    at a time (so the same costs), and the same messages as the overlay sends for them
    (:meth:`run`)."""

    def __init__(self, d: int, index: str | CoveringIndex = "kdtree", **index_params):
        from cnsim.subscriptions.covering import engine

        self.index = make_index(index, d, **index_params)
        if not engine.supports(self.index):
            raise InputError(f"index {type(self.index).__name__} has no numba kernel state")
        self.d = self.index.d
        self._e = engine
        self.gm = np.zeros(engine.GM_SIZE, np.int64)
        self.slot_of = np.full(64, -1, np.int64)
        self._alloc(self.index.capacity)

    def _alloc(self, cap: int) -> None:
        n = len(getattr(self, "indeg", ()))
        indeg, fwd, gsid, free = (
            np.zeros(cap, np.int64), np.zeros(cap, np.bool_),
            np.full(cap, -1, np.int64), np.zeros(cap, np.int64),
        )  # fmt: skip
        if n:
            indeg[:n], fwd[:n], gsid[:n], free[:n] = self.indeg, self.fwd, self.gsid, self.free
        self.indeg, self.fwd, self.gsid, self.free = indeg, fwd, gsid, free
        self.up_buf = np.zeros(cap + 2, np.int64)
        self.dn_buf = np.zeros(cap + 2, np.int64)

    def run(
        self, op, sid, lo, hi, cost: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Run ``op[i]`` subscribe (0, box ``lo[i], hi[i]``) or unsubscribe (1) of the
        integer id ``sid[i]``.  Returns the messages for the neighbour as ``(row, kind,
        sid)``: the command row that sent each and its kind (``engine.W_SUB``, ``W_UNSUB``,
        ``W_WITHDRAW``).  ``cost``, if given, a zeroed ``(len(op), 3)`` int64 array, gets
        each command's covering queries, nodes visited and point comparisons."""
        e, ix, gm = self._e, self.index, self.gm
        op = np.ascontiguousarray(op, np.int8)
        sid = np.ascontiguousarray(sid, np.int64)
        n = len(op)
        if sid.shape != (n,) or not np.isin(op, (e.SUB, e.UNSUB)).all() or (sid < 0).any():
            raise InputError("op must be 0 (subscribe) or 1 (unsubscribe), one id >= 0 each")
        lo_s, hi_s = np.asarray(lo, np.float64), np.asarray(hi, np.float64)
        if lo_s.shape != (n, self.d) or hi_s.shape != (n, self.d):
            raise InputError(f"lo and hi must have shape ({n}, {self.d}), got {lo_s.shape}")
        if not (lo_s[op == e.SUB] <= hi_s[op == e.SUB]).all():
            raise InputError("a subscribed box has a lower edge above its upper edge (or NaN)")
        pts = np.empty((n, 2 * self.d))
        pts[:, 0::2] = -lo_s
        pts[:, 1::2] = hi_s
        top = int(sid.max(initial=-1)) + 1
        if top > len(self.slot_of):
            grown = np.full(max(top, 2 * len(self.slot_of)), -1, np.int64)
            grown[: len(self.slot_of)] = self.slot_of
            self.slot_of = grown
        if cost is None:
            cost = np.zeros((n, 3), np.int64)
        assert cost.shape == (n, 3) and cost.dtype == np.int64
        size = n + 16
        o_row, o_kind, o_sid = (np.zeros(size, np.int64), np.zeros(size, np.int8),
                                np.zeros(size, np.int64))  # fmt: skip
        gm[e.NLIVE] = ix.n
        gm[e.NRF] = 0
        i = 0
        try:
            while True:
                i, code = e.g_run(
                    ix.st, ix.P, ix.seq, ix.alive, self.indeg, self.fwd, self.gsid, self.free,
                    gm, self.slot_of, op, sid, pts, i, o_row, o_kind, o_sid, self.up_buf,
                    self.dn_buf, cost,
                )  # fmt: skip
                if code == e.DONE:
                    break
                if code == e.NEED_RF:
                    size = max(2 * len(o_row), int(gm[e.NRF] + gm[e.NLIVE]) + 16)
                    o_row, o_kind, o_sid = (
                        np.resize(o_row, size), np.resize(o_kind, size), np.resize(o_sid, size)
                    )  # fmt: skip
                elif code == e.NEED_SLOTS:
                    cap = max(2 * ix.capacity, int(gm[e.FRESH]) + 2)
                    ix._resize(cap)
                    self._alloc(ix.capacity)
                elif code == e.BAD_UNSUB:
                    raise InputError(
                        f"command {i} unsubscribes {int(sid[i])}, which is not subscribed then"
                    )
                else:
                    ix.make_room(code)
        finally:
            ix.n = int(gm[e.NLIVE])
            q = int(gm[e.QS])
            ix.queries += q
            gm[e.QS] = 0
        m = int(gm[e.NRF])
        return o_row[:m].copy(), o_kind[:m].copy(), o_sid[:m].copy()

    def forwarded_set(self) -> set:
        """The ids forwarded now (the maximal live subscriptions)."""
        live = self.index.alive[: len(self.fwd)] & self.fwd
        return set(self.gsid[live].tolist())

    def __len__(self) -> int:
        return self.index.n


GRAPHS = {"gk": GkGraph, "full": FullGraph, "poset": PosetGraph}


def make_graph(
    kind: str,
    d: int,
    index: str | CoveringIndex = "kdtree",
    k: int = 1,
    reference: bool = False,
    **params,
):
    """A relation graph by name: ``g1``, ``gk`` (with ``k``), ``full`` or ``poset``.
    ``G_k`` runs in the numba command loop unless ``reference`` (or ``k`` above
    ``MAX_FAST_K``): then the plain-Python :class:`ReferenceGkGraph`."""
    if kind in ("g1", "gk"):
        k = 1 if kind == "g1" else k
        if reference or (int(k) == k and k > MAX_FAST_K):
            return ReferenceGkGraph(d, k, index, **params)
        return GkGraph(d, k, index, **params)
    if kind in GRAPHS:
        return GRAPHS[kind](d, index, **params)
    raise InputError(f"unknown relation graph {kind!r}; one of g1, gk, full, poset")
