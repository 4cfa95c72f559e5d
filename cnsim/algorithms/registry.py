"""Approaches by the names the paper uses: one catalog, one parser.

* ``paint-dense``, ``paint-sparse``, each optionally with ε = 1/2^i in parentheses:
  ``paint-dense(0.25)``, ``paint-sparse(1/8)``;
* batch processing over one of those (default ``paint-dense``): ``paint-batch``,
  ``coalesce``, ``online``, e.g. ``paint-batch(paint-sparse(0.5))``;
* the baselines of §V: ``unicast`` (the paper's procedure and call count),
  ``unicast-lazy`` (the same messages, fewer ``min_y`` calls) and ``cn-relax``;
* ``ranked``: ranked delivery (the global top-k by score per event).

A new approach is one class (see :class:`cnsim.algorithms.base.Approach`) and one
line in :data:`APPROACHES` per subscription kind it serves (or :data:`BATCH`); a new
subscription kind adds its approaches' lines here and its server side (object index,
call counter, Unicast's queries) in :data:`cnsim.algorithms.kind_servers.SERVERS`.
:func:`parse` turns a written name into an :class:`~cnsim.algorithms.base.ApproachSpec`
once; :func:`make_approach` builds it.
"""

from __future__ import annotations

import math
import re

from cnsim.algorithms.base import Approach, ApproachSpec, ServerView, register
from cnsim.algorithms.batch import Coalesce, Online, PaintBatch
from cnsim.algorithms.cn_relax import CNRelax
from cnsim.algorithms.kind_servers import SERVERS
from cnsim.algorithms.paint_dense import PaintDense
from cnsim.algorithms.paint_kinds import KindPaintDense, KindPaintSparse
from cnsim.algorithms.paint_sparse import PaintSparse
from cnsim.algorithms.ranked import Ranked
from cnsim.algorithms.unicast import Unicast, UnicastLazy
from cnsim.subscriptions.kinds import KINDS

# Every approach class by (family, subscription kind): a family a kind has no line for
# is not available for that kind (its names are refused with what the kind offers).
APPROACHES: dict[tuple[str, str], type[Approach]] = {
    ("paint-dense", "range"): PaintDense,
    ("paint-sparse", "range"): PaintSparse,
    ("unicast", "range"): Unicast,
    ("unicast-lazy", "range"): UnicastLazy,
    ("cn-relax", "range"): CNRelax,
    ("ranked", "range"): Ranked,
    # 1.5-d range subscriptions (seed 003 appendix D)
    ("paint-dense", "range-1.5d"): KindPaintDense,
    ("paint-sparse", "range-1.5d"): KindPaintSparse,
    ("unicast", "range-1.5d"): Unicast,
    ("cn-relax", "range-1.5d"): CNRelax,
    # d-dimensional box subscriptions (seed 003 §IV-C)
    ("paint-dense", "box"): KindPaintDense,
    ("paint-sparse", "box"): KindPaintSparse,
    ("unicast", "box"): Unicast,
    ("cn-relax", "box"): CNRelax,
}
BATCH: dict[str, type[Online]] = {"paint-batch": PaintBatch, "coalesce": Coalesce, "online": Online}
register(APPROACHES, SERVERS)
DEFAULT_BATCH_BASE = "paint-dense"

_NAME = re.compile(r"^\s*([a-z-]+)\s*(?:\((.*)\))?\s*$")


def families(kind: str = "range") -> dict[str, type[Approach]]:
    """The approach families available for subscriptions of ``kind``, with their classes."""
    return {f: c for (f, k), c in APPROACHES.items() if k == kind}


def allowed(kind: str = "range") -> str:
    """The approach names allowed for ``kind``, in words."""
    offered = families(kind)
    eps = [f for f, c in offered.items() if c.takes_eps]
    plain = [f for f, c in offered.items() if not c.takes_eps]
    under = [f for f, c in offered.items() if c.batchable]
    parts = []
    if eps:
        parts.append(f"{', '.join(eps)} (optionally with ε = 1/2^i in parentheses, e.g. "
                     f"'{eps[-1]}(0.25)')")  # fmt: skip
    if under:
        parts.append(f"{', '.join(BATCH)} (optionally over one of {', '.join(under)}, e.g. "
                     f"'paint-batch({under[-1]})')")  # fmt: skip
    return ", ".join([*parts, *plain])


def parse(name: str, kind: str = "range") -> ApproachSpec:
    """The spec of a written name for subscriptions of ``kind``. Raises ValueError saying
    what is allowed (for a name that exists but not for ``kind``: that it has no
    version for it)."""
    try:
        return _parse(name, kind)
    except ValueError:
        if kind == "range":
            raise
        _parse(name, "range")  # unknown anywhere: the error of the whole catalog
        raise ValueError(
            f"{name!r} has no {KINDS[kind].label} version; allowed: {allowed(kind)}"
        ) from None


def _parse(name: str, kind: str) -> ApproachSpec:
    match = _NAME.match(name) if isinstance(name, str) else None
    head, arg = (match.group(1), match.group(2)) if match else (None, None)
    if head in BATCH:
        base = _parse(arg or DEFAULT_BATCH_BASE, kind)
        if base.batch is not None or not base.cls.batchable:
            under = ", ".join(f for f, c in families(kind).items() if c.batchable)
            raise ValueError(
                f"unknown approach {name!r}: batch approaches run over {under} (with or without ε)"
            )
        return base.with_batch(head)
    cls = APPROACHES.get((head, kind))
    if cls is None or (arg is not None and not cls.takes_eps):
        raise ValueError(f"unknown approach {name!r}; allowed: {allowed(kind)}")
    return ApproachSpec(head, parse_eps(arg) if arg is not None else None, kind=kind)


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
    """The approach of ``spec`` (or a written name) for the view's subscription kind,
    with its own server state."""
    spec = parse(spec if isinstance(spec, str) else spec.name, view.kind)
    approach = (spec.cls if spec.batch is None else BATCH[spec.batch]).create(spec, view)
    approach.spec = spec  # the parsed spec, with its kind
    return approach
