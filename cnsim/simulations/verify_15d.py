"""The verification of Paint-Dense and Paint-Sparse for
1.5-d range subscriptions (seed 003 appendix D; :mod:`cnsim.algorithms.range15d`).

After every event it checks, per approach, as ``cnsim verify`` does in 1-d:

* ``lists``: every subscriber list equals the oracle's top-k;
* ``exact-notifies-affected-only``: no subscription whose top-k (membership or a
  member's y) did not change receives a message;
* ``one-message-per-object``: no subscription hears of one object twice in an
  event (the boxes of one object are disjoint);
* ``sparse-same-notifications``: Paint-Sparse delivers the same (subscription,
  object, y) notifications as Paint-Dense, in the same order per subscription;
* ``sparse-no-empty-message``: every Paint-Sparse message reaches a subscription;
* ``sparse-not-more-than-dense``: Paint-Sparse sends at most Paint-Dense's messages.

Deliveries go through the 3-d subscription index's box reporting; the oracle is a
plain scan of all objects per subscription, independent of every index.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from cnsim.algorithms.range15d.paint import PaintDense15, PaintSparse15
from cnsim.server.object_index_2d import ObjectIndex2D
from cnsim.simulations.oracle import true_top_k
from cnsim.subscriptions.index import SubscriptionIndex3D
from cnsim.subscriptions.kinds.range15d import attribute_boxes, attribute_points
from cnsim.subscriptions.lists import TopKLists


def true_top_k_15d(x1, x2, y, l, r, v, k):
    """Each 1.5-d subscription's top k by the brute-force oracle: the box ``[l1, r1] ×
    [−inf, r2]`` over the objects' (x1, x2) (:func:`cnsim.simulations.oracle.true_top_k`)."""
    lo, hi = attribute_boxes(l, r, v)
    return true_top_k(attribute_points(x1, x2), np.asarray(y, np.float64), lo, hi, k)


def deliveries(subs, msgs) -> tuple[np.ndarray, np.ndarray]:
    """``(subscription, message)`` pairs of every delivery, in send order."""
    offsets, ids = subs.report(msgs.boxes)
    which = np.repeat(np.arange(len(msgs)), np.diff(offsets))
    return ids, which


@dataclass
class Report15:
    """What the verification found."""

    events: int = 0
    failures: list[tuple[int, str, str]] = field(default_factory=list)  # (event, approach, check)
    messages: dict[str, int] = field(default_factory=dict)
    delivered: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """Whether every check passed."""
        return not self.failures

    def text(self) -> str:
        """One line per failure (the first 20)."""
        lines = [f"event {e}: {a}: {c}" for e, a, c in self.failures[:20]]
        return "\n".join(lines) or "ok"


def verify_15d(
    x1: np.ndarray,
    x2: np.ndarray,
    y: np.ndarray,
    l: np.ndarray,
    r: np.ndarray,
    v: np.ndarray,
    k: int,
    events: list[tuple[int, float]],
    bounds: str = "tight",
) -> Report15:
    """Run Paint-Dense and Paint-Sparse (its ``bounds`` mode) over ``events`` (object
    id, new y; ``inf`` deletes, a finite y for a deleted object re-inserts it) and
    check every event."""
    subs = SubscriptionIndex3D(l, r, v)
    approaches = {
        "paint-dense": PaintDense15(ObjectIndex2D(x1, x2, y), k),
        "paint-sparse": PaintSparse15(ObjectIndex2D(x1, x2, y), subs, k, bounds),
    }
    lo, hi = attribute_boxes(l, r, v)
    return verify_events(approaches, subs, attribute_points(x1, x2), y, lo, hi, k, events)


def verify_events(approaches: dict, subs, points, y, lo, hi, k: int, events) -> Report15:
    """Run ``approaches`` (Paint-Dense and Paint-Sparse of one kind, each ``process(ids,
    ys) -> messages with .boxes``) over ``events`` and check every event against the
    brute-force oracle over the subscriptions' boxes ``[lo, hi]`` of the objects'
    attributes ``points``; ``subs`` delivers the messages."""
    y = np.asarray(y, np.float64)
    truth_i, truth_y = true_top_k(points, y, lo, hi, k)
    lists = {name: TopKLists(truth_i.copy(), truth_y.copy()) for name in approaches}
    report = Report15(messages=dict.fromkeys(approaches, 0), delivered=dict.fromkeys(approaches, 0))
    y_now = y.copy()
    for e, (i, y_new) in enumerate(events):
        y_now[i] = y_new
        new_i, new_y = true_top_k(points, y_now, lo, hi, k)
        affected = (new_i != truth_i).any(axis=1) | (new_y != truth_y).any(axis=1)
        heard = {}
        for name, approach in approaches.items():
            msgs = approach.process(np.array([i]), np.array([y_new]))
            at, which = deliveries(subs, msgs)
            lists[name].apply(at, msgs.obj[which], msgs.y[which])
            report.messages[name] += len(msgs)
            report.delivered[name] += len(at)
            fail = report.failures.append
            got = lists[name]
            if not (np.array_equal(got.ids, new_i) and np.array_equal(got.ys, new_y)):
                fail((e, name, "lists"))
            if (~affected[at]).any():
                fail((e, name, "exact-notifies-affected-only"))
            pairs = at.astype(np.int64) * (len(y) + 1) + msgs.obj[which]
            if len(np.unique(pairs)) != len(pairs):
                fail((e, name, "one-message-per-object"))
            order = np.argsort(at, kind="stable")
            heard[name] = (at[order], msgs.obj[which][order], msgs.y[which][order], len(msgs))
            if name == "paint-sparse" and (np.bincount(which, minlength=len(msgs)) == 0).any():
                fail((e, name, "sparse-no-empty-message"))
        dense, sparse = heard["paint-dense"], heard["paint-sparse"]
        if not all(np.array_equal(a, b) for a, b in zip(dense[:3], sparse[:3], strict=True)):
            report.failures.append((e, "paint-sparse", "sparse-same-notifications"))
        if sparse[3] > dense[3]:
            report.failures.append((e, "paint-sparse", "sparse-not-more-than-dense"))
        truth_i, truth_y = new_i, new_y
        report.events += 1
    return report
