"""CN messages ``Msg(lI, rI, lO, rO, x, y)`` in columnar form.

A message reaches the subscriptions ``(l, r)`` with ``lO < l <= lI`` and
``rI <= r < rO`` and carries one object's new values ``(x, y)``. Subscribers
identify objects by id, the stand-in for x (an id names one object at one x; see
:class:`cnsim.subscriptions.workload.Events`). Order matters within an event
(footnote 5) and is preserved.

Every subscription kind's message is a box of its subscription space S, a pair ``(lo,
hi)`` per coordinate (1.5-d ranges add ``vI <= r2 < vO``, boxes a pair of pairs per
attribute); :func:`reach` gives the one reaching every subscription that holds an
object, :func:`bounds` a subscription's closed box over the objects' attributes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Messages:
    """The messages one approach sends for one event (or batch), in send order."""

    rects: np.ndarray  # (M, 4) float64: lO, lI, rI, rO; 1.5-d: (M, 6) boxes, + vI, vO
    obj: np.ndarray  # (M,) int64 object ids
    x: np.ndarray  # (M,) float64 object x-values
    y: np.ndarray  # (M,) float64 object y-values carried (inf: the object is gone)
    target: np.ndarray | None = None  # unicast only: the subscription each message is for
    evict: np.ndarray | None = None  # unicast only: the object each message replaces, or -1

    def __len__(self) -> int:
        return len(self.obj)

    @staticmethod
    def empty() -> Messages:
        """No messages."""
        return Messages(np.empty((0, 4)), np.empty(0, np.int64), np.empty(0), np.empty(0))


class MessageWriter:
    """Collects messages one region at a time, then freezes them into :class:`Messages`."""

    def __init__(self) -> None:
        self._rects: list[tuple] = []
        self._objects: list[tuple[int, float, float]] = []

    def send(self, rects: list[tuple], obj: int, x: float, y: float) -> None:
        """Send object ``obj`` with values ``(x, y)`` to each rectangle of ``rects``."""
        self._rects.extend(rects)
        self._objects.extend([(obj, x, y)] * len(rects))

    def freeze(self) -> Messages:
        """The messages sent so far."""
        if not self._objects:
            return Messages.empty()
        obj, x, y = zip(*self._objects, strict=True)
        return Messages(
            np.array(self._rects, np.float64).reshape(-1, 4),
            np.array(obj, np.int64),
            np.array(x, np.float64),
            np.array(y, np.float64),
        )


def concat_messages(parts: list[Messages]) -> Messages:
    """The messages of ``parts`` in order, as one :class:`Messages`."""
    parts = [p for p in parts if len(p)] or parts[:1] or [Messages.empty()]
    if len(parts) == 1:
        return parts[0]
    targeted = parts[0].target is not None

    def cat(field: str):
        return np.concatenate([getattr(p, field) for p in parts])

    return Messages(
        cat("rects"), cat("obj"), cat("x"), cat("y"),
        target=cat("target") if targeted else None,
        evict=cat("evict") if targeted else None,
    )  # fmt: skip


def axes(lower_open) -> np.ndarray:
    """The attribute each coordinate of S bounds. Coordinates come attribute by
    attribute, a lower bound before the upper one (:attr:`SubscriptionKind.ordered
    <cnsim.subscriptions.kinds.base.SubscriptionKind.ordered>`), so a new attribute
    starts at every lower bound and at every upper bound not preceded by a lower one."""
    starts = [s == 0 or low or not lower_open[s - 1] for s, low in enumerate(lower_open)]
    return np.cumsum(starts) - 1


def reach(points: np.ndarray, lower_open) -> np.ndarray:
    """Message boxes (n, 2D) reaching every subscription that holds each object of
    ``points`` (n, a): ``(−inf, a)`` on a lower coordinate, ``(a, inf)`` on an upper."""
    apex = np.asarray(points, np.float64)[:, axes(lower_open)]
    out = np.full((len(apex), 2 * apex.shape[1]), np.inf)
    low = np.asarray(lower_open, np.bool_)
    out[:, 0::2] = np.where(low, -np.inf, apex)
    out[:, 1::2] = np.where(low, apex, np.inf)
    return out


def bounds(subscriptions) -> tuple[np.ndarray, np.ndarray]:
    """Every subscription of an index as a closed box ``[lo, hi]`` (each (m, a)) over the
    attributes its coordinates bound: a lower coordinate gives lo, an upper one hi; an
    attribute with no lower (upper) coordinate is unbounded below (above)."""
    lower_open = subscriptions.lower_open
    ax = axes(lower_open)
    lo = np.full((len(subscriptions), int(ax[-1]) + 1), -np.inf)
    hi = np.full_like(lo, np.inf)
    for s, (t, low) in enumerate(zip(ax, lower_open, strict=True)):
        (lo if low else hi)[:, t] = subscriptions.points[s]
    return lo, hi

