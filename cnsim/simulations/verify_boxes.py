"""The verification of Paint-Dense and Paint-Sparse for
d-dimensional box subscriptions (seed 003 §IV-C; :mod:`cnsim.algorithms.boxes`).

After every event it checks, per approach, as :mod:`cnsim.simulations.verify_15d`:

* ``lists``: every subscriber list equals the oracle's top-k;
* ``exact-notifies-affected-only``: no subscription whose top-k (membership or a
  member's y) did not change receives a message;
* ``one-message-per-object``: no subscription hears of one object twice in an event;
* ``sparse-same-notifications``: Paint-Sparse delivers the same (subscription,
  object, y) notifications as Paint-Dense, in the same order per subscription;
* ``sparse-no-empty-message``: every Paint-Sparse message reaches a subscription;
* ``sparse-not-more-than-dense``: Paint-Sparse sends at most Paint-Dense's messages.

Deliveries go through the subscription index's box reporting; the oracle is a plain
scan of all objects per subscription, independent of every index.
"""

from __future__ import annotations

import numpy as np

from cnsim.algorithms.boxes.paint import PaintDenseBoxes, PaintSparseBoxes
from cnsim.server.object_index_d import ObjectIndexD
from cnsim.simulations.oracle import true_top_k
from cnsim.simulations.verify_15d import Report15, deliveries  # the same record and pairing
from cnsim.subscriptions.index_box import SubscriptionIndexBox
from cnsim.subscriptions.lists import TopKLists


def verify_boxes(
    x: np.ndarray,
    y: np.ndarray,
    l: np.ndarray,
    r: np.ndarray,
    k: int,
    events: list[tuple[int, float]],
) -> Report15:
    """Run Paint-Dense and Paint-Sparse over ``events`` (object id, new y; ``inf``
    deletes, a finite y for a deleted object re-inserts it) on objects ``x`` (n, d),
    ``y`` and subscriptions ``[l, r]`` (m, d), and check every event."""
    x = np.asarray(x, np.float64).reshape(len(y), -1)
    l = np.asarray(l, np.float64).reshape(-1, x.shape[1])
    r = np.asarray(r, np.float64).reshape(-1, x.shape[1])
    subs = SubscriptionIndexBox(l, r)
    approaches = {
        "paint-dense": PaintDenseBoxes(ObjectIndexD(x, y), k),
        "paint-sparse": PaintSparseBoxes(ObjectIndexD(x, y), subs, k),
    }
    truth_i, truth_y = true_top_k(x, np.asarray(y, np.float64), l, r, k)
    lists = {name: TopKLists(truth_i.copy(), truth_y.copy()) for name in approaches}
    report = Report15(messages=dict.fromkeys(approaches, 0),
                         delivered=dict.fromkeys(approaches, 0))  # fmt: skip
    y_now = np.array(y, np.float64)
    for e, (i, y_new) in enumerate(events):
        y_now[i] = y_new
        new_i, new_y = true_top_k(x, y_now, l, r, k)
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
