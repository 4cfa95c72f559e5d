"""Paint-Dense and Paint-Sparse over 1.5-d range subscriptions (seed 003 appendix D;
:mod:`cnsim.algorithms.range15d`) and d-dimensional box subscriptions (§IV-C;
:mod:`cnsim.algorithms.boxes`) behind the :class:`~cnsim.algorithms.base.Approach`
interface, so ``cnsim run`` and ``cnsim verify`` drive them as they drive the 1-d ones.

Names stay the paper's (``paint-dense``, ``paint-sparse``):
:func:`cnsim.algorithms.registry.make_approach` builds the class of the family for the
view's kind, over the kind's object index and, for Paint-Sparse, its subscription
index (both declared with the kind's server side:
:data:`cnsim.algorithms.kind_servers.SERVERS`). Each declares what its 1-d family
declares (entry, message, stores, exact), so the runner, the networks, verify and the
reports read nothing new.

Messages are :class:`~cnsim.algorithms.messages.Messages` whose ``rects`` are boxes of
the kind's S (1.5-d: ``(lO, lI, rI, rO, vI, vO)``; boxes: ``(lO, lI, rI, rO)`` per
attribute); ``x`` is the object's first attribute. The networks route them by their
shape. Updates go one at a time, each followed by its messages: a delete is ``y ->
inf``, an insert ``inf -> y`` of an id the index holds absent (:meth:`ServerView.admit
<cnsim.algorithms.base.ServerView.admit>`).

Box Paint's ``budget`` bounds the slabs one event's partitions may visit
(``[algorithm] box_budget``). A run cannot censor an event without leaving lists wrong,
so an event past it stops the run with a :class:`~cnsim.errors.ConfigError` naming the
key, the object and the update (raise the budget, or lower k or d).
"""

from __future__ import annotations

from cnsim.algorithms.base import Approach, ApproachSpec, ServerView
from cnsim.algorithms.boxes.regions import RegionTooLarge
from cnsim.algorithms.messages import Messages, concat_messages
from cnsim.schema import config_error
from cnsim.subscriptions.workload import Updates

BUDGET_KEY = "algorithm.box_budget"

class KindPaintDense(Approach):
    """Paint-Dense over 1.5-d range or box subscriptions."""

    family = "paint-dense"

    def __init__(self, impl, view: ServerView):
        self.spec = ApproachSpec(self.family)
        self.impl = impl  # the kind's Paint over its own object index
        self.counter = impl.counter
        self.view = view  # the attributes of the ids events create

    @classmethod
    def create(cls, spec: ApproachSpec, view: ServerView) -> KindPaintDense:
        """The kind's Paint over its own object index."""
        return cls(view.server.paints[cls.family](view.object_index(), view), view)

    def object_index(self):
        return self.impl.objects

    def process(self, updates: Updates) -> Messages:
        """Apply ``updates`` one at a time, each followed by its messages."""
        impl, parts = self.impl, []
        for t, (i, x_i, _, y_new) in enumerate(updates):
            self.view.admit(impl.objects, i, x_i)
            y_old = float(impl.objects.y[i])
            try:
                parts.append(impl.process(updates.obj[t : t + 1], updates.y_new[t : t + 1]))
            except RegionTooLarge:
                raise config_error(
                    "",
                    BUDGET_KEY,
                    impl.budget,
                    f"is too small: {self.name}'s partitions for object {i}'s update "
                    f"{y_old:.6g} -> {y_new:.6g} needed more slabs (a run cannot censor "
                    "an event: its lists would go wrong)",
                    "a larger integer, or a smaller subscriptions.k or subscriptions.dims",
                ) from None
        if not parts:  # no updates: no messages, of the kind's width
            parts.append(impl.process(updates.obj, updates.y_new))
        return concat_messages([m.as_messages() for m in parts])


class KindPaintSparse(KindPaintDense):
    """Paint-Sparse over 1.5-d range or box subscriptions: it also knows the index of S."""

    family = "paint-sparse"
    partition = "whole"  # snaps every message to the subscriptions of all of S
