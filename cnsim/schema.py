"""The validation language of every configuration table: keys declared as :class:`Key`
(type, default, allowed set, bounds, doc), rules across keys declared as :class:`Rule`,
and one checker whose errors all read ``SOURCE: KEY = VALUE PROBLEM; allowed: WHAT``.

The scenario (``simulations.config.SCHEMA``), the ``[network]`` table
(``network.params.NETWORK_SCHEMA``), a sweep file's ``[sweep]`` table and the benchmark
command options are declared with it. This module and the modules declaring those tables
form the configuration layer, the only one that raises :class:`ConfigError`; the layers
below assert their preconditions.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from cnsim.errors import ConfigError

_UNSET = object()  # "no value to show" (an unknown section, say)
_NAMES = {bool: "true or false", int: "an integer", float: "a finite number", str: "a string"}
_NAMES |= {dict: "a table", list: "an array", tuple: "an array"}
_PLURALS = {bool: "booleans", int: "integers", float: "numbers", str: "strings", dict: "tables"}


@dataclass(frozen=True)
class Key:
    """One configuration key: its type, default, allowed values or bounds, and meaning.

    ``default`` None marks a key that may stay unset (None is then accepted). For an
    array, ``items`` is the type of its elements, ``length`` its required length, and
    the bounds apply to the elements."""

    kind: type | tuple[type, ...]
    default: Any
    allowed: tuple | None = None  # the allowed values, if a closed set
    low: float | None = None  # lower bound for numbers (inclusive unless low_open)
    high: float | None = None  # inclusive upper bound for numbers
    doc: str = ""
    items: type | None = None  # element type of an array
    length: int | None = None  # required length of an array
    low_open: bool = False  # the lower bound itself is not allowed


@dataclass(frozen=True)
class Rule:
    """A rule across the keys of one table: when ``ok(values)`` is false, ``key`` is
    reported with ``problem`` and ``allowed`` (a format string over the values, e.g.
    ``"at most network.ip_nodes = {ip_nodes}"`` or ``"{events[batch_size]}"``)."""

    key: str  # the key named in the error ("brokers", or "section.key" in a scenario)
    ok: Callable[[Mapping[str, Any]], bool]
    problem: str
    allowed: str
    value: Callable[[Mapping[str, Any]], Any] | None = None  # shown value (default: key's)


def config_error(
    source: str, where: str, value: Any = _UNSET, problem: str = "", allowed: str = ""
) -> ConfigError:
    """The one shape of a configuration error: ``source: where = value problem; allowed: …``."""
    text = where if value is _UNSET else f"{where} = {show(value)}"
    text = f"{source}: {text}" if source else text
    text = f"{text} {problem}" if problem else text
    return ConfigError(f"{text}; allowed: {allowed}" if allowed else text)


def show(value: Any, limit: int = 80) -> str:
    """``repr(value)``, shortened to ``limit`` characters (a text, such as a path or a
    URL, to four times that: its end names the file); a numpy scalar as the Python value
    it holds (``inf``, not ``np.float64(inf)``)."""
    value = _plain(value)
    if isinstance(value, list | tuple):
        value = type(value)(_plain(v) for v in value)
    text = repr(value)
    limit = 4 * limit if isinstance(value, str) else limit
    return text if len(text) <= limit else text[: limit - 3] + "..."


def allowed_text(key: Key) -> str:
    """What ``key`` allows, in words: ``an integer 1 .. 1000``, ``one of 'a', 'b'``, …"""
    if key.allowed is not None:
        return "one of " + ", ".join(repr(a) for a in key.allowed)
    kinds = key.kind if isinstance(key.kind, tuple) else (key.kind,)
    if set(kinds) <= {list, tuple}:
        size = f"{key.length} " if key.length is not None else ""
        what = f"an array of {size}{_PLURALS[key.items] if key.items else 'values'}"
    else:
        what = " or ".join(dict.fromkeys(_NAMES.get(k, k.__name__) for k in kinds))
        if key.items is not None and list in kinds:
            what = what.replace("an array", f"an array of {_PLURALS[key.items]}")
    return what + _bounds_text(key)


def _bounds_text(key: Key) -> str:
    if key.low is not None and key.high is not None and not key.low_open:
        return f" {key.low!r} .. {key.high!r}"
    parts = []
    if key.low is not None:
        parts.append(f"{'>' if key.low_open else '>='} {key.low!r}")
    if key.high is not None:
        parts.append(f"<= {key.high!r}")
    return (" " + " and ".join(parts)) if parts else ""


def check_value(key: Key, value: Any, where: str, source: str = "") -> Any:
    """``value`` checked against ``key`` (an int for a float key becomes a float); raises
    :class:`ConfigError` naming ``where``, the value and what is allowed."""
    if value is None and key.default is None:
        return None  # an optional key left unset
    value = _coerce(key, value)
    elements = list(value) if isinstance(value, list | tuple) else [value]
    well_typed = _is(value, key.kind) and (
        key.items is None
        or not isinstance(value, list | tuple)
        or all(_is(v, key.items) for v in elements)
    )
    if not well_typed or (key.length is not None and len(elements) != key.length):
        raise config_error(source, where, value, "has the wrong type", allowed_text(key))
    numbers = [v for v in elements if isinstance(v, float)]
    if not all(math.isfinite(v) for v in numbers):
        raise config_error(source, where, value, "is not finite", allowed_text(key))
    if key.allowed is not None and value not in key.allowed:
        raise config_error(source, where, value, "is not one of the choices", allowed_text(key))
    if not all(_within(key, v) for v in elements if isinstance(v, int | float)):
        raise config_error(source, where, value, "is out of range", allowed_text(key))
    return value


def _coerce(key: Key, value: Any) -> Any:
    """numpy scalars (a notebook's ``np.arange``) as the Python values they hold, and
    integers given for a float key (or float elements) as floats."""
    value = _plain(value)
    if isinstance(value, list | tuple):
        value = type(value)(_plain(v) for v in value)
    if isinstance(value, list | tuple) and key.items is float:
        return type(value)(_to_float(v) for v in value)
    return _to_float(value) if key.kind is float else value


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def _to_float(value: Any) -> Any:
    return float(value) if isinstance(value, int) and not isinstance(value, bool) else value


def _is(value: Any, kind: type | tuple[type, ...]) -> bool:
    """``isinstance``, except that a boolean is not an integer (nor a number)."""
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return isinstance(value, kinds) and (bool in kinds or not isinstance(value, bool))


def _within(key: Key, v: float) -> bool:
    """Whether the number ``v`` lies within the bounds of ``key``."""
    above = key.low is None or (v > key.low if key.low_open else v >= key.low)
    return above and (key.high is None or v <= key.high)


def check_table(
    schema: Mapping[str, Key],
    table: Mapping[str, Any],
    source: str = "",
    prefix: str = "",
    name: str = "",
    retired: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """A table checked key by key against ``schema`` and completed with the defaults (in
    schema order); keys are named ``prefix + key`` in errors, ``name`` names the table;
    a ``retired`` key is refused with what replaces it."""
    for key, value in table.items():
        if retired and key in retired:
            raise config_error(source, prefix + key, value, "is retired", retired[key])
        if key not in schema:
            where = f"is not a key of {name}" if name else "is not a key"
            shown = prefix + (key or '""')  # an empty name, seen
            raise config_error(source, shown, value, where, ", ".join(schema) or "none")
    return {
        key: (
            check_value(spec, table[key], prefix + key, source)
            if key in table
            else copy.deepcopy(spec.default)
        )
        for key, spec in schema.items()
    }


def check_rules(
    rules: tuple[Rule, ...], values: Mapping[str, Any], source: str = "", prefix: str = ""
) -> None:
    """Raise :class:`ConfigError` for the first rule that ``values`` break."""
    for rule in rules:
        if not rule.ok(values):
            value = rule.value(values) if rule.value else lookup(values, rule.key)
            allowed = rule.allowed.format_map(values)
            raise config_error(source, prefix + rule.key, value, rule.problem, allowed)


def lookup(values: Mapping[str, Any], path: str) -> Any:
    """The value at ``key`` or ``section.key`` in a table (or a table of tables)."""
    if path in values:
        return values[path]
    section, _, key = path.partition(".")
    return values[section][key]
