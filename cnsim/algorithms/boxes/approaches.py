"""The d-dimensional box approaches behind the :class:`~cnsim.algorithms.base.Approach`
interface, so ``cnsim run`` and ``cnsim verify`` drive them as they drive the 1-d and
1.5-d ones (seed 003 §IV-C; ``[subscriptions] kind = "box"``, ``dims = d``).

Names stay the paper's (``paint-dense``, ``paint-sparse``, ``unicast``, ``cn-relax``):
:func:`cnsim.algorithms.registry.make_approach` builds the box class of the family
(registered under the kind ``box``) from a view carrying every id's attributes
(:attr:`ServerView.attributes`) and Paint's budget (:attr:`ServerView.budget`). Each
declares what its 1-d family declares (entry, message, stores, exact), so the runner,
the networks, verify and the reports read nothing new.

Messages are :class:`~cnsim.algorithms.messages.Messages` whose ``rects`` are boxes of
S = R^{2d}, ``4d`` values, per attribute ``(lO, lI, rI, rO)`` reaching ``lO < l_t <=
lI`` and ``rI <= r_t < rO`` (:mod:`cnsim.subscriptions.space_boxes`); ``x`` is the
object's x_1. The networks route them by their shape. A CN message is ``4(5d + 1)``
bytes (:func:`cnsim.subscriptions.kinds.box.message_bytes`: the box and ``(x, y)``).

Object ids. The object index holds every id the run uses from the start — the ids
inserts and moves create, at their attributes, absent (y = inf) until their update
``inf -> y`` revives them (§II-A footnote 4); absent objects take part in no query.

* Paint-Dense / Paint-Sparse: :class:`~cnsim.algorithms.boxes.paint.PaintDenseBoxes`
  and :class:`~cnsim.algorithms.boxes.paint.PaintSparseBoxes`, each update in turn.
  Their ``budget`` bounds the slabs one event's partitions may visit
  (``[algorithm] box_budget``). A run cannot censor an event without leaving lists
  wrong, so an event past it stops the run with a :class:`~cnsim.errors.ConfigError`
  naming the key, the object and the update (raise the budget, or lower k or d).
* CN-Relax (§V's serverless baseline for boxes): every event enters at its publisher's
  broker as the box ``(−inf, x_t, x_t, inf)`` per attribute, which reaches every
  subscription whose box holds the object's point; subscribers keep every object of
  their box.
* Unicast: the server keeps every list; the candidates of an update of object i are
  the subscriptions whose box holds x_i (one box report); each is checked against its
  list (vectorised), and a full list that holds i and loses it asks one ``min_y`` over
  its box above its k-th for the replacement (the lazy count, as 1.5-d's Unicast: the
  paper describes no box Unicast). A message is ``(j, object, y, evicted object)``,
  ``unicast_bytes`` as in 1-d.
"""

from __future__ import annotations

import numpy as np

from cnsim.algorithms.base import Approach, ApproachSpec, ServerView
from cnsim.algorithms.boxes.paint import MessagesD, PaintDenseBoxes, PaintSparseBoxes
from cnsim.algorithms.boxes.regions import RegionTooLarge
from cnsim.algorithms.messages import Messages
from cnsim.algorithms.unicast import lazy_messages
from cnsim.schema import config_error
from cnsim.server.object_index_d import CallCounterD, ObjectIndexD
from cnsim.subscriptions.lists import TopKLists
from cnsim.subscriptions.space_boxes import BoxSubscriptions, reach_boxes
from cnsim.subscriptions.workload import Updates
from cnsim.subscriptions.workload_boxes import initial_lists_boxes

BUDGET_KEY = "algorithm.box_budget"


def _objects(view: ServerView) -> ObjectIndexD:
    """An object index over every id of the run: the initial objects at their y, the
    ids events create absent."""
    assert view.attributes is not None and view.servers == 1  # the scenario's rules see to it
    xd = view.attributes
    y = np.full(len(xd), np.inf)
    y[: len(view.y)] = view.y
    return ObjectIndexD(xd, y, CallCounterD())


class PaintDenseBoxesApproach(Approach):
    """Paint-Dense over d-dimensional box subscriptions."""

    family = "paint-dense"

    def __init__(self, impl: PaintDenseBoxes):
        self.spec = ApproachSpec(self.family)
        self.impl = impl
        self.counter = impl.counter

    @classmethod
    def create(cls, spec: ApproachSpec, view: ServerView) -> PaintDenseBoxesApproach:
        """Paint-Dense over its own object index."""
        return cls(PaintDenseBoxes(_objects(view), view.k, view.budget))

    def process(self, updates: Updates) -> Messages:
        """Apply ``updates`` one at a time, each followed by its messages (a delete is
        ``y -> inf``, an insert ``inf -> y`` of an id the index holds absent)."""
        impl, parts = self.impl, []
        for t in range(len(updates)):
            i, y_new = int(updates.obj[t]), float(updates.y_new[t])
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
        return _concat(parts, 4 * impl.d)


def _concat(parts: list[MessagesD], width: int) -> Messages:
    """The messages of several updates, in order, in the run's form (x is x_1)."""
    if not parts:
        e = np.empty(0)
        return Messages(np.empty((0, width)), np.empty(0, np.int64), e, e.copy())
    return Messages(
        np.concatenate([m.boxes for m in parts]).reshape(-1, width),
        np.concatenate([m.obj for m in parts]).astype(np.int64),
        np.concatenate([m.x[:, 0] for m in parts]).astype(np.float64),
        np.concatenate([m.y for m in parts]).astype(np.float64),
    )


class PaintSparseBoxesApproach(PaintDenseBoxesApproach):
    """Paint-Sparse over d-dimensional box subscriptions: it also knows the index of S."""

    family = "paint-sparse"

    @classmethod
    def create(cls, spec: ApproachSpec, view: ServerView) -> PaintSparseBoxesApproach:
        """Paint-Sparse over its own object index and the run's subscription index."""
        assert isinstance(view.subscriptions, BoxSubscriptions)
        subs = view.subscriptions.index
        return cls(PaintSparseBoxes(_objects(view), subs, view.k, view.budget))


class CNRelaxBoxes(Approach):
    """CN-Relax over d-dimensional box subscriptions: one box per update, from the
    publisher."""

    family = "cn-relax"
    entry = "publisher"
    stores = "range"
    ordered = False
    exact_family = False

    def __init__(self, xd: np.ndarray, subscriptions: BoxSubscriptions):
        self.spec = ApproachSpec(self.family)
        self.xd = np.asarray(xd, np.float64)  # attributes of every id the run uses
        self.subscriptions = subscriptions
        self.counter = CallCounterD()  # no server, no index calls

    @classmethod
    def create(cls, spec: ApproachSpec, view: ServerView) -> CNRelaxBoxes:
        """CN-Relax needs the objects' attributes and the subscriptions (memory)."""
        return cls(view.attributes, view.subscriptions)

    def process(self, updates: Updates) -> Messages:
        """One box message per update, in order."""
        boxes = reach_boxes(self.xd[updates.obj])
        return Messages(boxes, updates.obj.copy(), updates.x.copy(), updates.y_new.copy())

    def memory_bytes(self, x: np.ndarray, y: np.ndarray, object_bytes: int) -> int:
        """Subscriber memory: every live initial object in every subscription's box
        (counted by one ``snap`` per object, never listing the pairs)."""
        live = np.flatnonzero(np.isfinite(y))
        boxes = reach_boxes(self.xd[live])
        return sum(self.subscriptions.snap(b)[0] for b in boxes) * object_bytes


class UnicastBoxes(Approach):
    """Unicast over d-dimensional box subscriptions (see the module docstring)."""

    family = "unicast"
    message = "targeted"

    def __init__(self, objects: ObjectIndexD, subscriptions: BoxSubscriptions, k: int,
                 lists: TopKLists | None = None):  # fmt: skip
        self.spec = ApproachSpec(self.family)
        self.objects = objects
        self.counter = objects.counter
        self.subscriptions = subscriptions
        self.k = k
        if lists is None:
            s = subscriptions
            lists = initial_lists_boxes(objects.x, objects.y, s.l, s.r, k)
        self.lists = lists  # the server's own copy of every subscriber's list

    @property
    def subscriber_lists(self) -> TopKLists:
        """The server's copy, identical to the subscribers' lists (the runner shares it)."""
        return self.lists

    @classmethod
    def create(cls, spec: ApproachSpec, view: ServerView) -> UnicastBoxes:
        """Unicast over its own object index, sharing the initial lists when given."""
        lists = view.lists.copy() if view.lists is not None else None
        return cls(_objects(view), view.subscriptions, view.k, lists)

    def process(self, updates: Updates) -> Messages:
        """Messages of every update in turn, applied to the server's copy as sent."""
        width = 4 * self.objects.d
        parts = [self._one(i, y_new) for i, _, _, y_new in updates]
        if not parts:
            e = np.empty(0, np.int64)
            return Messages(np.empty((0, width)), e, np.empty(0), np.empty(0), e, e.copy())
        target, obj, y, evict = (np.concatenate(c) for c in zip(*parts, strict=True))
        x = self.objects.x[obj, 0]
        return Messages(np.zeros((len(obj), width)), obj, x, y, target, evict)

    def _one(self, i: int, y_new: float) -> tuple[np.ndarray, ...]:
        ob, k, s = self.objects, self.k, self.subscriptions
        y_old = float(ob.y[i])
        ob.update(i, y_new)
        _, subs = s.report(reach_boxes(ob.x[i : i + 1]))

        def successor(j: int, kth_y: float, kth_id: int) -> tuple[int, float]:
            h = ob.min_y(s.l[j], s.r[j], kth_y, kth_id)
            return h, float(ob.y[h]) if h >= 0 else np.inf

        return lazy_messages(self.lists, subs, k, i, y_old, y_new, successor)
