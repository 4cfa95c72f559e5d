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
