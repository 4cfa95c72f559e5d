"""Approaches by the names the paper uses.

* ``paint-dense``, ``paint-sparse``, each optionally with ε = 1/2^i in parentheses:
  ``paint-dense(0.25)``, ``paint-sparse(1/8)``;
* batch processing over one of those (default ``paint-dense``): ``paint-batch``,
  ``coalesce``, ``online``, e.g. ``paint-batch(paint-sparse(0.5))``;
* the baselines of §V: ``unicast`` and ``cn-relax``.

One interface for all (scikit-learn style): ``approach.process(updates)`` applies a
batch of y-updates to the approach's own object index and returns the
:class:`~cnsim.algorithms.messages.Messages` it sends; ``approach.name`` (canonical),
``approach.exact``, ``approach.eps`` and ``approach.counter`` describe it.
"""

from __future__ import annotations

import math
import re

import numpy as np

from cnsim.algorithms.batch import Coalesce, Online, PaintBatch
from cnsim.algorithms.cn_relax import CNRelax
from cnsim.algorithms.paint_dense import PaintDense, eps_text
from cnsim.algorithms.paint_sparse import PaintSparse
from cnsim.algorithms.unicast import Unicast
from cnsim.server.object_index import CallCounter, ObjectIndex
from cnsim.subscriptions.index import SubscriptionIndex
from cnsim.subscriptions.lists import TopKLists

FAMILIES = ("paint-dense", "paint-sparse")
BASELINES = ("unicast", "cn-relax")
BATCH = {"paint-batch": PaintBatch, "coalesce": Coalesce, "online": Online}
_NAME = re.compile(r"^\s*([a-z-]+)\s*(?:\((.*)\))?\s*$")
_ALLOWED = (
    "paint-dense, paint-sparse (optionally with ε = 1/2^i in parentheses, e.g. "
    "'paint-sparse(0.25)'), paint-batch, coalesce, online (optionally over one of "
    "those, e.g. 'paint-batch(paint-sparse)'), unicast, cn-relax"
)


def parse_approach(name: str) -> tuple[str | None, str, float | None]:
    """``(batch, family, eps)`` from a written name; ``batch`` is None for plain
    approaches. Raises ValueError saying what is allowed."""
    match = _NAME.match(name) if isinstance(name, str) else None
    if match and match.group(1) in BASELINES and match.group(2) is None:
        return None, match.group(1), None
    if match and match.group(1) in BATCH:
        _, family, eps = parse_approach(match.group(2) or "paint-dense")
        if _ is not None or family in BASELINES:
            raise ValueError(
                f"unknown approach {name!r}: batch approaches run over paint-dense or "
                "paint-sparse (with or without ε)"
            )
        return match.group(1), family, eps
    if not match or match.group(1) not in FAMILIES:
        raise ValueError(f"unknown approach {name!r}; allowed: {_ALLOWED}")
    return None, match.group(1), (parse_eps(match.group(2)) if match.group(2) else None)


def canonical_name(name: str) -> str:
    """The name results are reported under (``paint-batch`` -> ``paint-batch(paint-dense)``)."""
    batch, family, eps = parse_approach(name)
    base = family if eps is None else f"{family}({eps_text(eps)})"
    return base if batch is None else f"{batch}({base})"


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


def make_approach(
    name: str,
    x: np.ndarray,
    y: np.ndarray,
    subscriptions: SubscriptionIndex,
    k: int,
    lists: TopKLists | None = None,
):
    """The approach called ``name``, with its own object index over objects ``(x, y)``;
    ``lists``, the subscribers' initial lists, spares Unicast computing them again."""
    batch, family, eps = parse_approach(name)
    if family == "cn-relax":
        return CNRelax(subscriptions)
    objects = ObjectIndex(x, y, CallCounter())
    if family == "unicast":
        return Unicast(objects, subscriptions, k, None if lists is None else lists.copy())
    if family == "paint-dense":
        base = PaintDense(objects, k, eps)
    else:
        base = PaintSparse(objects, subscriptions, k, eps)
    return base if batch is None else BATCH[batch](base)
