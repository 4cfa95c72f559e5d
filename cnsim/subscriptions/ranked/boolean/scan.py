"""Sequential scan (the paper's SCAN): test every live subscription."""

from __future__ import annotations

import numpy as np

from cnsim.subscriptions.ranked.boolean import _kernels as K
from cnsim.subscriptions.ranked.boolean.base import BooleanIndex


class Scan(BooleanIndex):
    """Every live subscription is tested against the event; a k-heap keeps the best."""

    name = "scan"

    def __init__(self, subscriptions=None):
        super().__init__(subscriptions)

    def _add(self, ids: np.ndarray) -> None:
        pass

    def _remove(self, i: int) -> None:
        pass

    def _kernel(self) -> tuple:
        return K.scan_kernel, (self._store.arrays(), self._store.n)
