"""Brute-force oracles for zone tests: interval algebra written independently of cnsim."""

from __future__ import annotations

import numpy as np


def interval_meet(lo1, lo1c, hi1, hi1c, lo2, lo2c, hi2, hi2c) -> bool:
    """Do two intervals with given endpoint closedness share a point (over the reals)?"""
    if lo1 > lo2 or (lo1 == lo2 and not lo1c):
        lo, loc = lo1, lo1c
    else:
        lo, loc = lo2, lo2c
    if hi1 < hi2 or (hi1 == hi2 and not hi1c):
        hi, hic = hi1, hi1c
    else:
        hi, hic = hi2, hi2c
    return lo < hi or (lo == hi and loc and hic)


def zone_meets(zones, z: int, rect) -> bool:
    """Zone z (half-open, closed on the box's upper edge) meets (lO, lI] x [rI, rO)."""
    lO, lI, rI, rO = rect
    a, b, c, d = zones.zlo[:, 0][z], zones.zhi[:, 0][z], zones.zlo[:, 1][z], zones.zhi[:, 1][z]
    top = zones.hi
    ok_l = interval_meet(a, True, b, b == top, lO, False, lI, True)
    ok_r = interval_meet(c, True, d, d == top, rI, True, rO, False)
    return ok_l and ok_r


def meeting_zones(zones, rect) -> set[int]:
    """All zones meeting the rectangle, by brute force."""
    return {z for z in range(zones.n_zones) if zone_meets(zones, z, rect)}


def contains(zones, l: float, r: float) -> list[int]:
    """Zones whose box holds the point (l, r), by brute force."""
    top = zones.hi
    out = []
    for z in range(zones.n_zones):
        a, b, c, d = zones.zlo[:, 0][z], zones.zhi[:, 0][z], zones.zlo[:, 1][z], zones.zhi[:, 1][z]
        in_l = a <= l and (l < b or (b == top and l == b))
        in_r = c <= r and (r < d or (d == top and r == d))
        if in_l and in_r:
            out.append(z)
    return out


def neighbours_brute(zones) -> set[tuple[int, int]]:
    """Ordered pairs of zones sharing a boundary segment of positive length."""
    out = set()
    lo = np.stack([zones.zlo[:, 0], zones.zlo[:, 1]])
    hi = np.stack([zones.zhi[:, 0], zones.zhi[:, 1]])
    for i in range(zones.n_zones):
        for j in range(zones.n_zones):
            if i == j:
                continue
            for d in (0, 1):
                o = 1 - d
                touch = hi[d, i] == lo[d, j] or hi[d, j] == lo[d, i]
                overlap = min(hi[o, i], hi[o, j]) - max(lo[o, i], lo[o, j])
                if touch and overlap > 0:
                    out.add((i, j))
    return out
