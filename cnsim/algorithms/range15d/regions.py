"""Influence regions of 1.5-d range subscriptions in the 3-d subscription space S
(seed 003 appendix D, Figures 21–25), as lists of message boxes.

One slab of S. Fix object ``i`` at ``(a_i, b_i)`` and a sweep height ``z``. For a
value ``v`` of r2, the subscriptions ``(l, r, v)`` see exactly the objects with
``x2 <= v``, so within a slab of v over which that set's active part (objects below
z) does not change near ``a_i``, the problem is the 1-d one of §II-C: the region is
the staircase of Lemma 2 built from

* ``L``: the x1-values of the first k active objects going west from ``a_i``,
  *including* those at ``x1 == a_i`` (met first, at distance 0), descending;
* ``R``: the first k active objects going east (``x1 > a_i``), ascending.

With ``ℓ_0 = a_i``, ``ℓ_p = L[p-1]`` (``-inf`` past the end) and ``r_q = R[q-1]``
(``+inf`` past the end), strip ``p`` (``0 <= p <= k-1``) is ``l ∈ (ℓ_{p+1}, ℓ_p]``,
``r ∈ [a_i, r_{k-p})``: those subscriptions hold p active objects west of or at
a_i and fewer than k − p east of it, so i is in their top k (Lemma 1). Objects at
``x1 == a_i`` (which the paper rules out) make the first strips empty, which is
exactly right: every such subscription holds them. Duplicate x1-values make
strips empty the same way; empty strips are dropped.

A 2-d piece is a rectangle ``(lO, lI, rI, rO)`` (``lO < l <= lI``, ``rI <= r < rO``);
a box adds ``[vI, vO)`` in r2. Everything is ordered west to east within a slab
and slab by slab upward in v — the order Paint-Sparse's greedy merging walks.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

INF = math.inf

State = tuple[tuple[float, ...], tuple[float, ...]]  # (L, R) of one slab


def same_count(a_i: float, L: tuple[float, ...]) -> int:
    """C: the active objects at ``x1 == a_i`` (the leading entries of L)."""
    c = 0
    while c < len(L) and L[c] == a_i:
        c += 1
    return c


def strips(a_i: float, L: tuple[float, ...], R: tuple[float, ...], k: int) -> list[tuple]:
    """The non-empty strips ``(lO, lI, r_bound)`` of the staircase, west to east."""
    out = []
    for p in range(min(len(L), k - 1), -1, -1):
        hi = a_i if p == 0 else L[p - 1]
        lo = L[p] if p < len(L) else -INF
        if lo >= hi:
            continue
        out.append((lo, hi, R[k - p - 1] if k - p <= len(R) else INF))
    return out


def staircase(a_i: float, L, R, k: int) -> list[tuple]:
    """IR of one slab as rectangles ``(lO, lI, a_i, r_bound)``, west to east;
    neighbouring strips with one r-bound are merged (Algorithm 4)."""
    merged: list[list] = []
    for lo, hi, rb in strips(a_i, L, R, k):
        if merged and merged[-1][2] == rb and merged[-1][1] == lo:
            merged[-1][1] = hi
        else:
            merged.append([lo, hi, rb])
    return [(lo, hi, a_i, rb) for lo, hi, rb in merged]


def key(a_i: float, L, R, k: int) -> State | None:
    """What decides a slab's staircase now and after any later additions: L and the
    first k − C entries of R (None when the staircase is empty, C >= k)."""
    c = same_count(a_i, L)
    if c >= k:
        return None
    return tuple(L), tuple(R[: k - c])


def interval(a_i: float, L, R, k: int) -> tuple[float, float] | None:
    """II: the open x1-range ``(ℓ_k, r_{k-C})`` of the objects that can change the
    staircase (objects at its ends cannot), or None when the staircase is empty."""
    c = same_count(a_i, L)
    if c >= k:
        return None
    lo = L[k - 1] if len(L) >= k else -INF
    hi = R[k - c - 1] if len(R) >= k - c else INF
    return lo, hi


def add(a_i: float, L, R, a_h: float, k: int) -> State:
    """The lists after an active object at x1 = ``a_h`` joins (UpdateList, Algorithm 6)."""
    if a_h <= a_i:
        return tuple(sorted((*L, a_h), reverse=True)[:k]), tuple(R)
    return tuple(L), tuple(sorted((*R, a_h))[:k])


def difference(a_i: float, old: list[tuple], new: list[tuple]) -> list[tuple]:
    """``old \\ new`` for two staircases of apex ``a_i`` given by :func:`strips`, ``new``
    inside ``old``, as rectangles west to east (the gain of an exposed object, Lemma 3:
    a diagonal chain; with ``new = []`` the whole of ``old``)."""
    if not old:
        return []
    cuts = sorted({c for lo, hi, _ in (*old, *new) for c in (lo, hi)})
    out: list[list] = []
    for lo, hi in zip(cuts, cuts[1:], strict=False):
        r_old = _bound(old, hi, a_i)
        r_new = _bound(new, hi, a_i)
        if r_new >= r_old:
            continue
        if out and out[-1][1] == lo and out[-1][2] == r_new and out[-1][3] == r_old:
            out[-1][1] = hi
        else:
            out.append([lo, hi, r_new, r_old])
    return [tuple(r) for r in out]


def _bound(stair: list[tuple], l: float, a_i: float) -> float:
    # The r-bound of the strip holding l (a point just west of a cut); a_i: none.
    for lo, hi, rb in stair:
        if lo < l <= hi:
            return rb
    return a_i


def stack(pieces: Iterable[tuple[float, float, list[tuple]]]) -> list[tuple]:
    """Boxes ``(lO, lI, rI, rO, vI, vO)`` from 2-d pieces per slab ``(vI, vO, rects)``
    given upward: a rectangle repeated by the next slab up extends its box instead
    of starting a new one (Merge, Algorithm 10: ``MEB(Msg, Msg') = Msg ∪ Msg'``)."""
    out: list[list] = []
    open_: dict[tuple, int] = {}
    top = None
    for v_lo, v_hi, rects in pieces:
        if v_lo >= v_hi:
            continue
        carried = open_ if top == v_lo else {}
        open_ = {}
        for rect in rects:
            j = carried.get(rect)
            if j is None:
                out.append([*rect, v_lo, v_hi])
                j = len(out) - 1
            else:
                out[j][5] = v_hi
            open_[rect] = j
        top = v_hi
    return [tuple(b) for b in out]

