"""Paint-Sparse and Paint-Sparse(ε) (seed 003 §III-B, §IV-B).

Subscription-aware: the server also indexes the subscriptions, so it

* snaps every rectangle Paint-Dense would send to the subscriptions inside it and
  greedily merges neighbours (west to east) whenever the merged box reaches no
  extra subscription — at most twice the optimal number of messages (Theorem 4),
  never a message that reaches nobody;
* skips inessential exposed objects: the next exposed object is searched only in
  ``[ℓ*, r*]``, the x-span of the subscriptions still inside IR*(i), and the sweep
  stops as soon as IR*(i) holds no subscription.
"""

from __future__ import annotations

import numpy as np

from cnsim.algorithms import regions
from cnsim.algorithms.messages import MessageWriter
from cnsim.algorithms.paint_dense import PaintDense
from cnsim.server.object_index import ObjectIndex
from cnsim.subscriptions.index import SubscriptionIndex, closed_box_rect


class PaintSparse(PaintDense):
    """Paint-Sparse, or Paint-Sparse(ε) when ``eps`` is given."""

    exact_name = "paint-sparse"

    def __init__(
        self,
        objects: ObjectIndex,
        subscriptions: SubscriptionIndex,
        k: int,
        eps: float | None = None,
    ):
        super().__init__(objects, k, eps)
        self.subscriptions = subscriptions

    def _search_range(self, x_i: float, L: np.ndarray, R: np.ndarray) -> tuple[float, float]:
        """``[ℓ*, r*]``: the apex of the smallest southeast quadrant holding every
        subscription in IR*(i), from one snap per strip; empty (lo > hi) if none."""
        l_star, r_star = np.inf, -np.inf
        for rect in regions.influence_region(x_i, L, R, self.k):
            count, l_min, _, _, r_max = self.subscriptions.snap(rect)
            if count:
                l_star = min(l_star, l_min)
                r_star = max(r_star, r_max)
        return l_star, r_star

    def _emit(self, out: MessageWriter, rects: list[tuple], obj: int, y: float) -> None:
        if self.eps is not None:
            rects = regions.coarsen(rects, self.eps, self.k)
        out.send(self.greedy_merge(rects), obj, y)

    def greedy_merge(self, rects: list[tuple]) -> list[tuple]:
        """Snap each rectangle (west to east) and grow the last output rectangle over it
        whenever the enclosing box reaches only subscriptions of the two."""
        merged: list[tuple] = []
        current, current_count = None, 0
        for rect in rects:
            count, l_min, l_max, r_min, r_max = self.subscriptions.snap(rect)
            if count == 0:
                continue
            snapped = tuple(closed_box_rect(l_min, l_max, r_min, r_max))
            if current is not None:
                box = regions.enclosing_box([current, snapped])
                # The input rectangles are disjoint, so the box adds no false positive
                # iff it holds exactly the subscriptions of its two parts.
                if self.subscriptions.snap(box)[0] == current_count + count:
                    current, current_count = box, current_count + count
                    continue
                merged.append(current)
            current, current_count = snapped, count
        if current is not None:
            merged.append(current)
        return merged
