"""Paint-Sparse and Paint-Sparse(ε) (seed 003 §III-B, §IV-B).

Subscription-aware: the server also indexes the subscriptions, so it

* snaps every rectangle Paint-Dense would send to the subscriptions inside it and
  greedily merges neighbours (west to east) whenever the merged box reaches no
  extra subscription — at most twice the optimal number of messages (Theorem 4),
  never a message that reaches nobody;
* skips inessential exposed objects: the next exposed object is searched only in
  ``[ℓ*, r*]``, the x-span of the subscriptions still inside IR*(i), and the sweep
  stops as soon as IR*(i) holds no subscription.

Two counts of its index calls. ``counter`` (the run's ``calls_min_y``, ``calls_snap``)
counts every distinct query cnsim makes: a merge test is one snap of the enclosing box
(exact, since the two parts hold disjoint subscriptions), the strips of IR*(i) are
snapped once per update unless the sweep changed them, and the sweep stops without a
``min_y`` once IR*(i) is empty. ``paper`` (:class:`PaperCount`) counts the same run as
seed 003 describes it: Algorithm 3's loop, whose last ``min_y`` (on an empty
``[ℓ*, r*]`` too) ends the sweep; one snap per rectangle of G^dense; and, as footnote 7
implies, three snaps per merge test and one per south-north strip of IR^z(i) at every
sweep step (``snap_footnote7``). The messages are the same either way.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from cnsim.algorithms import regions
from cnsim.algorithms.base import ApproachSpec, ServerView
from cnsim.algorithms.messages import MessageWriter
from cnsim.algorithms.paint_dense import PaintDense
from cnsim.server.object_index import ObjectIndex
from cnsim.subscriptions.index import SubscriptionIndex
from cnsim.subscriptions.space import closed_box_rect


@dataclass
class PaperCount:
    """Paint-Sparse's calls counted as seed 003 describes the procedure (see above)."""

    min_y: int = 0  # Algorithm 3's loop: every sweep step, and the one that ends it
    snap: int = 0  # snap(G_i) for every rectangle G_i of G^dense examined
    snap_footnote7: int = 0  # snap + 3 per merge test + one per strip of IR^z(i) per step

    def as_dict(self) -> dict[str, int]:
        """The counts under their names in ``cnsim bench fidelity``."""
        return {"min_y": self.min_y, "snap": self.snap, "snap_footnote7": self.snap_footnote7}


class PaintSparse(PaintDense):
    """Paint-Sparse, or Paint-Sparse(ε) when ``eps`` is given."""

    family = "paint-sparse"
    partition = "whole"  # snaps every message to the subscriptions of all of S

    def __init__(
        self,
        objects: ObjectIndex,
        subscriptions: SubscriptionIndex,
        k: int,
        eps: float | None = None,
    ):
        super().__init__(objects, k, eps)
        self.subscriptions = subscriptions
        self._snaps: dict[tuple, tuple] = {}  # this update's snap answers, by rectangle
        self.paper = PaperCount()
        self._swept_empty = False  # the sweep ended on an empty [ℓ*, r*]

    @classmethod
    def create(cls, spec: ApproachSpec, view: ServerView) -> PaintSparse:
        """Paint-Sparse over its own object index and the subscriptions."""
        return cls(view.object_index(), view.subscriptions, view.k, spec.eps)

    def search_range(self, x_i: float, L: np.ndarray, R: np.ndarray) -> tuple[float, float]:
        """``[ℓ*, r*]``: the apex of the smallest southeast quadrant holding every
        subscription in IR*(i), from one snap per strip; empty (lo > hi) if none."""
        l_star, r_star = np.inf, -np.inf
        strips = regions.influence_region(x_i, L, R, self.k)
        self.paper.snap_footnote7 += len(strips)
        for rect in strips:
            count, l_min, _, _, r_max = self.snap(rect)
            if count:
                l_star = min(l_star, l_min)
                r_star = max(r_star, r_max)
        self._swept_empty = l_star > r_star
        return l_star, r_star

    def emit(self, out: MessageWriter, rects: list[tuple], obj: int, x: float, y: float) -> None:
        self.paper.snap += len(rects)
        self.paper.snap_footnote7 += len(rects)
        snapped = [self._snapped(rect) for rect in rects]
        if self.eps is not None:
            # Coarsen the snapped rectangles, not the raw ones: with skipped exposed
            # objects the raw ones may overhang into subscription-free space, and their
            # enclosing boxes would then reach subscriptions ranked beyond k + ⌈εk⌉.
            size = max(1, math.ceil(self.eps * self.k))
            groups = [
                [g[0] for g in snapped[s : s + size] if g is not None]
                for s in range(0, len(snapped), size)
            ]
            snapped = [self._snapped(regions.enclosing_box(g)) for g in groups if g]
            self.paper.snap += len(snapped)
            self.paper.snap_footnote7 += len(snapped)
        out.send(self.greedy_merge([g for g in snapped if g is not None]), obj, x, y)

    def calls(self) -> dict[str, int]:
        """cnsim's counts, and the paper's (:class:`PaperCount`) as ``calls_*_paper``."""
        return {
            **super().calls(),
            "calls_min_y_paper": self.paper.min_y,
            "calls_snap_paper": self.paper.snap,
            "calls_snap_footnote7": self.paper.snap_footnote7,
        }

    def rank_raising(self, *args, **kwargs) -> None:
        self._snaps: dict[tuple, tuple] = {}
        super().rank_raising(*args, **kwargs)

    def rank_lowering(self, *args, **kwargs) -> None:
        self._snaps = {}
        self._swept_empty = False
        before = self.counter.min_y
        super().rank_lowering(*args, **kwargs)
        # The paper's loop calls min_y on [ℓ*, r*] even when it is empty (and finds nothing).
        self.paper.min_y += self.counter.min_y - before + self._swept_empty

    def snap(self, rect: tuple) -> tuple[int, float, float, float, float]:
        """The subscription index's ``snap``, counted as one of this approach's calls.

        Within one update the same strip is asked about more than once (when it is
        sent and when ``[ℓ*, r*]`` is computed; strips the sweep left unchanged), so
        answers are remembered per update and each distinct query is counted once.
        """
        answer = self._snaps.get(rect)
        if answer is None:
            self.counter.snap += 1
            answer = self._snaps[rect] = self.subscriptions.snap(rect)
        return answer

    def _snapped(self, rect: tuple) -> tuple | None:
        """The message rectangle reaching exactly the subscriptions in ``rect``, and
        their number, as ``(rect, count)``; None when there are none."""
        count, l_min, l_max, r_min, r_max = self.snap(rect)
        if count == 0:
            return None
        return closed_box_rect(l_min, l_max, r_min, r_max), count

    def greedy_merge(self, snapped: list[tuple]) -> list[tuple]:
        """:func:`regions.greedy_merge` west to east; footnote 7 counts each merge test
        as three snaps (MEB minus G, and snap(G_i), in three pieces)."""

        def count(box: tuple) -> int:
            self.paper.snap_footnote7 += 3
            return self.snap(box)[0]

        return regions.greedy_merge(snapped, count)
