"""Paint-Dense and Paint-Sparse of one subscription kind, run event by event against the
one brute-force oracle (:func:`cnsim.simulations.oracle.true_top_k`, a full scan over
the subscriptions' boxes of the objects' attributes). After every event it checks, per
approach:

* ``lists``: every subscriber list equals the oracle's top-k;
* ``exact-notifies-affected-only``: no subscription whose top-k (membership or a
  member's y) did not change receives a message;
* ``one-message-per-object``: no subscription hears of one object twice in an event;
* ``sparse-same-notifications``: Paint-Sparse delivers the same (subscription, object,
  y) notifications as Paint-Dense, in the same order per subscription;
* ``sparse-no-empty-message``: every Paint-Sparse message reaches a subscription;
* ``sparse-not-more-than-dense``: Paint-Sparse sends at most Paint-Dense's messages.

Deliveries go through the subscription index's box reporting."""

from dataclasses import dataclass, field

import numpy as np

from cnsim.algorithms.boxes.paint import PaintDenseBoxes, PaintSparseBoxes
from cnsim.algorithms.range15d.paint import PaintDense15, PaintSparse15
from cnsim.server.object_index_2d import ObjectIndex2D
from cnsim.server.object_index_d import ObjectIndexD
from cnsim.simulations.oracle import true_top_k
from cnsim.subscriptions.index import SubscriptionIndex3D
from cnsim.subscriptions.kinds.range15d import attribute_boxes, attribute_points
from cnsim.subscriptions.lists import TopKLists
from cnsim.subscriptions.space_boxes import BoxSubscriptions


@dataclass
class Report:
    """What the checks found."""

    events: int = 0
    failures: list[tuple[int, str, str]] = field(default_factory=list)  # (event, approach, check)
    messages: dict[str, int] = field(default_factory=dict)
    delivered: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.failures

    def text(self) -> str:
        """One line per failure (the first 20)."""
        return "\n".join(f"event {e}: {a}: {c}" for e, a, c in self.failures[:20]) or "ok"


def check_15d(x1, x2, y, l, r, v, k, events, bounds="tight") -> Report:
    """1.5-d ranges ``(l1, r1, r2)`` over objects ``(x1, x2, y)``; ``events``: (object id,
    new y), ``inf`` deletes, a finite y for a deleted object re-inserts it."""
    subs = SubscriptionIndex3D(l, r, v)
    approaches = {
        "paint-dense": PaintDense15(ObjectIndex2D(x1, x2, y), k),
        "paint-sparse": PaintSparse15(ObjectIndex2D(x1, x2, y), subs, k, bounds),
    }
    lo, hi = attribute_boxes(l, r, v)
    return check_events(approaches, subs, attribute_points(x1, x2), y, lo, hi, k, events)


def check_boxes(x, y, l, r, k, events) -> Report:
    """Boxes ``[l, r]`` (m, d) over objects ``x`` (n, d), ``y``; ``events`` as above."""
    x = np.asarray(x, np.float64).reshape(len(y), -1)
    l, r = (np.asarray(b, np.float64).reshape(-1, x.shape[1]) for b in (l, r))
    subs = BoxSubscriptions(l, r)
    approaches = {
        "paint-dense": PaintDenseBoxes(ObjectIndexD(x, y), k),
        "paint-sparse": PaintSparseBoxes(ObjectIndexD(x, y), subs, k),
    }
    return check_events(approaches, subs, x, y, l, r, k, events)


def check_events(approaches: dict, subs, points, y, lo, hi, k, events) -> Report:
    """Run ``approaches`` (``process(ids, ys)`` -> messages with ``.boxes``) over
    ``events`` and check every event against the oracle over the boxes ``[lo, hi]`` of
    the objects' attributes ``points``; ``subs`` delivers the messages."""
    y = np.asarray(y, np.float64)
    truth_i, truth_y = true_top_k(points, y, lo, hi, k)
    lists = {name: TopKLists(truth_i.copy(), truth_y.copy()) for name in approaches}
    report = Report(messages=dict.fromkeys(approaches, 0), delivered=dict.fromkeys(approaches, 0))
    y_now = y.copy()
    for e, (i, y_new) in enumerate(events):
        y_now[i] = y_new
        new_i, new_y = true_top_k(points, y_now, lo, hi, k)
        affected = (new_i != truth_i).any(axis=1) | (new_y != truth_y).any(axis=1)
        heard, fail = {}, report.failures.append
        for name, approach in approaches.items():
            msgs = approach.process(np.array([i]), np.array([y_new]))
            offsets, at = subs.report(msgs.boxes)
            which = np.repeat(np.arange(len(msgs)), np.diff(offsets))
            obj, ys = msgs.obj[which], msgs.y[which]
            lists[name].apply(at, obj, ys)
            report.messages[name] += len(msgs)
            report.delivered[name] += len(at)
            got = lists[name]
            if not (np.array_equal(got.ids, new_i) and np.array_equal(got.ys, new_y)):
                fail((e, name, "lists"))
            if (~affected[at]).any():
                fail((e, name, "exact-notifies-affected-only"))
            pairs = at.astype(np.int64) * (len(y) + 1) + obj
            if len(np.unique(pairs)) != len(pairs):
                fail((e, name, "one-message-per-object"))
            order = np.argsort(at, kind="stable")
            heard[name] = (at[order], obj[order], ys[order], len(msgs))
            if name == "paint-sparse" and (np.bincount(which, minlength=len(msgs)) == 0).any():
                fail((e, name, "sparse-no-empty-message"))
        dense, sparse = heard["paint-dense"], heard["paint-sparse"]
        if not all(np.array_equal(a, b) for a, b in zip(dense[:3], sparse[:3], strict=True)):
            fail((e, "paint-sparse", "sparse-same-notifications"))
        if sparse[3] > dense[3]:
            fail((e, "paint-sparse", "sparse-not-more-than-dense"))
        truth_i, truth_y = new_i, new_y
        report.events += 1
    return report
