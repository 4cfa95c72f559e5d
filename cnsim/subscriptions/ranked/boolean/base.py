"""The interface every Boolean-expression index shares.

An index holds subscriptions (Boolean expressions); ids are insertion positions
(0, 1, 2, ... over the index's lifetime; a deleted id is never reused).  Queries take
an event (an expression: text or a one-expression :class:`Expressions`):

* ``match(event)``: ids of every matching subscription, ascending;
* ``top_k(event, k)``: the k best, score descending, ties by smaller id;
* ``top_k_batch(events, k)`` / ``count_batch(events)``: the same for a CSR batch of
  events with the loop inside numba (what the benchmark times).

A subclass provides exactly three things:

* ``_add(ids)``: index the subscriptions ``ids``, already appended to ``self._store``;
* ``_remove(i)``: unindex subscription ``i`` (still in the store, already marked dead);
* ``_kernel()``: ``(kernel, T)``: a numba function ``kernel(T, E, k, R)`` that offers
  every match it finds (``k < 0``) or enough of them for the top-k (``k >= 0``) to the
  collector ``R`` (``_kernels.offer``), and its argument tuple ``T``;

and may override ``_nbytes`` (bytes of its own structures).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import ClassVar

import numpy as np

from cnsim.errors import InputError
from cnsim.subscriptions.generators.checks import check_int, check_product, short_repr
from cnsim.subscriptions.ranked.boolean import _kernels as K
from cnsim.subscriptions.ranked.boolean.expressions import (
    Expressions,
    as_expression,
    parse_many,
)


def _grow(a: np.ndarray, need: int) -> np.ndarray:
    if need <= len(a):
        return a
    b = np.empty(max(need, 2 * len(a), 16), a.dtype)
    b[: len(a)] = a
    return b


class Store:
    """The subscriptions of an index, columnar and growable (no object per subscription).

    Subscription ``i`` owns predicates ``s_start[i]:s_end[i]`` of the ``p_*`` columns
    (sorted by attribute); ``alive[i]`` is False once deleted."""

    def __init__(self):
        self.n = 0  # ids given
        self.m = 0  # predicates stored
        self.nv = 0  # operand values stored
        self.s_start = np.empty(0, np.int64)
        self.s_end = np.empty(0, np.int64)
        self.alive = np.empty(0, np.bool_)
        self.p_attr = np.empty(0, np.int64)
        self.p_op = np.empty(0, np.int8)
        self.p_lo = np.empty(0)
        self.p_hi = np.empty(0)
        self.p_w = np.empty(0)
        self.p_vptr = np.zeros(1, np.int64)
        self.values = np.empty(0)
        self.max_attr = -1

    def append(self, e: Expressions) -> np.ndarray:
        n, m, nv = len(e), len(e.attr), len(e.values)
        i0, j0, v0 = self.n, self.m, self.nv
        for name, need in (("s_start", i0 + n), ("s_end", i0 + n), ("alive", i0 + n)):
            setattr(self, name, _grow(getattr(self, name), need))
        for name in ("p_attr", "p_op", "p_lo", "p_hi", "p_w"):
            setattr(self, name, _grow(getattr(self, name), j0 + m))
        self.p_vptr = _grow(self.p_vptr, j0 + m + 1)
        self.values = _grow(self.values, v0 + nv)
        self.s_start[i0 : i0 + n] = e.indptr[:-1] + j0
        self.s_end[i0 : i0 + n] = e.indptr[1:] + j0
        self.alive[i0 : i0 + n] = True
        self.p_attr[j0 : j0 + m] = e.attr
        self.p_op[j0 : j0 + m] = e.op
        self.p_lo[j0 : j0 + m] = e.lo
        self.p_hi[j0 : j0 + m] = e.hi
        self.p_w[j0 : j0 + m] = e.weight
        self.p_vptr[j0 + 1 : j0 + m + 1] = e.vptr[1:] + v0
        self.values[v0 : v0 + nv] = e.values
        if m:
            self.max_attr = max(self.max_attr, int(e.attr.max()))
        self.n, self.m, self.nv = i0 + n, j0 + m, v0 + nv
        return np.arange(i0, i0 + n, dtype=np.int64)

    def arrays(self) -> tuple:
        """``S`` of the kernels (views over the used part)."""
        n, m = self.n, self.m
        return (
            self.s_start[:n], self.s_end[:n], self.alive[:n], self.p_attr[:m],
            self.p_op[:m], self.p_lo[:m], self.p_hi[:m], self.p_w[:m],
            self.p_vptr[: m + 1], self.values[: self.nv],
        )  # fmt: skip

    def expressions(self) -> Expressions:
        """Every subscription ever stored (dead ones included), as one collection."""
        n, m = self.n, self.m
        indptr = np.zeros(n + 1, np.int64)
        ln = self.s_end[:n] - self.s_start[:n]
        np.cumsum(ln, out=indptr[1:])
        # predicates are stored contiguously in id order
        return Expressions(
            indptr, self.p_attr[:m].copy(), self.p_op[:m].copy(), self.p_w[:m].copy(),
            self.p_lo[:m].copy(), self.p_hi[:m].copy(), self.p_vptr[: m + 1].copy(),
            self.values[: self.nv].copy(),
        )  # fmt: skip

    def nbytes(self) -> int:
        return sum(
            a.nbytes
            for a in (self.s_start, self.s_end, self.alive, self.p_attr, self.p_op, self.p_lo,
                      self.p_hi, self.p_w, self.p_vptr, self.values)
        )  # fmt: skip


def as_expressions(x, what: str = "expressions") -> Expressions:
    """An :class:`Expressions` from itself, one text or an iterable of texts."""
    if isinstance(x, Expressions):
        return x
    if isinstance(x, str):
        return as_expression(x)
    if isinstance(x, Iterable) and not isinstance(x, bytes):
        return parse_many(list(x))
    raise InputError(
        f"{what} = {short_repr(x)}; allowed: Expressions, a text or an iterable of texts"
    )


def check_k(k) -> int:
    """``k`` as an ``int``: an integer >= 0 (a float holding a whole number is taken as
    that integer); anything else raises ``InputError``."""
    if isinstance(k, float | np.floating) and math.isfinite(k) and k == math.floor(k):
        k = int(k)
    return check_int("k", k, 0, None)


def check_id(i) -> int:
    """A subscription id as an ``int``: an integer (Python or numpy, not a bool or a
    float), else ``InputError``."""
    return check_int("subscription id", i, None, None)


def check_event_values(e: Expressions, what: str) -> None:
    """Refuse an event whose operand values or weights are not finite (possible only for
    an :class:`Expressions` built around the validation of ``from_arrays`` / ``parse``)."""
    if not K.all_finite(e.values, e.weight):
        bad = np.concatenate([e.values[~np.isfinite(e.values)], e.weight[~np.isfinite(e.weight)]])
        raise InputError(f"{what} holds the value {bad[0]}; allowed: finite numbers")


class BooleanIndex(ABC):
    """A dynamic index of Boolean-expression subscriptions with top-k matching."""

    name: ClassVar[str] = ""

    def __init__(self, subscriptions=None):
        self._store = Store()
        self._n_alive = 0
        if subscriptions is not None:
            self.insert_many(subscriptions)

    # ---------------------------------------------------------- subclass hooks
    @abstractmethod
    def _add(self, ids: np.ndarray) -> None:
        """Index the subscriptions ``ids`` (already in ``self._store``)."""

    @abstractmethod
    def _remove(self, i: int) -> None:
        """Unindex subscription ``i`` (still in the store, ``alive[i]`` already False)."""

    @abstractmethod
    def _kernel(self) -> tuple:
        """``(kernel, T)``: the numba query function and its argument tuple."""

    def _nbytes(self) -> int:
        return 0

    def _check_event(self, e: Expressions) -> None:
        """Reject events the structure cannot answer (raise ``InputError``)."""
        return None

    # ------------------------------------------------------------ updates
    def __len__(self) -> int:
        """Number of live subscriptions."""
        return self._n_alive

    def insert(self, expr) -> int:
        """Add one subscription (text or a one-expression collection); its id."""
        return int(self.insert_many(as_expression(expr, "subscription"))[0])

    def insert_many(self, exprs) -> np.ndarray:
        """Add subscriptions in order; their ids."""
        e = as_expressions(exprs, "subscriptions")
        ids = self._store.append(e)
        self._n_alive += len(ids)
        if len(ids):
            self._add(ids)
        return ids

    def delete(self, i: int) -> None:
        """Remove subscription ``i`` (an integer id, Python or numpy); an id of another
        type, never given or already deleted raises ``InputError``."""
        st = self._store
        i = check_id(i)
        if not (0 <= i < st.n) or not st.alive[i]:
            raise InputError(f"no live subscription with id {i!r}")
        st.alive[i] = False
        self._n_alive -= 1
        self._remove(i)

    def is_alive(self, i: int) -> bool:
        i = check_id(i)
        return 0 <= i < self._store.n and bool(self._store.alive[i])

    def subscriptions(self) -> Expressions:
        """Every subscription ever inserted (ids = positions; see ``alive()``)."""
        return self._store.expressions()

    def alive(self) -> np.ndarray:
        return self._store.alive[: self._store.n].copy()

    # ------------------------------------------------------------ queries
    def _event(self, event) -> tuple:
        e = as_expression(event, "event")
        check_event_values(e, "event")
        self._check_event(e)
        slot = np.full(self._store.max_attr + 1, -1, np.int64)
        inside = e.attr < len(slot)
        slot[e.attr[inside]] = np.flatnonzero(inside)
        return (slot, e.attr, e.op, e.lo, e.hi, e.weight, e.vptr, e.values)

    def _run(self, event, k: int) -> np.ndarray:
        E = self._event(event)
        kernel, T = self._kernel()
        cap = self._store.n if k < 0 else k
        R = (np.empty(cap), np.empty(cap, np.int64), np.zeros(1, np.int64))
        kernel(T, E, k, R)
        out = np.empty(cap, np.int64)
        n = K.finish(R, k, out)
        return out[:n]

    def match(self, event) -> np.ndarray:
        """Ids of every subscription the event matches, ascending."""
        return np.sort(self._run(event, -1))

    def top_k(self, event, k: int) -> np.ndarray:
        """Ids of the k best-scoring matching subscriptions (score descending, ties by
        smaller id).  ``k`` is an integer >= 0 (else ``InputError``); a ``k`` above the
        number of live subscriptions is clamped to it (no more can match), so a huge
        ``k`` returns every match, best first, without allocating ``k`` slots."""
        k = check_k(k)
        if k == 0 or self._n_alive == 0:
            self._event(event)  # a bad event is refused even when nothing can match
            return np.empty(0, np.int64)
        return self._run(event, min(k, self._n_alive))

    def _batch(self, events, k: int, cols: int) -> np.ndarray:
        ev = as_expressions(events, "events")
        check_event_values(ev, "events")
        self._check_event(ev)
        slot = np.full(self._store.max_attr + 1, -1, np.int64)
        kernel, T = self._kernel()
        if k > self._n_alive:  # no more than the live subscriptions can match
            k = max(self._n_alive, 1)
        cap = self._store.n if k < 0 else max(k, 1)
        out = np.full((len(ev), cols), -1, np.int64)
        K.run_batch(kernel, T, ev.indptr, ev.attr, ev.op, ev.lo, ev.hi, ev.weight, ev.vptr,
                    ev.values, slot, k, cap, out)  # fmt: skip
        return out

    def top_k_batch(self, events, k: int) -> np.ndarray:
        """``top_k`` for every event of a batch: one row each, padded with -1 to ``k``
        columns.  ``k`` is an integer >= 0 (else ``InputError``); the search itself uses
        at most the number of live subscriptions, but the result still has ``k`` columns,
        so a ``k`` above that number whose result would exceed ``MAX_COUNT`` entries is
        refused (``InputError``) rather than allocated."""
        k = check_k(k)
        events = as_expressions(events, "events")
        if k > self._n_alive:
            check_product(f"k x events ({k} x {len(events)}, with {self._n_alive} live "
                          "subscriptions)", k * len(events))  # fmt: skip
        return self._batch(events, k, k)

    def count_batch(self, events) -> np.ndarray:
        """Number of matches of every event of a batch."""
        return self._batch(events, -1, 1)[:, 0]

    def nbytes(self) -> int:
        """Bytes of the subscription store and the index structures."""
        return int(self._store.nbytes() + self._nbytes())
