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
from cnsim.simulations.verify_15d import Report15, verify_events  # the same checks
from cnsim.subscriptions.space_boxes import BoxSubscriptions


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
    subs = BoxSubscriptions(l, r)
    approaches = {
        "paint-dense": PaintDenseBoxes(ObjectIndexD(x, y), k),
        "paint-sparse": PaintSparseBoxes(ObjectIndexD(x, y), subs, k),
    }
    return verify_events(approaches, subs, x, y, l, r, k, events)
