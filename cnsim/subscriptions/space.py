"""The subscription space S and the one rule of a message rectangle (seed 003 §II-A).

A subscription ``S_j`` with range ``[l_j, r_j]`` is the point ``(l_j, r_j)`` of S. A CN
message ``Msg(lI, rI, lO, rO, x, y)`` reaches the subscriptions with
``[lI, rI] ⊆ σ_j ⊆ (lO, rO)``, i.e. the points of the rectangle

    ``(lO, lI] × [rI, rO)``:  ``lO < l <= lI`` and ``rI <= r < rO``,

written ``(lO, lI, rI, rO)`` throughout cnsim. This module is the only place that
spells the rule out for 1-d ranges; the subscription index calls it (the zones and
the routing read the same rule per dimension: :func:`cnsim.brokers.zones.meets`).
"""

from __future__ import annotations

import math

import numba


@numba.njit(cache=True, inline="always")
def reaches(lO: float, lI: float, rI: float, rO: float, l: float, r: float) -> bool:
    """Whether the rectangle ``(lO, lI, rI, rO)`` reaches the point ``(l, r)``."""
    return lO < l <= lI and rI <= r < rO


@numba.njit(cache=True, inline="always")
def misses_box(lO, lI, rI, rO, l_min, l_max, r_min, r_max) -> bool:
    """Whether the rectangle reaches no point of the closed box
    ``[l_min, l_max] × [r_min, r_max]``."""
    return l_max <= lO or l_min > lI or r_max < rI or r_min >= rO


@numba.njit(cache=True, inline="always")
def holds_box(lO, lI, rI, rO, l_min, l_max, r_min, r_max) -> bool:
    """Whether the rectangle reaches every point of the closed box."""
    return l_min > lO and l_max <= lI and r_min >= rI and r_max < rO


def closed_box_rect(l_min: float, l_max: float, r_min: float, r_max: float) -> tuple:
    """The rectangle reaching exactly the points of the closed box
    ``[l_min, l_max] × [r_min, r_max]``."""
    return (math.nextafter(l_min, -math.inf), l_max, r_min, math.nextafter(r_max, math.inf))
