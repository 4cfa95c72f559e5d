"""Approaches by the names the paper uses: ``paint-dense``, ``paint-sparse(0.25)``, …

One interface for all (scikit-learn style): ``approach.messages(obj, y_old, y_new)``
returns the :class:`~cnsim.algorithms.messages.Messages` for one event, with the
object index already holding ``y_new``; ``approach.name`` and ``approach.exact``
describe it.
"""

from __future__ import annotations

import math
import re

from cnsim.algorithms.paint_dense import PaintDense
from cnsim.algorithms.paint_sparse import PaintSparse
from cnsim.server.object_index import ObjectIndex
from cnsim.subscriptions.index import SubscriptionIndex

FAMILIES = ("paint-dense", "paint-sparse")
_NAME = re.compile(r"^\s*([a-z-]+)\s*(?:\(\s*([0-9./]+)\s*\))?\s*$")


def parse_approach(name: str) -> tuple[str, float | None]:
    """``(family, eps)`` from a written name; raises ValueError saying what is allowed."""
    match = _NAME.match(name) if isinstance(name, str) else None
    if not match or match.group(1) not in FAMILIES:
        raise ValueError(
            f"unknown approach {name!r}; allowed: {', '.join(FAMILIES)}, "
            "each optionally with ε = 1/2^i in parentheses, e.g. 'paint-sparse(0.25)'"
        )
    family, eps_text = match.groups()
    return family, (parse_eps(eps_text) if eps_text else None)


def parse_eps(text: str) -> float:
    """ε from its written form (``0.25`` or ``1/4``); must be 1/2^i with i >= 0."""
    try:
        num, _, den = text.partition("/")
        eps = float(num) / float(den) if den else float(text)
    except (ValueError, ZeroDivisionError):
        eps = math.nan
    if not (0 < eps <= 1) or not math.log2(1 / eps).is_integer():
        raise ValueError(f"ε must be 1/2^i (1, 0.5, 0.25, …), got {text!r}")
    return eps


def make_approach(name: str, objects: ObjectIndex, subscriptions: SubscriptionIndex, k: int):
    """The approach called ``name`` over the given indexes."""
    family, eps = parse_approach(name)
    if family == "paint-dense":
        return PaintDense(objects, k, eps)
    return PaintSparse(objects, subscriptions, k, eps)
