"""CN messages ``Msg(lI, rI, lO, rO, x, y)`` in columnar form.

A message reaches the subscriptions ``(l, r)`` with ``lO < l <= lI`` and
``rI <= r < rO`` and carries one object's new values. We carry the object's id
beside its x-value: a subscriber identifies the object by x (seed 003 §II-A), and
ids are x's stand-in that survives x-updates. Order matters within an event
(footnote 5) and is preserved.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Messages:
    """The messages one approach sends for one event (or batch), in send order."""

    rects: np.ndarray  # (M, 4) float64: lO, lI, rI, rO
    obj: np.ndarray  # (M,) int64 object ids
    y: np.ndarray  # (M,) float64 object y-values carried (inf: the object is gone)

    def __len__(self) -> int:
        return len(self.obj)

    @staticmethod
    def empty() -> Messages:
        """No messages."""
        return Messages(np.empty((0, 4)), np.empty(0, np.int64), np.empty(0))


class MessageWriter:
    """Collects messages one region at a time, then freezes them into :class:`Messages`."""

    def __init__(self) -> None:
        self._rects: list[tuple] = []
        self._obj: list[int] = []
        self._y: list[float] = []

    def send(self, rects: list[tuple], obj: int, y: float) -> None:
        """Send ``(obj, y)`` to each rectangle of ``rects``."""
        self._rects.extend(rects)
        self._obj.extend([obj] * len(rects))
        self._y.extend([y] * len(rects))

    def freeze(self) -> Messages:
        """The messages sent so far."""
        if not self._obj:
            return Messages.empty()
        return Messages(
            np.array(self._rects, np.float64).reshape(-1, 4),
            np.array(self._obj, np.int64),
            np.array(self._y, np.float64),
        )
