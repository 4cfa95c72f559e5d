"""Batch processing (seed 003 §IV-A, Theorem 6): Paint-Batch and the baselines of §V
"Batch processing", Online and Coalesce, each over a base algorithm A (Paint-Dense,
Paint-Sparse or an ε variant).

Subscriptions need correct lists only at the end of a batch. Paint-Batch

1. coalesces the events on each object into one ``Upd(x, y_first -> y_last)`` and
   splits them into rank-raising (E↓) and rank-lowering (E↑) updates;
2. applies E↓ to the index T without messages;
3. processes E↑ in descending order of new values with A, but discards the
   messages of exposed objects that are updated in the batch, and for an object
   whose messages were discarded notifies IR_new(i) ∪ IR_pre(i) instead of
   IR_old(i); IR_pre(i) is computed on demand from T and a second index T' of the
   old values of the E↑ objects processed so far (Lemma 7, O(n) space);
4. notifies IR_new(i) for every E↓ object, in ascending order of new values.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from cnsim.algorithms import regions
from cnsim.algorithms.base import Approach, ApproachSpec, ServerView
from cnsim.algorithms.messages import Messages, MessageWriter
from cnsim.algorithms.paint_dense import PaintDense
from cnsim.server.object_index import EAST, WEST, ObjectIndex
from cnsim.subscriptions.workload import Updates


def coalesce(updates: Updates) -> Updates:
    """One update per object, ``y_first_old -> y_last_new``, in order of each object's
    last update; objects that end where they started are dropped."""
    obj = updates.obj
    last = len(obj) - 1 - np.unique(obj[::-1], return_index=True)[1]
    first = np.unique(obj, return_index=True)[1]
    order = np.argsort(last, kind="stable")
    first, last = first[order], last[order]
    merged = Updates(obj[last], updates.x[last], updates.y_old[first], updates.y_new[last])
    changed = merged.y_old != merged.y_new
    return Updates(*(a[changed] for a in (merged.obj, merged.x, merged.y_old, merged.y_new)))


class Online(Approach):
    """Online: every event of the batch in order, with the base algorithm."""

    prefix = "online"
    #: whether a batch's events on one object become one update (:func:`coalesce`)
    coalesces: ClassVar[bool] = False

    def __init__(self, base: PaintDense):
        self.spec = base.spec.with_batch(self.prefix)
        self.base = base
        self.counter = base.counter
        self.k = base.k

    @classmethod
    def create(cls, spec: ApproachSpec, view: ServerView) -> Online:
        """The batch strategy over its base approach (``spec.base``)."""
        return cls(spec.cls.create(spec.base, view))

    def process(self, updates: Updates) -> Messages:
        """Messages for a batch of updates."""
        return self.base.process(updates)

    def calls(self) -> dict[str, int]:
        """The base approach's calls (it owns the indexes and counts)."""
        return self.base.calls()

    def object_index(self):
        return self.base.object_index()


class Coalesce(Online):
    """Coalesce: one update per object, then in order, with the base algorithm."""

    prefix = "coalesce"
    coalesces = True

    def process(self, updates: Updates) -> Messages:
        """Messages for a batch of updates."""
        return self.base.process(coalesce(updates))


class PaintBatch(Online):
    """Paint-Batch over the base algorithm (which owns the index T)."""

    prefix = "paint-batch"
    coalesces = True

    def process(self, updates: Updates) -> Messages:
        """Messages for a batch; subscriber lists are exact at its end."""
        base, objects = self.base, self.base.objects
        batch = coalesce(updates)
        raising = batch.y_new < batch.y_old
        up = np.flatnonzero(~raising)
        up = up[np.argsort(-batch.y_new[up], kind="stable")]  # E↑, descending new y
        down = np.flatnonzero(raising)
        down = down[np.argsort(batch.y_new[down], kind="stable")]  # E↓, ascending new y
        for j in down[np.argsort(batch.obj[down])]:  # step 2 (new ids in id order)
            objects.apply(int(batch.obj[j]), float(batch.x[j]), float(batch.y_new[j]))
        out = MessageWriter()
        for j in down:  # step 4, sent first: IR_new for every rank-raising object
            base.rank_raising(out, int(batch.obj[j]), float(batch.x[j]), float(batch.y_new[j]))
        self._lowering_steps(out, batch, up)
        return out.freeze()

    def _lowering_steps(self, out: MessageWriter, batch: Updates, up) -> None:
        """Step 3: E↑ in descending order of new values, with the two modifications."""
        base, objects = self.base, self.base.objects
        pending = set(batch.obj[up].tolist())  # E↑ objects not processed yet
        discarded: set[int] = set()
        t_prime = ObjectIndex(np.empty(0), np.empty(0), objects.counter)  # T'

        def keep(h: int) -> bool:
            # An exposed object still to be updated gets its messages with its own update.
            if h in pending:
                discarded.add(h)
                return False
            return True

        for j in up:
            i, x_i = int(batch.obj[j]), float(batch.x[j])
            y_old, y_new = float(batch.y_old[j]), float(batch.y_new[j])
            pending.discard(i)
            objects.apply(i, x_i, y_new)
            first_region = None
            if i in discarded:
                first_region = self._new_or_pre_region(t_prime, i, x_i, y_old, y_new)
            base.rank_lowering(out, i, x_i, y_old, y_new, first_region, keep)
            t_prime.insert(x_i, y_old, i)

    def _new_or_pre_region(self, t_prime: ObjectIndex, i, x_i, y_old, y_new) -> list[tuple]:
        """IR_new(i) ∪ IR_pre(i): i's region now, and before step 3 (Lemma 7: first_k
        on T and on T' at the old value, merged)."""
        k = self.k
        pre = regions.merge_lists(
            self.base.lists(i, x_i, y_old),
            (t_prime.first_k(x_i, y_old, WEST, k, i), t_prime.first_k(x_i, y_old, EAST, k, i)),
            k,
        )
        if y_new == np.inf:  # deleted: no list holds it any more, IR_new(i) is empty
            return regions.union_region(x_i, [pre], k)
        return regions.union_region(x_i, [self.base.lists(i, x_i, y_new), pre], k)
