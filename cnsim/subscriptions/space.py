"""The subscription space S and the one rule of a message rectangle (seed 003 §II-A).

A subscription ``S_j`` with range ``[l_j, r_j]`` is the point ``(l_j, r_j)`` of S. A CN
message ``Msg(lI, rI, lO, rO, x, y)`` reaches the subscriptions with
``[lI, rI] ⊆ σ_j ⊆ (lO, rO)``, i.e. the points of the rectangle

    ``(lO, lI] × [rI, rO)``:  ``lO < l <= lI`` and ``rI <= r < rO``,

written ``(lO, lI, rI, rO)`` throughout cnsim: the coordinate l lower-open, r closed.
The subscription index of every kind (:mod:`cnsim.subscriptions.index`, the kernels of
:mod:`cnsim.kdtree`), the zones and the routing read the rule per coordinate
(``lower_open``; :func:`cnsim.brokers.zones.meets`).
"""

from __future__ import annotations

import math


def closed_box_rect(l_min: float, l_max: float, r_min: float, r_max: float) -> tuple:
    """The rectangle reaching exactly the points of the closed box
    ``[l_min, l_max] × [r_min, r_max]``."""
    return (math.nextafter(l_min, -math.inf), l_max, r_min, math.nextafter(r_max, math.inf))
