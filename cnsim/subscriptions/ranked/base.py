"""The interface every ranked (top-k stabbing) index shares, and brute force.

An index is built from columnar arrays ``(l, r, score)``; interval ``i`` is the closed
interval ``[l[i], r[i]]`` with weight ``score[i]`` and id ``i``.  The rank order is
score descending, ties by smaller id first; every query answers in that order.

Subclasses implement ``_build`` and ``_top_k_core`` over the intervals handed to
``_build`` (ids = their positions there); this base adds validation, ``iter_desc``
and ``insert``/``delete`` (see ``README.md``: a sorted insert buffer plus tombstones,
rebuilt when either outgrows its budget).

An index's tuning knobs (the R-trees' fan-out b of seed 000 Table 1, the forest's
group size of seed 004 §3, ST-PSA's memory cap) are keyword-only arguments declared
once each as a ``Param`` in the class's ``parameters`` (in the manner of
scikit-learn's parameter constraints); ``RankedIndex.__init__`` checks them all in one
place and the class signature is derived from the declarations.
"""

from __future__ import annotations

import inspect
import math
import numbers
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

import numba
import numpy as np

from cnsim.errors import InputError


def as_intervals(l, r, score) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validate and convert interval columns to contiguous float64 arrays."""
    cols = []
    for name, a in (("l", l), ("r", r), ("score", score)):
        a = np.ascontiguousarray(a, dtype=np.float64)
        if a.ndim != 1:
            raise InputError(f"{name} must be a 1-d array, got shape {a.shape}")
        nan = np.flatnonzero(np.isnan(a))
        if nan.size:
            raise InputError(f"{name} contains NaN at position {int(nan[0])}")
        cols.append(a)
    l, r, score = cols
    if not (len(l) == len(r) == len(score)):
        raise InputError(f"l, r, score lengths differ: {len(l)}, {len(r)}, {len(score)}")
    if not np.isfinite(score).all():
        raise InputError("score must be finite")
    bad = np.flatnonzero(l > r)
    if bad.size:
        i = int(bad[0])
        raise InputError(f"interval {i} has l > r ({l[i]} > {r[i]})")
    if len(l) >= 2**31 - 1:
        raise InputError(f"too many intervals ({len(l)}); at most 2**31 - 2")
    return l, r, score


def check_query(q, k) -> tuple[float, int]:
    """Validate a query point and result size."""
    q = float(q)
    if math.isnan(q):
        raise InputError("query point is NaN")
    if int(k) != k or k < 0:
        raise InputError(f"k must be a non-negative integer, got {k!r}")
    return q, int(k)


def rank_order(score: np.ndarray) -> np.ndarray:
    """Ids in rank order: score descending, ties by smaller id first."""
    return np.lexsort((np.arange(len(score)), -score))


def brute_top_k(l: np.ndarray, r: np.ndarray, score: np.ndarray, q: float, k: int) -> np.ndarray:
    """Top-k stabbing by brute force (the oracle of the tests)."""
    hit = np.flatnonzero((l <= q) & (q <= r))
    o = np.lexsort((hit, -score[hit]))
    return hit[o[:k]].astype(np.int64)


class UnknownParameterError(InputError, TypeError):
    """A keyword argument an index does not declare (a TypeError, as Python raises)."""


_KIND_NAME = {int: "an integer", float: "a number"}


@dataclass(frozen=True)
class Param:
    """One keyword argument of an index: name, type, inclusive bounds, default, meaning.

    ``kind`` is ``int`` (any integral value but bool) or ``float`` (any real but bool
    or NaN); ``low``/``high`` are inclusive bounds (None: unbounded); when ``none`` is
    not empty, None is allowed and ``none`` says what it means.
    """

    name: str
    kind: type
    default: Any
    low: float | None = None
    high: float | None = None
    none: str = ""
    doc: str = ""

    def allowed(self) -> str:
        """What the parameter accepts, in words."""
        text = _KIND_NAME[self.kind]
        if self.low is not None and self.high is not None:
            text += f" in [{self.low}, {self.high}]"
        elif self.low is not None:
            text += f" >= {self.low}"
        elif self.high is not None:
            text += f" <= {self.high}"
        return text + (f", or None ({self.none})" if self.none else "")

    def check(self, owner: str, value: Any) -> Any:
        """``value`` as an int/float/None, or InputError naming the parameter, the value
        and what is allowed."""
        if value is None and self.none:
            return None
        base = numbers.Integral if self.kind is int else numbers.Real
        ok = isinstance(value, base) and not isinstance(value, bool | np.bool_)
        if ok:
            value = self.kind(value)
            ok = not math.isnan(value)
        if ok and self.low is not None:
            ok = value >= self.low
        if ok and self.high is not None:
            ok = value <= self.high
        if not ok:
            raise InputError(
                f"{owner}: {self.name}={value!r} is not allowed; "
                f"{self.name} must be {self.allowed()}"
            )
        return value

    def describe(self) -> str:
        """One line: name, what is allowed, default and meaning."""
        return f"{self.name}: {self.allowed()}; default {self.default!r}. {self.doc}".rstrip()


@numba.njit
def _batch(kernel, kargs, id_map, qs, k, out):
    # not cached: numba cannot cache a function taking another function as argument
    for i in range(qs.shape[0]):
        pos = kernel(*kargs, qs[i], k)
        for j in range(pos.shape[0]):
            out[i, j] = id_map[pos[j]]


class RankedIndex:
    """A top-k stabbing index over scored closed intervals."""

    name: ClassVar[str] = ""
    #: whether the paper(s) describe incremental updates for this structure
    native_updates: ClassVar[bool] = False
    #: the keyword arguments this index takes, one declaration each
    parameters: ClassVar[tuple[Param, ...]] = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        names = [p.name for p in cls.parameters]
        assert len(set(names)) == len(names), f"{cls.__name__}: parameter declared twice"
        for p in cls.parameters:  # a default must pass its own declaration
            p.check(cls.__name__, p.default)
        # explicit keyword-only signature for help(), inspect and notebooks
        pos = inspect.Parameter.POSITIONAL_OR_KEYWORD
        kw = inspect.Parameter.KEYWORD_ONLY
        cls.__signature__ = inspect.Signature(
            [inspect.Parameter(n, pos) for n in ("l", "r", "score")]
            + [
                inspect.Parameter(
                    p.name,
                    kw,
                    default=p.default,
                    annotation=p.kind | None if p.none else p.kind,
                )
                for p in cls.parameters
            ]
        )
        if cls.parameters and cls.__doc__ and "Keyword arguments:" not in cls.__doc__:
            lines = "".join(f"\n    * {p.describe()}" for p in cls.parameters)
            cls.__doc__ = f"{cls.__doc__.rstrip()}\n\n    Keyword arguments:\n{lines}\n"

    @classmethod
    def check_params(cls, params: dict[str, Any]) -> dict[str, Any]:
        """Every declared parameter's checked value (defaults filled in); an unknown
        keyword is an ``UnknownParameterError`` naming it and the allowed ones."""
        owner = f"{cls.__name__} ({cls.name})"
        declared = {p.name: p for p in cls.parameters}
        unknown = sorted(set(params) - set(declared))
        if unknown:
            allowed = ", ".join(declared) if declared else "none"
            raise UnknownParameterError(
                f"{owner} got an unknown keyword argument {unknown[0]!r}; "
                f"its keyword arguments are: {allowed}"
            )
        return {n: p.check(owner, params.get(n, p.default)) for n, p in declared.items()}

    def __init__(self, l, r, score, **params):
        self.params = self.check_params(params)
        l, r, score = as_intervals(l, r, score)
        self._n = len(l)
        self._data: tuple[np.ndarray, np.ndarray, np.ndarray] | None = (l, r, score)
        self._updated = False
        self._build(l, r, score)

    # ---- subclass hooks
    def _build(self, l: np.ndarray, r: np.ndarray, score: np.ndarray) -> None:
        raise NotImplementedError

    def _top_k_core(self, q: float, k: int) -> np.ndarray:
        # subclasses set _kernel (a numba function returning rank-space positions),
        # _kargs (its array arguments) and _map (positions -> ids)
        return self._map[self._kernel(*self._kargs, q, k)]

    def _core_nbytes(self) -> int:
        raise NotImplementedError

    # ---- public interface
    def __len__(self) -> int:
        """Number of live intervals."""
        return self._n

    def top_k(self, q: float, k: int) -> np.ndarray:
        """Ids of the k best intervals containing ``q``, best first."""
        q, k = check_query(q, k)
        if k == 0:
            return np.empty(0, np.int64)
        if not self._updated:
            return self._top_k_core(q, k).astype(np.int64, copy=False)
        return self._top_k_dynamic(q, k)

    def top_k_batch(self, qs, k: int) -> np.ndarray:
        """``top_k`` for many points at once, one row per point padded with -1; the loop
        runs in numba, so it times the structure rather than the Python call."""
        qs = np.ascontiguousarray(qs, np.float64).reshape(-1)
        _, k = check_query(0.0, k)
        if np.isnan(qs).any():
            raise InputError("query point is NaN")
        out = np.full((len(qs), k), -1, np.int64)
        if k == 0:
            return out
        if self._updated:
            for i, q in enumerate(qs):
                ids = self.top_k(q, k)
                out[i, : len(ids)] = ids
            return out
        _batch(self._kernel, self._kargs, self._map, qs, k, out)
        return out

    def iter_desc(self, q: float) -> Iterator[int]:
        """Ids of all intervals containing ``q`` in rank order (seed 000's getnext)."""
        q, _ = check_query(q, 0)
        done, batch = 0, 16
        while True:
            ids = self.top_k(q, batch)
            yield from (int(i) for i in ids[done:])
            if len(ids) < batch:
                return
            done, batch = len(ids), batch * 4

    def nbytes(self) -> int:
        """Bytes of the index arrays (not the input columns it references)."""
        extra = 0
        if self._updated:
            extra = sum(a.nbytes for a in self._dyn_arrays())
        return int(self._core_nbytes() + extra)

    # ---- insert / delete: core + sorted insert buffer + tombstones
    def insert(self, l: float, r: float, score: float) -> int:
        """Add the interval ``[l, r]`` with ``score``; returns its id."""
        l_, r_, s_ = as_intervals([l], [r], [score])
        self._start_updates()
        i = self._size
        if i == len(self._L):
            self._grow()
        self._L[i], self._R[i], self._S[i] = l_[0], r_[0], s_[0]
        self._alive[i] = True
        self._size += 1
        self._n += 1
        # the buffer is kept in rank order
        pos = self._buf_insert_pos(-s_[0])
        self._buf = np.insert(self._buf, pos, i)
        if len(self._buf) > self._buf_budget():
            self._rebuild()
        return i

    def delete(self, i: int) -> None:
        """Remove the interval with id ``i``."""
        self._start_updates()
        if not (0 <= i < self._size) or not self._alive[i]:
            raise InputError(f"no live interval with id {i}")
        self._alive[i] = False
        self._n -= 1
        pos = np.flatnonzero(self._buf == i)
        if pos.size:
            self._buf = np.delete(self._buf, pos)
        else:
            self._dead_in_core += 1
            if self._dead_in_core > max(32, len(self._core_ids) // 2):
                self._rebuild()

    def _start_updates(self) -> None:
        if self._updated:
            return
        l, r, s = self._data
        self._L, self._R, self._S = l.copy(), r.copy(), s.copy()
        self._size = len(l)
        self._alive = np.ones(len(l), dtype=bool)
        self._core_ids = np.arange(len(l), dtype=np.int64)
        self._buf = np.empty(0, np.int64)
        self._dead_in_core = 0
        self._data = None
        self._updated = True

    def _grow(self) -> None:
        cap = max(16, 2 * len(self._L))
        for name in ("_L", "_R", "_S"):
            a = getattr(self, name)
            b = np.empty(cap, a.dtype)
            b[: len(a)] = a
            setattr(self, name, b)
        alive = np.zeros(cap, bool)
        alive[: len(self._alive)] = self._alive
        self._alive = alive

    def _buf_key(self) -> np.ndarray:
        return -self._S[self._buf]

    def _buf_insert_pos(self, neg_score: float) -> int:
        # new ids are the largest, so among equal scores they go last
        return int(np.searchsorted(self._buf_key(), neg_score, side="right"))

    def _buf_budget(self) -> int:
        return max(64, int(math.sqrt(max(self._n, 1))))

    def _rebuild(self) -> None:
        ids = np.flatnonzero(self._alive[: self._size])
        self._core_ids = ids
        self._buf = np.empty(0, np.int64)
        self._dead_in_core = 0
        self._build(self._L[ids], self._R[ids], self._S[ids])

    def _dyn_arrays(self) -> list[np.ndarray]:
        return [self._L, self._R, self._S, self._alive, self._core_ids, self._buf]

    def _top_k_dynamic(self, q: float, k: int) -> np.ndarray:
        core = self._core_alive(q, k)
        b = self._buf
        b = b[(self._L[b] <= q) & (q <= self._R[b])][:k]
        if b.size == 0:
            return core
        both = np.concatenate([core, b])
        o = np.lexsort((both, -self._S[both]))
        return both[o[:k]]

    def _core_alive(self, q: float, k: int) -> np.ndarray:
        """The k best live core intervals containing ``q`` (tombstones skipped)."""
        want = k + min(self._dead_in_core, 64)
        while True:
            pos = self._top_k_core(q, want)
            ids = self._core_ids[pos]
            live = ids[self._alive[ids]]
            if len(live) >= k or len(pos) < want:
                return live[:k]
            want *= 4
