"""The server's side of every subscription kind: the object index its approaches keep,
that index's call counter, how Unicast asks it and its Paint — one declaration per kind
(:data:`SERVERS`), read through :attr:`ServerView.server
<cnsim.algorithms.base.ServerView.server>`.

* 1-d ranges (seed 003 §II-A, §V): the objects by ``(x, y)``
  (:class:`~cnsim.server.object_index.ObjectIndex`), or the distributed database over
  ``[server] count`` servers (appendix C; same interface, same answers); Unicast's
  candidates are the paper's influence rectangle.
* 1.5-d ranges (appendix D): the 2-d index over ``(x1, x2)``
  (:class:`~cnsim.server.object_index_2d.ObjectIndex2D`), which the ids events create
  enter later, absent until their update ``inf -> y`` revives them
  (:meth:`ServerView.admit <cnsim.algorithms.base.ServerView.admit>`).
* d-dimensional boxes (§IV-C): the d-dimensional index over every id of the run
  (:class:`~cnsim.server.object_index_d.ObjectIndexD`), the ids events create held
  absent (y = inf) from the start (§II-A footnote 4).

A new kind adds its line here beside its approaches' lines in
:data:`cnsim.algorithms.registry.APPROACHES`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from cnsim.algorithms.boxes.paint import PaintDenseBoxes, PaintSparseBoxes
from cnsim.algorithms.range15d.paint import PaintDense15, PaintSparse15
from cnsim.algorithms.unicast import Queries, holding, influence_rectangle
from cnsim.server.object_index import CallCounter, ObjectIndex
from cnsim.server.object_index_2d import CallCounter2D, ObjectIndex2D
from cnsim.server.object_index_d import CallCounterD, ObjectIndexD
from cnsim.subscriptions.churn import top_k_by_rounds

if TYPE_CHECKING:
    from collections.abc import Callable

    from cnsim.algorithms.base import ServerView


@dataclass(frozen=True)
class KindServer:
    """What the server keeps and asks for one subscription kind."""

    #: a new object index over the view's initial objects, with a counter of its own
    object_index: Callable[[ServerView], Any]
    #: the index's call counter: its columns are every approach's of the kind (an
    #: approach that asks no index, CN-Relax, reports them at zero)
    counter: type[CallCounter]
    #: Unicast's candidates and min_y over the kind's boxes
    unicast: Queries
    #: per Paint family, the kind's Paint over its object index, built from the view
    #: (:mod:`cnsim.algorithms.paint_kinds`; 1-d Paint is registered directly)
    paints: dict[str, Callable[[Any, ServerView], Any]] = field(default_factory=dict)
    #: whether the object index answers ``top_k_many(lo, hi, k)`` itself (else k rounds
    #: of the kind's ``min_y``)
    top_k_many: bool = False

    def top_k(self, objects, lo: np.ndarray, hi: np.ndarray, k: int):
        """The top-k lists (ids, ys), each (J, k), of boxes ``[lo[j], hi[j]]`` over the
        objects of ``objects``: what the server sends a subscription that joins (what k
        rounds of ``min_y`` find; one search per box where the index has one)."""
        if self.top_k_many:  # 1-d: over x
            return objects.top_k_many(lo[:, 0], hi[:, 0], k)
        min_y = self.unicast.min_y
        return top_k_by_rounds(lambda rows, y0, id0: min_y(objects, lo[rows], hi[rows], y0, id0),
                               objects.y, len(lo), k)  # fmt: skip


def _range_index(view: ServerView):
    if view.servers == 1:
        return ObjectIndex(view.x, view.y, CallCounter())
    from cnsim.server.distributed import DistributedIndex

    return DistributedIndex(view.x, view.y, view.servers)


def _range15d_index(view: ServerView) -> ObjectIndex2D:
    assert view.servers == 1  # the kind's restrictions see to it
    return ObjectIndex2D(view.x, view.attributes[: len(view.x)], view.y, CallCounter2D())


def _box_index(view: ServerView) -> ObjectIndexD:
    assert view.servers == 1
    y = np.full(len(view.attributes), np.inf)
    y[: len(view.y)] = view.y
    return ObjectIndexD(view.attributes, y, CallCounterD())


def _min_y_range(objects, lo, hi, y0, id0) -> np.ndarray:
    return objects.min_y_many(lo[:, 0], hi[:, 0], y0, id0)  # one vectorised call


def _min_y_15d(objects, lo, hi, y0, id0) -> np.ndarray:
    # [l1, r1] × (−∞, r2] over (x1, x2)
    return np.array([objects.min_y(a[0], b[0], a[1], b[1], y, o)
                     for a, b, y, o in zip(lo, hi, y0.tolist(), id0.tolist(), strict=True)],
                    np.int64)  # fmt: skip


def _min_y_box(objects, lo, hi, y0, id0) -> np.ndarray:
    return np.array([objects.min_y(a, b, y, o)
                     for a, b, y, o in zip(lo, hi, y0.tolist(), id0.tolist(), strict=True)],
                    np.int64)  # fmt: skip


SERVERS: dict[str, KindServer] = {
    "range": KindServer(_range_index, CallCounter,
                        Queries(influence_rectangle, _min_y_range, paper=True), top_k_many=True),
    "range-1.5d": KindServer(
        _range15d_index, CallCounter2D, Queries(holding, _min_y_15d, paper=False),
        {"paint-dense": lambda objects, v: PaintDense15(objects, v.k),
         "paint-sparse": lambda objects, v: PaintSparse15(objects, v.subscriptions, v.k)}),
    "box": KindServer(
        _box_index, CallCounterD, Queries(holding, _min_y_box, paper=False),
        {"paint-dense": lambda objects, v: PaintDenseBoxes(objects, v.k, v.budget),
         "paint-sparse": lambda objects, v: PaintSparseBoxes(objects, v.subscriptions, v.k,
                                                             v.budget)}),
}  # fmt: skip
