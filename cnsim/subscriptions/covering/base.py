"""The interface every covering index shares, the box-to-point reduction and brute force.

A subscription is a closed box ``([l1, r1], ..., [ld, rd])``.  Box ``s`` covers box
``s'`` iff ``l_i <= l'_i`` and ``r'_i <= r_i`` for every attribute ``i``, i.e. iff the
point ``p(s) = (-l1, r1, ..., -ld, rd)`` *dominates* ``p(s')`` (every coordinate
``>=``).  So covering queries are orthant range queries on points in ``D = 2d``
dimensions (seed 001 §IV-A).

Identical boxes cover each other; the graphs need a *strict* order (a cycle of
mutually covering subscriptions would leave none of them forwarded), so every query
breaks ties by arrival: among identical points the earlier one (smaller ``seq``)
covers the later.  ``covering(q, qseq, k)`` returns up to ``k`` live slots ``j`` with
``P[j] >= q`` and (``P[j] != q`` or ``seq[j] < qseq``); ``covered(q, qseq, k)`` the
mirror image (``P[j] <= q`` and (``P[j] != q`` or ``seq[j] > qseq``)).

The base class owns the points, columnar: ``P`` is a ``(capacity, D)`` float64 table
indexed by *slot* (a small integer the caller chooses and may reuse after a delete),
``seq`` the arrival number of each slot, ``alive`` a mask.  An index runs on

* ``_insert(slot)`` — index the point already written at ``P[slot]``;
* ``_delete(slot)`` — unindex it (``P[slot]`` is still readable);
* ``_query(q, qseq, k, up) -> (slots, nodes_visited, point_comparisons)`` — up to ``k``
  qualifying slots (``up``: covering, else covered), in any order;
* optionally ``_grow(capacity)`` — resize its own per-slot arrays.

The three hooks run the numba functions the index declares as ``kernels`` (a
:class:`Kernels`) on its arrays ``st`` (``kernel_state()``, a ``NamedTuple`` of a class
of its own), growing what the ``room`` kernel asks for with ``make_room(code)``; the
relation graphs' numba command loop (:mod:`cnsim.subscriptions.covering.engine`)
compiles the same functions for each state class (:data:`KERNELS`) and never inspects
the state, so the Python API and the loop share one implementation.

The base counts queries, nodes visited and point comparisons (``stats()``, and
``last`` for the most recent query).
"""

from __future__ import annotations

from typing import Any, ClassVar, NamedTuple

import numba
import numpy as np

from cnsim.errors import InputError

MAX_ATTRIBUTES = 8
ALL = 2**62  # k meaning "every covering subscription"


def as_boxes(lo, hi) -> tuple[np.ndarray, np.ndarray]:
    """Validate boxes given as ``(n, d)`` (or ``(d,)``) arrays of lower and upper edges."""
    lo = np.atleast_2d(np.asarray(lo, dtype=np.float64))
    hi = np.atleast_2d(np.asarray(hi, dtype=np.float64))
    if lo.shape != hi.shape or lo.ndim != 2:
        raise InputError(f"box edges must have equal shapes (n, d), got {lo.shape}, {hi.shape}")
    d = lo.shape[1]
    if not 1 <= d <= MAX_ATTRIBUTES:
        raise InputError(f"boxes need 1 to {MAX_ATTRIBUTES} attributes, got {d}")
    if np.isnan(lo).any() or np.isnan(hi).any():
        raise InputError("box edge is NaN")
    if (lo > hi).any():
        i = int(np.flatnonzero((lo > hi).any(axis=1))[0])
        raise InputError(f"box {i} has a lower edge above its upper edge")
    return lo, hi


def box_points(lo, hi) -> np.ndarray:
    """The points ``(-l1, r1, ..., -ld, rd)`` of boxes, shape ``(n, 2d)`` (seed 001 Fact 1)."""
    lo, hi = as_boxes(lo, hi)
    p = np.empty((lo.shape[0], 2 * lo.shape[1]))
    p[:, 0::2] = -lo
    p[:, 1::2] = hi
    return p


def brute_covering(P: np.ndarray, seq: np.ndarray, q: np.ndarray, qseq: int, up: bool = True):
    """Every row of ``P`` covering (``up``) or covered by the point ``q`` under the
    tie rule above; the oracle of the tests.  Returns row positions."""
    P = np.asarray(P, float).reshape(-1, len(q))
    dom = (q <= P).all(axis=1) if up else (q >= P).all(axis=1)
    eq = (q == P).all(axis=1)
    tie_ok = (seq < qseq) if up else (seq > qseq)
    return np.flatnonzero(dom & (~eq | tie_ok))


@numba.njit(cache=True, inline="always")
def qualifies(P, s, q, seq, qseq, up) -> bool:
    """Whether slot ``s`` covers (``up``) or is covered by point ``q`` (tie rule).

    Branch-free over the coordinates: it counts those below, above and equal to
    ``q``'s and decides once, instead of leaving at the first coordinate on the wrong
    side.  Whether a random point passes a coordinate is a coin toss the branch
    predictor loses: k-d tree queries at 16 dimensions took 13.3 ns per point compared
    (nodes included) with the early exit and 8.0 ns now (benchmarks/RESULTS.md, issue
    12).  One
    point compared is still one point comparison.  How it is written matters to
    numba/LLVM, measured in place: one loop for both directions (two loops, chosen by
    ``up``, ran 4x slower) and plain ``if``s at the end (``return bad == 0 and (...)``
    ran 3x slower)."""
    D = q.shape[0]
    lt = 0  # coordinates below q's
    gt = 0  # above
    same = 0  # equal
    for j in range(D):  # one loop for both directions (see above)
        lt += P[s, j] < q[j]
        gt += P[s, j] > q[j]
        same += P[s, j] == q[j]
    if (lt if up else gt) != 0:
        return False
    if same < D:
        return True
    return seq[s] < qseq if up else seq[s] > qseq


def strictly_covers(P: np.ndarray, seq: np.ndarray, a: int, b: int) -> bool:
    """Whether slot ``a`` covers slot ``b`` in the strict (tie-broken) order."""
    pa, pb = P[a], P[b]
    if not (pa >= pb).all():
        return False
    return bool((pa != pb).any() or seq[a] < seq[b])


class Kernels(NamedTuple):
    """The numba functions that run one index on its kernel state ``st`` (an instance of
    ``state``): ``room(st, P, slot) -> code`` (0, or what Python must grow before the
    insert), ``insert(st, P, slot)``, ``delete(st, P, slot)`` and ``query(st, P, seq, q,
    qseq, k, up, out) -> (found, nodes visited, point comparisons)``."""

    state: type
    room: Any
    insert: Any
    delete: Any
    query: Any


#: the kernels of every index that declares them, by its kernel-state class
KERNELS: dict[type, Kernels] = {}


class CoveringIndex:
    """A dynamic index of points in ``2d`` dimensions answering ``cov_k`` queries."""

    name: ClassVar[str] = ""
    # the numba functions the relation graphs' command loop runs this index with (None:
    # Python only); kernel_state() then returns an instance of kernels.state
    kernels: ClassVar[Kernels | None] = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.kernels is not None:
            KERNELS[cls.kernels.state] = cls.kernels

    @property
    def st(self) -> NamedTuple:
        """The arrays the kernels work on (rebuilt whenever one grows): an instance of
        ``kernels.state``, by whose class the relation graphs' engine finds the kernels."""
        return self._st

    @st.setter
    def st(self, value: NamedTuple) -> None:
        self._st = value
        # the same arrays as a plain tuple for the per-call hooks: numba types a plain
        # tuple of arrays in C but a NamedTuple in Python (~1 us more per call)
        self._arrays = tuple(value)

    def kernel_state(self) -> NamedTuple:
        """The arrays the kernels work on (rebuilt whenever one grows)."""
        return self.st

    def __init__(self, d: int, *, capacity: int = 64, **params):
        if int(d) != d or not 1 <= d <= MAX_ATTRIBUTES:
            raise InputError(f"d must be 1 to {MAX_ATTRIBUTES} attributes, got {d!r}")
        self.d = int(d)
        self.D = 2 * self.d
        self.params = params
        cap = max(8, int(capacity))
        self.P = np.zeros((cap, self.D))
        self.seq = np.full(cap, -1, np.int64)
        self.alive = np.zeros(cap, bool)
        self._out = np.empty(cap + 1, np.int64)  # the slots a query kernel found
        self.n = 0
        self.queries = 0
        self.nodes_visited = 0
        self.point_comparisons = 0
        self.last = (0, 0)  # (nodes visited, point comparisons) of the latest query

    # ---- hooks: the index's kernels
    def _insert(self, slot: int) -> None:
        kn = self.kernels
        while (code := kn.room(self._arrays, self.P, slot)) != 0:
            self.make_room(code)
        kn.insert(self._arrays, self.P, slot)

    def _delete(self, slot: int) -> None:
        self.kernels.delete(self._arrays, self.P, slot)

    def _query(self, q: np.ndarray, qseq: int, k: int, up: bool) -> tuple[np.ndarray, int, int]:
        found, nv, pc = self.kernels.query(
            self._arrays, self.P, self.seq, q, qseq, k, up, self._out
        )
        return self._out[:found].copy(), int(nv), int(pc)

    def make_room(self, code: int) -> None:
        """Grow the arrays the ``room`` kernel found too small (its return ``code``)."""
        raise ValueError(f"the {self.name!r} index has no room code {code}")

    def _grow(self, capacity: int) -> None:  # noqa: B027 - optional hook
        """Resize the subclass's per-slot arrays (default: it has none)."""

    # ---- public interface
    def __len__(self) -> int:
        return self.n

    @property
    def capacity(self) -> int:
        return len(self.seq)

    def insert(self, slot: int, point, seq: int) -> None:
        """Index ``point`` (length ``2d``) under ``slot`` with arrival number ``seq``."""
        if slot < 0:
            raise InputError(f"slot must be >= 0, got {slot}")
        if slot >= self.capacity:
            self._resize(max(2 * self.capacity, slot + 1))
        if self.alive[slot]:
            raise InputError(f"slot {slot} is already in use")
        self.P[slot] = point
        self.seq[slot] = seq
        self.alive[slot] = True
        self.n += 1
        try:
            self._insert(slot)
        except BaseException:
            self.alive[slot] = False
            self.n -= 1
            raise

    def delete(self, slot: int) -> None:
        """Remove the point at ``slot``."""
        slot = int(slot)
        if not (0 <= slot < self.capacity) or not self.alive[slot]:
            raise InputError(f"no live point at slot {slot}")
        self._delete(slot)
        self.alive[slot] = False
        self.n -= 1

    def covering(self, q, qseq: int, k: int = ALL) -> np.ndarray:
        """Up to ``k`` live slots whose points dominate ``q`` (``cov_k``)."""
        return self._run(q, qseq, k, True)

    def covered(self, q, qseq: int, k: int = ALL) -> np.ndarray:
        """Up to ``k`` live slots whose points ``q`` dominates (the full graph needs it)."""
        return self._run(q, qseq, k, False)

    def stats(self) -> dict[str, int]:
        return {
            "queries": self.queries,
            "nodes_visited": self.nodes_visited,
            "point_comparisons": self.point_comparisons,
        }

    def _run(self, q, qseq: int, k: int, up: bool) -> np.ndarray:
        q = np.ascontiguousarray(q, dtype=np.float64)
        if q.shape != (self.D,):
            raise InputError(f"query point must have {self.D} coordinates, got {q.shape}")
        k = int(k)
        if k <= 0:
            raise InputError(f"k must be >= 1, got {k}")
        return self.query_counted(q, int(qseq), k, up)

    def query_counted(self, q: np.ndarray, qseq: int, k: int, up: bool) -> np.ndarray:
        """``covering``/``covered`` without argument checks (for the graphs)."""
        slots, nv, pc = self._query(q, qseq, min(k, self.n + 1), up)
        self.queries += 1
        self.nodes_visited += nv
        self.point_comparisons += pc
        self.last = (nv, pc)
        return slots

    def _resize(self, cap: int) -> None:
        P = np.zeros((cap, self.D))
        P[: self.capacity] = self.P
        seq = np.full(cap, -1, np.int64)
        seq[: self.capacity] = self.seq
        alive = np.zeros(cap, bool)
        alive[: self.capacity] = self.alive
        self.P, self.seq, self.alive = P, seq, alive
        self._out = np.empty(cap + 1, np.int64)
        self._grow(cap)
