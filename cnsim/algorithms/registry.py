"""Approaches by the names the paper uses: one catalog, one parser.

* ``paint-dense``, ``paint-sparse``, each optionally with ε = 1/2^i in parentheses:
  ``paint-dense(0.25)``, ``paint-sparse(1/8)``;
* batch processing over one of those (default ``paint-dense``): ``paint-batch``,
  ``coalesce``, ``online``, e.g. ``paint-batch(paint-sparse(0.5))``;
* the baselines of §V: ``unicast`` (the paper's procedure and call count),
  ``unicast-lazy`` (the same messages, fewer ``min_y`` calls) and ``cn-relax``;
* ``ranked``: ranked delivery of issue 13 (the global top-k by score per event).

A new approach is one class (see :class:`cnsim.algorithms.base.Approach`) and one
line in :data:`FAMILIES` (or :data:`BATCH`). :func:`parse` turns a written name into
an :class:`~cnsim.algorithms.base.ApproachSpec` once; :func:`make_approach` builds it.
"""

from __future__ import annotations

import math
import re

from cnsim.algorithms.base import Approach, ApproachSpec, ServerView
from cnsim.algorithms.batch import Coalesce, Online, PaintBatch
from cnsim.algorithms.boxes.approaches import (
    CNRelaxBoxes,
    PaintDenseBoxesApproach,
    PaintSparseBoxesApproach,
    UnicastBoxes,
)
from cnsim.algorithms.cn_relax import CNRelax
from cnsim.algorithms.paint_dense import PaintDense
from cnsim.algorithms.paint_sparse import PaintSparse
from cnsim.algorithms.range15d.approaches import (
    CNRelax15,
    PaintDense15Approach,
    PaintSparse15Approach,
    Unicast15,
)
from cnsim.algorithms.ranked import Ranked
from cnsim.algorithms.unicast import Unicast, UnicastLazy

FAMILIES: dict[str, type[Approach]] = {
    "paint-dense": PaintDense,
    "paint-sparse": PaintSparse,
    "unicast": Unicast,
    "unicast-lazy": UnicastLazy,
    "cn-relax": CNRelax,
    "ranked": Ranked,
}
BATCH: dict[str, type[Online]] = {"paint-batch": PaintBatch, "coalesce": Coalesce, "online": Online}
# The families with a 1.5-d class (seed 003 appendix D; [subscriptions] kind =
# "range-1.5d"): make_approach builds these when the view carries the objects' x2.
FAMILIES_15D: dict[str, type[Approach]] = {
    "paint-dense": PaintDense15Approach,
    "paint-sparse": PaintSparse15Approach,
    "unicast": Unicast15,
    "cn-relax": CNRelax15,
}
# The families with a d-dimensional box class (seed 003 §IV-C; [subscriptions] kind =
# "box"): make_approach builds these when the view carries the boxes' attributes.
FAMILIES_BOXES: dict[str, type[Approach]] = {
    "paint-dense": PaintDenseBoxesApproach,
    "paint-sparse": PaintSparseBoxesApproach,
    "unicast": UnicastBoxes,
    "cn-relax": CNRelaxBoxes,
}
DEFAULT_BATCH_BASE = "paint-dense"

_NAME = re.compile(r"^\s*([a-z-]+)\s*(?:\((.*)\))?\s*$")


def _allowed() -> str:
    eps = [f for f, c in FAMILIES.items() if c.takes_eps]
    plain = [f for f, c in FAMILIES.items() if not c.takes_eps]
    under = [f for f, c in FAMILIES.items() if c.batchable]
    return (
        f"{', '.join(eps)} (optionally with ε = 1/2^i in parentheses, e.g. "
        f"'{eps[-1]}(0.25)'), {', '.join(BATCH)} (optionally over one of "
        f"{', '.join(under)}, e.g. 'paint-batch({under[-1]})'), {', '.join(plain)}"
    )


def parse(name: str) -> ApproachSpec:
    """The spec of a written name. Raises ValueError saying what is allowed."""
    match = _NAME.match(name) if isinstance(name, str) else None
    head, arg = (match.group(1), match.group(2)) if match else (None, None)
    if head in BATCH:
        base = parse(arg or DEFAULT_BATCH_BASE)
        if base.batch is not None or not base.cls.batchable:
            under = ", ".join(f for f, c in FAMILIES.items() if c.batchable)
            raise ValueError(
                f"unknown approach {name!r}: batch approaches run over {under} (with or without ε)"
            )
        return base.with_batch(head)
    cls = FAMILIES.get(head)
    if cls is None or (arg is not None and not cls.takes_eps):
        raise ValueError(f"unknown approach {name!r}; allowed: {_allowed()}")
    return ApproachSpec(head, parse_eps(arg) if arg is not None else None)


def canonical_name(name: str) -> str:
    """The name results are reported under (``paint-batch`` -> ``paint-batch(paint-dense)``)."""
    return parse(name).name


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


def make_approach(spec: ApproachSpec | str, view: ServerView) -> Approach:
    """The approach of ``spec`` (or a written name) with its own server state."""
    spec = parse(spec) if isinstance(spec, str) else spec
    if view.boxes is not None:  # d-dimensional boxes (the scenario's rules allow these only)
        if spec.batch is not None or spec.eps is not None or spec.family not in FAMILIES_BOXES:
            allowed = ", ".join(FAMILIES_BOXES)
            raise ValueError(f"{spec.name!r} has no box version; allowed: {allowed}")
        return FAMILIES_BOXES[spec.family].create(spec, view)
    if view.x2 is not None:  # 1.5-d subscriptions (the scenario's rules allow these only)
        if spec.batch is not None or spec.eps is not None or spec.family not in FAMILIES_15D:
            allowed = ", ".join(FAMILIES_15D)
            raise ValueError(f"{spec.name!r} has no 1.5-d version; allowed: {allowed}")
        return FAMILIES_15D[spec.family].create(spec, view)
    return (spec.cls if spec.batch is None else BATCH[spec.batch]).create(spec, view)
