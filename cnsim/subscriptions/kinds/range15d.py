"""1.5-d range subscriptions (seed 003 appendix D): ``[l1, r1] × (−∞, r2]`` over the
objects' (x1, x2), the point ``(l1, r1, r2)`` of a 3-d S; a message box
``(lO, lI, rI, rO, vI, vO)`` holds ``lO < l1 <= lI``, ``rI <= r1 < rO`` and
``vI <= r2 < vO``.

The workload (appendix D-C): object i is ``(x_i^(1), x_i^(2), y_i)``; its x1 is the
1-d scenario's x (``[objects] distribution``), its x2 uniform in [0, 1) from a stream
of its own, in id order (:func:`~cnsim.subscriptions.kinds.base.attributes`), so the
x1 and y of a 1.5-d run equal those of the 1-d run of the same seed. r2 is uniform;
by ``[subscriptions] dataset``:

* ``DS#1``: l1, r1 the smaller and larger of two uniform draws;
* ``DS#2`` / ``DS#3``: l1 uniform, r1 the x1 of the ``cover``-th object from l1
  eastward (the narrowest range holding that many objects by x1; the paper's 1,000 and
  100 of its 10,000 objects), or the last object's.
"""

from __future__ import annotations

import numpy as np

from cnsim.subscriptions.index import SubscriptionIndex3D
from cnsim.subscriptions.kinds.base import DEFAULT, Restriction, SubscriptionKind, attributes
from cnsim.subscriptions.workload import sorted_pairs

DATASETS = ("DS#1", "DS#2", "DS#3")  # [subscriptions] dataset (appendix D-C)
COVER = {"DS#2": 1_000, "DS#3": 100}  # objects a DS#2 / DS#3 range covers by default
_WHEN = "when subscriptions.kind = 'range-1.5d'"


def attribute_boxes(l, r, v) -> tuple[np.ndarray, np.ndarray]:
    """Subscriptions ``(l1, r1, r2)`` as closed boxes ``[l1, r1] × [−inf, r2]`` over the
    objects' (x1, x2): ``(lo, hi)``, each (m, 2)."""
    lo = np.column_stack([np.asarray(l, np.float64), np.full(len(l), -np.inf)])
    return lo, np.column_stack([r, v]).astype(np.float64)


def attribute_points(x1, x2) -> np.ndarray:
    """The objects' (x1, x2), (n, 2)."""
    return np.column_stack([x1, x2]).astype(np.float64)


def draw_ranges(
    rng: np.random.Generator, m: int, dataset: str, x1: np.ndarray, cover: int | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(l1, r1, r2)`` of ``m`` subscriptions of ``dataset`` over objects with x1-values
    ``x1``; ``cover`` (DS#2/DS#3) overrides how many objects a range covers."""
    if dataset == "DS#1":
        l, r = sorted_pairs(rng, m)
    elif dataset in COVER:
        need = COVER[dataset] if cover is None else cover
        xs = np.sort(np.asarray(x1, np.float64))
        l = rng.random(m)
        first = np.searchsorted(xs, l, side="left")
        r = np.maximum(xs[np.minimum(first + need - 1, len(xs) - 1)], l) if len(xs) else l.copy()
    else:
        raise ValueError(f"unknown dataset {dataset!r}; allowed: {', '.join(DATASETS)}")
    return l, r, rng.random(m)


class Range15dKind(SubscriptionKind):
    """A 1.5-d range: S = {(l1, r1, r2)}, matching over (x1, x2)."""

    name = "range-1.5d"
    label = "1.5-d"
    subscription_fields = ("l", "r", "v")
    owns = ("subscriptions.dataset", "subscriptions.cover", "messages.box_bytes")
    restrictions = (
        Restriction("overlay.kind", ("ideal", "meghdoot"),
                    "cannot carry 1.5-d range subscriptions", f"'ideal' or 'meghdoot' {_WHEN}"),
        Restriction("subscriptions.distribution", ("uniform",),
                    "does not apply to 1.5-d subscriptions (subscriptions.dataset draws them)",
                    f"'uniform' (the default) {_WHEN}"),
        Restriction("events.trace", (None,),
                    "cannot feed 1.5-d subscriptions (its rows have no x2)",
                    f"no events.trace {_WHEN}"),
        Restriction("server.count", (1,),
                    "must be 1 for 1.5-d subscriptions (one 2-d object index)", f"1 {_WHEN}"),
        Restriction("messages.cn_bytes", DEFAULT,
                    "applies to 1-d messages only (a 1.5-d message is messages.box_bytes long)",
                    f"the default {_WHEN}"),
    )  # fmt: skip
    one_message_per_object = True  # an object's boxes of one event are disjoint

    @property
    def lower_open(self) -> tuple[bool, ...]:
        return (True, False, False)

    @property
    def ordered(self) -> tuple[tuple[int, int], ...]:
        return ((0, 1),)

    def draw(self, streams, x, events):
        s = self.section
        x2 = np.ascontiguousarray(attributes(streams.rng("objects_x2"), x, events, 1)[:, 1])
        rng = streams.rng("subscriptions")
        l, r, v = draw_ranges(rng, s["count"], s["dataset"], x, s["cover"])
        return {"l": l, "r": r, "v": v, "x2": x2}

    def index(self, w) -> SubscriptionIndex3D:
        return SubscriptionIndex3D(w.l, w.r, w.v)

    def space_points(self, w) -> np.ndarray:
        return np.column_stack([w.l, w.r, w.v])

    def bounds(self, w):
        return attribute_boxes(w.l, w.r, w.v)

    def object_points(self, w, x):
        n = min(len(x), len(w.x2))  # the initial objects, or every id
        return attribute_points(np.asarray(x, np.float64)[:n], w.x2[:n])

    def region_bytes(self, w, sizes) -> int:
        return sizes["box_bytes"]

    def server_view(self, w, algorithm):
        return {"attributes": w.x2}
