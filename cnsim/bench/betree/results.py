"""The shape of a BE*-tree benchmark result: a figure's axis and its values, the row
labels, a cell's top-k times, and JSON for its numpy scalars."""

from __future__ import annotations

import numpy as np


def axis_params(axis, val) -> dict:
    """The workload parameters a figure's axis sets: one key, or a paired axis' keys."""
    return dict(zip(axis, val, strict=True)) if isinstance(axis, tuple) else {axis: val}


def axis_label(val) -> str:
    """A value's row key (``"5/13"`` for a paired axis' ``(5, 13)``)."""
    return "/".join(map(str, val)) if isinstance(val, tuple | list) else str(val)


def axis_name(axis) -> str:
    return "/".join(axis) if isinstance(axis, tuple) else axis


def fig_base(spec) -> dict:
    """A figure's overrides of the defaults (its third element, if any)."""
    return spec[2] if len(spec) > 2 else {}


def fig_dists(spec, dists) -> list[str]:
    """The row labels a figure is measured under: "real" (if ``dists`` has it) when its
    base names its own ``dist`` (the DBLP-like strings' attributes), else ``dists`` but
    "real"."""
    if "dist" in fig_base(spec):
        return [d for d in dists if d == "real"]
    return [d for d in dists if d != "real"]


def top_us(cell: dict, k: int) -> float:
    """A structure's top-``k`` µs per event in a result cell."""
    t = cell["top_us"]  # int keys in memory, str keys after a JSON round trip
    return t[k] if k in t else t[str(k)]


def json_default(o):
    if isinstance(o, np.integer | np.floating):
        return o.item()
    raise TypeError(type(o))


CELL_NUMBERS = ("build_s", "match_us", "mean_matches", "mb")  # a cell's numbers
TOP_KS = (1, 5)  # the top-k times a cell holds (RESULTS' tables print both)


def shape_problem(res: dict, axes: dict) -> str | None:
    """What keeps ``res`` (read back from JSON) from being a result of this benchmark:
    ``figures`` a dict of figure → row label → axis value → structure → cell, a cell a
    dict of :data:`CELL_NUMBERS` and ``top_us`` for :data:`TOP_KS`; ``structures`` the
    structure labels (a list or dict of text); an axis value of ``axes``' ``n`` a whole
    number, of ``match_prob`` a number. ``None``: it is one."""
    labels = res.get("structures")
    if not isinstance(labels, list | dict) or not all(isinstance(s, str) for s in labels):
        return f"'structures' = {_short(labels)} is not a list of structure labels"
    try:
        for fig, per in _dict_of(res.get("figures"), "'figures'", "figures").items():
            where = f"figures[{fig!r}]"
            axis = axes.get(fig, (fig,))[0]
            for dist, rows in _dict_of(per, where, "row labels").items():
                for val, cell in _dict_of(rows, f"{where}[{dist!r}]", "axis values").items():
                    at = f"{where}[{dist!r}][{val!r}]"
                    if not _reads_as(val, axis):
                        return f"{at}: the axis value {val!r} is not a number of {axis_name(axis)}"
                    for label, c in _dict_of(cell, at, "structures", empty=False).items():
                        problem = _cell_problem(c)
                        if problem is not None:
                            return f"{at}[{label!r}] {problem}"
    except _NotADict as e:
        return str(e)
    return None


class _NotADict(Exception):
    """A level of the result that is not the dict it should be (the message says which)."""


def _dict_of(value, where: str, what: str, empty: bool = True) -> dict:
    """``value`` if it is a dict (a non-empty one unless ``empty``); else raises
    :class:`_NotADict` saying that ``where`` is not a dict of ``what``."""
    if not isinstance(value, dict) or not (empty or value):
        raise _NotADict(f"{where} = {_short(value)} is not a dict of {what}")
    return value


def _cell_problem(cell) -> str | None:
    if not isinstance(cell, dict):
        return f"= {_short(cell)} is not a dict of measurements"
    for key in CELL_NUMBERS:
        if not _number(cell.get(key)):
            return f"has {key!r} = {_short(cell.get(key))}, not a number"
    top = cell.get("top_us")
    if not isinstance(top, dict):
        return f"has 'top_us' = {_short(top)}, not a dict of top-k times"
    for k in TOP_KS:
        value = top.get(k, top.get(str(k)))
        if not _number(value):
            return f"has top_us[{k}] = {_short(value)}, not a number"
    return None


def _number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _reads_as(val: str, axis) -> bool:
    """Whether a row key reads as a value of ``axis`` (what the tables print of it)."""
    try:
        if axis == "n":
            int(val)
        elif axis == "match_prob":
            float(val)
    except (TypeError, ValueError):
        return False
    return True


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
