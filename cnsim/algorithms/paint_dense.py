"""Paint-Dense and Paint-Dense(ε) (seed 003 §III-A, §IV-B; Algorithms 3–5).

Subscription-oblivious: the server knows only the objects. A rank-raising update
notifies IR_new(i); a rank-lowering update notifies IR_old(i) with i's new value,
then sweeps i's octant from y_old up to y_new, and every *exposed* object h it
crosses (found by ``min_y`` over the current influence interval) is sent to the
part of IR*(i) that h gains (a diagonal chain of at most k rectangles).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from cnsim.algorithms import regions
from cnsim.algorithms.base import Approach, ApproachSpec, ServerView
from cnsim.algorithms.messages import Messages, MessageWriter
from cnsim.server.object_index import EAST, WEST, ObjectIndex
from cnsim.subscriptions.workload import Updates


class PaintDense(Approach):
    """Paint-Dense, or Paint-Dense(ε) when ``eps`` is given. It owns ``objects``, the
    server's object index, and counts its calls in ``objects.counter``."""

    family = "paint-dense"
    takes_eps = True
    batchable = True

    def __init__(self, objects: ObjectIndex, k: int, eps: float | None = None):
        self.spec = ApproachSpec(self.family, eps)
        self.objects = objects
        self.counter = objects.counter
        self.k = k

    @classmethod
    def create(cls, spec: ApproachSpec, view: ServerView) -> PaintDense:
        """Paint-Dense over its own object index."""
        return cls(view.object_index(), view.k, spec.eps)

    def object_index(self) -> ObjectIndex:
        return self.objects

    def process(self, updates: Updates) -> Messages:
        """Apply ``updates`` one at a time, each followed by its messages."""
        out = MessageWriter()
        for i, x_i, y_old, y_new in updates:
            self.objects.apply(i, x_i, y_new)
            self.notify(out, i, x_i, y_old, y_new)
        return out.freeze()

    def notify(self, out: MessageWriter, i: int, x_i: float, y_old: float, y_new: float) -> None:
        """Messages for ``Upd(x_i, y_old -> y_new)``; the index already holds ``y_new``."""
        if y_new < y_old:
            self.rank_raising(out, i, x_i, y_new)
        elif y_new > y_old:
            self.rank_lowering(out, i, x_i, y_old, y_new)

    # -- the two cases of Algorithm 3 ------------------------------------------------------
    def lists(self, i: int, x_i: float, z: float) -> tuple[np.ndarray, np.ndarray]:
        """``L`` and ``R``: first_k west and east of ``x_i`` below object i at height z
        (below in the order of (y, id), which breaks ties in y by id)."""
        return (
            self.objects.first_k(x_i, z, WEST, self.k, i),
            self.objects.first_k(x_i, z, EAST, self.k, i),
        )

    def rank_raising(self, out: MessageWriter, i: int, x_i: float, y_new: float) -> None:
        """Notify IR_new(i) with i's new value."""
        L, R = self.lists(i, x_i, y_new)
        self.emit(out, regions.influence_region(x_i, L, R, self.k), i, x_i, y_new)

    def rank_lowering(
        self,
        out: MessageWriter,
        i: int,
        x_i: float,
        y_old: float,
        y_new: float,
        first_region: list[tuple] | None = None,
        keep: Callable[[int], bool] | None = None,
    ) -> None:
        """Notify IR_old(i) (or ``first_region``) with i's new value, then sweep.

        ``keep(h)`` decides whether exposed object h's messages are sent (Paint-Batch
        discards some); by default all are.
        """
        L, R = self.lists(i, x_i, y_old)
        if first_region is None:
            first_region = regions.influence_region(x_i, L, R, self.k)
        self.emit(out, first_region, i, x_i, y_new)
        z = (y_old, i)  # the sweep position, in the order of (y, id)
        while True:
            lo, hi = self.search_range(x_i, L, R)
            if lo > hi:
                break  # no subscription left in IR*(i): nothing more to expose
            h = self.objects.min_y(lo, hi, *z)
            if h < 0:
                break
            y_h = float(self.objects.y[h])
            if (y_h, h) >= (y_new, i):
                break  # h lies above i's new position (or is i itself)
            x_h = float(self.objects.x[h])
            if keep is None or keep(h):
                self.emit(out, regions.gained_region(x_i, L, R, x_h, self.k), h, x_h, y_h)
            L, R = regions.add_exposed(L, R, x_i, x_h, self.k)
            z = (y_h, h)

    # -- the hooks Paint-Sparse overrides ----------------------------------------------------
    def search_range(self, x_i: float, L: np.ndarray, R: np.ndarray) -> tuple[float, float]:
        """The x-range in which to look for the next exposed object: II*(i).

        II is open; min_y takes a closed range, but the end objects lie below the
        sweep and so are never returned.
        """
        return regions.influence_interval(x_i, L, R, self.k)

    def emit(self, out: MessageWriter, rects: list[tuple], obj: int, x: float, y: float) -> None:
        """Send ``(obj, x, y)`` to the region tiled by ``rects`` (west to east)."""
        if self.eps is not None:
            rects = regions.coarsen(rects, self.eps, self.k)
        out.send(rects, obj, x, y)
