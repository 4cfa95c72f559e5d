"""Paint-Dense and Paint-Dense(ε) (seed 003 §III-A, §IV-B; Algorithms 3–5).

Subscription-oblivious: the server knows only the objects. A rank-raising update
notifies IR_new(i); a rank-lowering update notifies IR_old(i) with i's new value,
then sweeps i's octant from y_old up to y_new, and every *exposed* object h it
crosses (found by ``min_y`` over the current influence interval) is sent to the
part of IR*(i) that h gains (a diagonal chain of at most k rectangles).
"""

from __future__ import annotations

import numpy as np

from cnsim.algorithms import regions
from cnsim.algorithms.messages import Messages, MessageWriter
from cnsim.server.object_index import EAST, WEST, ObjectIndex


class PaintDense:
    """Paint-Dense, or Paint-Dense(ε) when ``eps`` is given."""

    exact_name = "paint-dense"

    def __init__(self, objects: ObjectIndex, k: int, eps: float | None = None):
        self.objects = objects
        self.k = k
        self.eps = eps

    @property
    def name(self) -> str:
        """The approach's name as written in a scenario (``paint-dense(0.25)``)."""
        return self.exact_name if self.eps is None else f"{self.exact_name}({self.eps:g})"

    @property
    def exact(self) -> bool:
        """Whether only affected subscriptions are notified."""
        return self.eps is None

    def messages(self, obj: int, y_old: float, y_new: float) -> Messages:
        """Messages for ``Upd(x_obj, y_old -> y_new)``; the index must already hold y_new."""
        out = MessageWriter()
        if y_new < y_old:
            self._rank_raising(out, obj, y_new)
        elif y_new > y_old:
            self._rank_lowering(out, obj, y_old, y_new)
        return out.freeze()

    # -- the two cases of Algorithm 3 ------------------------------------------------------
    def _lists(self, x_i: float, z: float) -> tuple[np.ndarray, np.ndarray]:
        return (
            self.objects.first_k(x_i, z, WEST, self.k),
            self.objects.first_k(x_i, z, EAST, self.k),
        )

    def _rank_raising(self, out: MessageWriter, i: int, y_new: float) -> None:
        x_i = float(self.objects.x[i])
        L, R = self._lists(x_i, y_new)
        self._emit(out, regions.influence_region(x_i, L, R, self.k), i, y_new)

    def _rank_lowering(self, out: MessageWriter, i: int, y_old: float, y_new: float) -> None:
        x_i = float(self.objects.x[i])
        L, R = self._lists(x_i, y_old)
        self._emit(out, regions.influence_region(x_i, L, R, self.k), i, y_new)
        z = y_old
        while z < y_new:
            lo, hi = self._search_range(x_i, L, R)
            if lo > hi:
                break  # no subscription left in IR*(i): nothing more to expose
            h = self.objects.min_y(lo, hi, z)
            if h < 0:
                break
            y_h = float(self.objects.y[h])
            if y_h >= y_new:
                break  # h lies above i's new position (or is i itself)
            x_h = float(self.objects.x[h])
            self._emit(out, regions.gained_region(x_i, L, R, x_h, self.k), h, y_h)
            L, R = regions.add_exposed(L, R, x_i, x_h, self.k)
            z = y_h

    # -- the hooks Paint-Sparse overrides ----------------------------------------------------
    def _search_range(self, x_i: float, L: np.ndarray, R: np.ndarray) -> tuple[float, float]:
        """The x-range in which to look for the next exposed object: II*(i)."""
        lo, hi = regions.influence_interval(x_i, L, R, self.k)
        # II is open; min_y takes a closed range, and the end objects lie below the sweep
        # anyway, so they can never be returned.
        return lo, hi

    def _emit(self, out: MessageWriter, rects: list[tuple], obj: int, y: float) -> None:
        """Send ``(obj, y)`` to the region tiled by ``rects`` (west to east)."""
        if self.eps is not None:
            rects = regions.coarsen(rects, self.eps, self.k)
        out.send(rects, obj, y)
