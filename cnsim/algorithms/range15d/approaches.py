"""The 1.5-d approaches behind the :class:`~cnsim.algorithms.base.Approach` interface, so
``cnsim run`` and ``cnsim verify`` drive them as they drive the 1-d ones (seed 003
appendix D; ``[subscriptions] kind = "range-1.5d"``).

A scenario's approach names stay the paper's (``paint-dense``, ``paint-sparse``,
``unicast``, ``cn-relax``): :func:`cnsim.algorithms.registry.make_approach` builds the
1.5-d class of the family (registered under the kind ``range-1.5d``) from a view
carrying every id's x2 (:attr:`ServerView.attributes`). Each declares what its 1-d
family declares (entry, message, stores, exact), so the runner, the networks, verify
and the reports read nothing new.

Messages are :class:`~cnsim.algorithms.messages.Messages` whose ``rects`` are 3-d boxes
``(lO, lI, rI, rO, vI, vO)`` of S = {(l1, r1, r2)} reaching ``lO < l1 <= lI``,
``rI <= r1 < rO``, ``vI <= r2 < vO`` (:mod:`cnsim.subscriptions.index`); ``x`` is the
object's x1. The networks route them by their shape (6 columns: a 3-d box).

* Paint-Dense / Paint-Sparse: :mod:`cnsim.algorithms.range15d.paint` (Algorithms 6–11),
  each update in turn. A new id (an insert, or a move's new position) enters the index
  absent at its (x1, x2) — x2 from the view's ``attributes``, which covers every id the run
  uses — and its update ``inf -> y`` revives it (§II-A footnote 4); Unicast likewise.
* CN-Relax (§V's serverless baseline in 1.5-d): every event enters at its publisher's
  broker as the box ``(−inf, x1, x1, inf, x2, inf)``, which reaches every subscription
  whose box ``[l1, r1] × (−∞, r2]`` holds the object's ``(x1, x2)``; subscribers keep
  every object of their box.
* Unicast: the server keeps every list; the candidates of an update of object i are
  the subscriptions whose box holds i (one box report); each is checked against its
  list (vectorised), and a full list that holds i and loses it asks one ``min_y`` over
  its box above its k-th for the replacement (the lazy count of ``unicast-lazy``: the
  1-d paper's "one min_y per candidate" has no 1.5-d counterpart in appendix D). A
  message is ``(j, object, y, evicted object)``, as in 1-d.
"""

from __future__ import annotations

import numpy as np

from cnsim.algorithms.base import Approach, ApproachSpec, ServerView
from cnsim.algorithms.messages import Messages
from cnsim.algorithms.range15d.paint import Messages15, PaintDense15, PaintSparse15
from cnsim.algorithms.unicast import lazy_messages
from cnsim.server.object_index_2d import CallCounter2D, ObjectIndex2D
from cnsim.subscriptions.index import SubscriptionIndex3D
from cnsim.subscriptions.lists import TopKLists
from cnsim.subscriptions.workload import Updates
from cnsim.subscriptions.workload_15d import initial_lists_15d

INF = np.inf


def as_messages(m: Messages15) -> Messages:
    """1.5-d messages in the run's columnar message form (6-column boxes; x is x1)."""
    return Messages(m.boxes, m.obj, m.x1, m.y)


def _objects(view: ServerView) -> ObjectIndex2D:
    assert view.attributes is not None and view.servers == 1  # the scenario's rules see to it
    n = len(view.x)  # view.attributes goes on with the ids inserts and moves create
    return ObjectIndex2D(view.x, view.attributes[:n], view.y, CallCounter2D())


def add_new_objects(objects: ObjectIndex2D, updates: Updates, x2: np.ndarray) -> None:
    """Put the objects ``updates`` create (ids beyond the index's: inserts, and the new
    ids of moves) into the index as absent ones, at the update's x1 and their x2; their
    updates then revive them (``inf -> y``, an insert as §II-A footnote 4 has it)."""
    new = np.flatnonzero(updates.obj >= len(objects))
    for t in new.tolist():
        i = int(updates.obj[t])
        if i < len(objects):
            continue  # updated twice in the batch
        got = objects.insert(float(updates.x[t]), float(x2[i]), np.inf)
        assert got == i, (got, i)  # events create ids in order


class PaintDense15Approach(Approach):
    """Paint-Dense over 1.5-d range subscriptions (appendix D)."""

    family = "paint-dense"

    def __init__(self, impl: PaintDense15, x2: np.ndarray | None = None):
        self.spec = ApproachSpec(self.family)
        self.impl = impl
        self.counter = impl.counter
        # x2 of every id the run uses (new objects'); None: the index's objects only
        self.x2 = impl.objects.x2.copy() if x2 is None else np.asarray(x2, np.float64)

    @classmethod
    def create(cls, spec: ApproachSpec, view: ServerView) -> PaintDense15Approach:
        """Paint-Dense over its own 2-d object index."""
        return cls(PaintDense15(_objects(view), view.k), view.attributes)

    def process(self, updates: Updates) -> Messages:
        """Apply ``updates`` one at a time, each followed by its messages (a delete is
        ``y -> inf``, an insert ``inf -> y`` of a new id)."""
        add_new_objects(self.impl.objects, updates, self.x2)
        return as_messages(self.impl.process(updates.obj, updates.y_new))


class PaintSparse15Approach(PaintDense15Approach):
    """Paint-Sparse over 1.5-d range subscriptions: it also knows the 3-d index of S."""

    family = "paint-sparse"

    @classmethod
    def create(cls, spec: ApproachSpec, view: ServerView) -> PaintSparse15Approach:
        """Paint-Sparse over its own object index and the run's subscription index."""
        assert isinstance(view.subscriptions, SubscriptionIndex3D)
        return cls(PaintSparse15(_objects(view), view.subscriptions, view.k), view.attributes)


def reach_box(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
    """The boxes ``(−inf, x1, x1, inf, x2, inf)`` reaching every subscription whose box
    holds the point ``(x1, x2)``."""
    n = len(x1)
    return np.stack([np.full(n, -INF), x1, x1, np.full(n, INF), x2, np.full(n, INF)], axis=1)


class CNRelax15(Approach):
    """CN-Relax over 1.5-d range subscriptions: one box per update, from the publisher."""

    family = "cn-relax"
    entry = "publisher"
    stores = "range"
    ordered = False
    exact_family = False

    def __init__(self, x2: np.ndarray, subscriptions: SubscriptionIndex3D):
        self.spec = ApproachSpec(self.family)
        self.x2 = np.asarray(x2, np.float64)  # x2 of every id the run uses
        self.subscriptions = subscriptions
        self.counter = CallCounter2D()  # no server, no index calls

    @classmethod
    def create(cls, spec: ApproachSpec, view: ServerView) -> CNRelax15:
        """CN-Relax needs the objects' x2 and the subscriptions (memory)."""
        return cls(view.attributes, view.subscriptions)

    def process(self, updates: Updates) -> Messages:
        """One box message per update, in order."""
        boxes = reach_box(updates.x, self.x2[updates.obj])
        return Messages(boxes, updates.obj.copy(), updates.x.copy(), updates.y_new.copy())

    def memory_bytes(self, x: np.ndarray, y: np.ndarray, object_bytes: int) -> int:
        """Subscriber memory: every live object in every subscription's box (counted by
        one ``snap`` per object, never listing the pairs)."""
        live = np.flatnonzero(np.isfinite(y))
        boxes = reach_box(np.asarray(x, np.float64)[live], self.x2[live])
        return sum(self.subscriptions.snap(b)[0] for b in boxes) * object_bytes


class Unicast15(Approach):
    """Unicast over 1.5-d range subscriptions (see the module docstring)."""

    family = "unicast"
    message = "targeted"

    def __init__(self, objects: ObjectIndex2D, subscriptions: SubscriptionIndex3D, k: int,
                 lists: TopKLists | None = None, x2: np.ndarray | None = None):  # fmt: skip
        self.spec = ApproachSpec(self.family)
        self.objects = objects
        self.x2 = objects.x2.copy() if x2 is None else np.asarray(x2, np.float64)
        self.counter = objects.counter
        self.subscriptions = subscriptions
        self.k = k
        if lists is None:
            s = subscriptions
            lists = initial_lists_15d(objects.x1, objects.x2, objects.y, s.l, s.r, s.v, k)
        self.lists = lists  # the server's own copy of every subscriber's list

    @property
    def subscriber_lists(self) -> TopKLists:
        """The server's copy, identical to the subscribers' lists (the runner shares it)."""
        return self.lists

    @classmethod
    def create(cls, spec: ApproachSpec, view: ServerView) -> Unicast15:
        """Unicast over its own object index, sharing the initial lists when given."""
        lists = view.lists.copy() if view.lists is not None else None
        return cls(_objects(view), view.subscriptions, view.k, lists, view.attributes)

    def process(self, updates: Updates) -> Messages:
        """Messages of every update in turn, applied to the server's copy as sent."""
        add_new_objects(self.objects, updates, self.x2)
        parts = [self._one(i, y_new) for i, _, _, y_new in updates]
        if not parts:
            e = np.empty(0, np.int64)
            return Messages(np.empty((0, 6)), e, np.empty(0), np.empty(0), e, e.copy())
        target, obj, y, evict = (np.concatenate(c) for c in zip(*parts, strict=True))
        x = self.objects.x1[obj]
        return Messages(np.zeros((len(obj), 6)), obj, x, y, target, evict)

    def _one(self, i: int, y_new: float) -> tuple[np.ndarray, ...]:
        ob, k = self.objects, self.k
        y_old = float(ob.y[i])
        ob.update(i, y_new)
        box = reach_box(ob.x1[i : i + 1], ob.x2[i : i + 1])
        _, subs = self.subscriptions.report(box)
        sub = self.subscriptions

        def successor(j: int, kth_y: float, kth_id: int) -> tuple[int, float]:
            h = ob.min_y(sub.l[j], sub.r[j], -INF, sub.v[j], kth_y, kth_id)
            return h, float(ob.y[h]) if h >= 0 else INF

        return lazy_messages(self.lists, subs, k, i, y_old, y_new, successor)
