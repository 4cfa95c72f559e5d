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
        if sid in self._slot:
            raise InputError(f"subscription {sid!r} is already subscribed")
        lo = np.asarray(lo, dtype=np.float64)
        hi = np.asarray(hi, dtype=np.float64)
        if lo.shape != (self.d,) or hi.shape != (self.d,):
            raise InputError(f"a box needs {self.d} lower and upper edges, got {lo.shape}")
        if not (lo <= hi).all():  # also catches NaN
            raise InputError(f"box {sid!r} has a lower edge above its upper edge (or NaN)")
        p = np.empty(2 * self.d)
        p[0::2] = -lo
        p[1::2] = hi
        slot = self._alloc(sid)
        self._seq += 1
        return self._subscribe(slot, p, self._seq)

    def unsubscribe(self, sid: Hashable) -> list:
        """Remove ``sid``; the subscriptions to forward now (no longer covered)."""
        slot = self._slot.get(sid)
        if slot is None:
            raise InputError(f"subscription {sid!r} is not subscribed")
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
        for c in children:
            if not self.inn[c] and not self.fwd[c]:
                self.fwd[c] = True
                now.append(c)
        return now

    def _subscribe(self, slot: int, point: np.ndarray, seq: int) -> bool:
        raise NotImplementedError

    def _unsubscribe(self, slot: int) -> list[int]:
        raise NotImplementedError


class GkGraph(RelationGraph):
    """``G_k``: up to ``k`` in-edges per node, found when the node is examined."""

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
        for t in children:
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


GRAPHS = {"gk": GkGraph, "full": FullGraph, "poset": PosetGraph}


def make_graph(kind: str, d: int, index: str | CoveringIndex = "kdtree", k: int = 1, **params):
    """A relation graph by name: ``g1``, ``gk`` (with ``k``), ``full`` or ``poset``."""
    if kind == "g1":
        return GkGraph(d, 1, index, **params)
    if kind == "gk":
        return GkGraph(d, k, index, **params)
    if kind in GRAPHS:
        return GRAPHS[kind](d, index, **params)
    raise InputError(f"unknown relation graph {kind!r}; one of g1, gk, full, poset")
