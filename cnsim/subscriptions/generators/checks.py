"""Checks of the arguments that the workload generators and the Boolean-expression
indexes take from their callers: a bad one raises :class:`~cnsim.errors.InputError` with
a one-line message naming the argument, its value and what is allowed, before anything
is allocated.  Each check runs once per call (never per element in a Python loop), so
it costs nothing measurable on the hot paths."""

from __future__ import annotations

import numpy as np

from cnsim.errors import InputError

#: the largest count (of elements of one array) a generator is asked for: more would
#: need tens of GB of memory, so such a size is refused instead of tried
MAX_COUNT = 2**31 - 1


def check_int(name: str, value, lo: int | None = 0, hi: int | None = MAX_COUNT,
              error: type[Exception] = InputError) -> int:  # fmt: skip
    """``value`` as an ``int``; it must be an integer (Python or numpy, not a bool) with
    ``lo <= value <= hi`` (``None``: no bound), else ``error`` is raised."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int | np.integer)
        or (lo is not None and value < lo)
        or (hi is not None and value > hi)
    ):
        bounds = [f"{op} {b}" for op, b in ((">=", lo), ("<=", hi)) if b is not None]
        raise error(f"{name} = {value!r}; allowed: an integer {' and '.join(bounds)}".rstrip())
    return int(value)


def check_product(names: str, value: int, hi: int = MAX_COUNT,
                  error: type[Exception] = InputError) -> None:  # fmt: skip
    """Refuse an array of ``value`` elements (``names``: the sizes it is the product of)."""
    if value > hi:
        raise error(f"{names} = {value}; allowed: at most {hi} (an array that large "
                    "cannot be allocated)")  # fmt: skip


def check_seed(name: str, value) -> int:
    """A seed of ``numpy.random.default_rng``: an integer >= 0 (Python or numpy)."""
    return check_int(name, value, 0, None)


def check_rng(name: str, value) -> np.random.Generator:
    """A random generator the caller made: a ``numpy.random.Generator``."""
    if not isinstance(value, np.random.Generator):
        raise InputError(f"{name} = {short_repr(value)}; allowed: a numpy.random.Generator "
                         "(numpy.random.default_rng(seed))")  # fmt: skip
    return value


def check_choice(name: str, value, allowed: tuple[str, ...]) -> str:
    """``value``, one of the names ``allowed``."""
    if not (isinstance(value, str) and value in allowed):
        choices = ", ".join(repr(a) for a in allowed)
        raise InputError(f"{name} = {short_repr(value)}; allowed: one of {choices}")
    return value


def as_1d(name: str, a, kind: str) -> np.ndarray:
    """``a`` as a 1-d numpy array (not a copy when it already is one).

    ``kind``: ``"int"`` (integers, or floats holding finite whole numbers, as int64),
    ``"float"`` (numbers, as float64; NaN and inf are left for the caller to judge) or
    ``"any"`` (as given)."""
    try:
        x = np.asarray(a)
    except (TypeError, ValueError) as e:
        raise InputError(f"{name} = {short_repr(a)}; allowed: a 1-d array ({e})") from None
    if x.ndim != 1:
        raise InputError(f"{name} = {short_repr(a)} has shape {x.shape}; allowed: a 1-d array")
    if kind == "any":
        return x
    k = x.dtype.kind
    if kind == "int":
        if k == "i":
            return x.astype(np.int64, copy=False)
        if k == "u":
            if x.size and x.max() > np.iinfo(np.int64).max:
                raise InputError(f"{name} holds {x.max()}; allowed: integers below 2**63")
            return x.astype(np.int64)
        if k == "f" and x.size == 0:
            return x.astype(np.int64)
        if k == "f":
            bad = np.flatnonzero(~np.isfinite(x) | (np.floor(x) != x) | (np.abs(x) >= 2.0**63))
            if not bad.size:
                return x.astype(np.int64)
            raise InputError(f"{name}[{bad[0]}] = {x[bad[0]].item()!r}; allowed: integers")
        if k == "O" and x.size == 0:
            return np.empty(0, np.int64)
        raise InputError(f"{name} has dtype {x.dtype} ({short_repr(a)}); allowed: integers")
    if k in "iuf":
        return x.astype(np.float64, copy=False)
    if k == "O" and x.size == 0:
        return np.empty(0)
    raise InputError(f"{name} has dtype {x.dtype} ({short_repr(a)}); allowed: numbers")


def short_repr(a) -> str:
    """``repr(a)`` on one line (an array's rows joined), at most 60 characters."""
    s = " ".join(repr(a).split())
    return s if len(s) <= 60 else s[:57] + "..."
