"""Routing of CN message rectangles over the zone overlay (Meghdoot/CAN style).

A message ``(lO, lI, rI, rO)`` covers the points ``lO < l <= lI, rI <= r < rO`` of S.
From its source zone it travels in two phases:

1. *Greedy*: while the current zone does not meet the rectangle, forward to the
   neighbour whose box is closest (Euclidean) to the rectangle. On a rectangular
   tiling some neighbour is always strictly closer until the distance is zero; at
   zero distance a zone may still miss the rectangle (it touches an open side), and
   then a breadth-first search over the overlay finds the nearest meeting zone.
2. *Propagation*: flooding from the first meeting zone over neighbours that meet the
   rectangle, each zone reached once (a breadth-first tree: every reached zone but
   the first is entered by exactly one hop).

The zones that meet a rectangle are connected in the neighbour graph (the
rectangle clipped to S is convex), so propagation reaches all of them.

Results for a batch are columnar: the hops of message ``m`` are
``hop_from/hop_to[hop_ptr[m]:hop_ptr[m+1]]`` in causal order (a hop leaves the
source or a zone entered by an earlier hop; the first ``greedy_hops[m]`` hops are the
greedy phase), the zones reached (where the gateway brokers deliver) are
``reach_zone[reach_ptr[m]:reach_ptr[m+1]]``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from cnsim.brokers.zones import Zones
from cnsim.errors import InputError
from cnsim.subscriptions.space import meets_zone


@dataclass(frozen=True)
class Routes:
    """Overlay hops and zones reached, per message, in CSR layout."""

    hop_ptr: np.ndarray  # int64 (M + 1,)
    hop_from: np.ndarray  # int32 (H,)
    hop_to: np.ndarray  # int32 (H,)
    greedy_hops: np.ndarray  # int32 (M,): leading hops of each message before the rectangle
    reach_ptr: np.ndarray  # int64 (M + 1,)
    reach_zone: np.ndarray  # int32 (R,)

    @property
    def n_messages(self) -> int:
        """Number of messages routed."""
        return len(self.hop_ptr) - 1

    def hop_counts(self) -> np.ndarray:
        """Overlay hops of every message."""
        return np.diff(self.hop_ptr)

    def reach_counts(self) -> np.ndarray:
        """Number of zones reached by every message."""
        return np.diff(self.reach_ptr)

    def hops(self, m: int) -> tuple[np.ndarray, np.ndarray]:
        """(from_zone, to_zone) arrays of message ``m``'s hops."""
        s = slice(self.hop_ptr[m], self.hop_ptr[m + 1])
        return self.hop_from[s], self.hop_to[s]

    def reached(self, m: int) -> np.ndarray:
        """Zones reached by message ``m`` (breadth-first order)."""
        return self.reach_zone[self.reach_ptr[m] : self.reach_ptr[m + 1]]

    def message_of_hop(self) -> np.ndarray:
        """Message index of every hop (to weight hops by message size)."""
        return np.repeat(np.arange(self.n_messages), self.hop_counts())


def route(
    zones: Zones,
    lO: np.ndarray | float,
    lI: np.ndarray | float,
    rI: np.ndarray | float,
    rO: np.ndarray | float,
    src: np.ndarray | int | None = None,
) -> Routes:
    """Route a batch of message rectangles from ``src`` zones (default: the server's zone)."""
    bounds = np.broadcast_arrays(*(np.asarray(x, dtype=np.float64) for x in (lO, lI, rI, rO)))
    if bounds[0].ndim > 1:
        raise InputError("message bounds must be scalars or 1-d arrays")
    lO, lI, rI, rO = (np.ascontiguousarray(np.atleast_1d(b)) for b in bounds)
    if any(np.isnan(b).any() for b in (lO, lI, rI, rO)):
        raise InputError("message bounds must not be NaN")
    m = len(lO)
    src = _sources(zones, src, m)
    z = zones.n_zones
    hop_ptr = np.zeros(m + 1, np.int64)
    reach_ptr = np.zeros(m + 1, np.int64)
    greedy = np.zeros(m, np.int32)
    cap_h, cap_r = 4 * m + 3 * z, 2 * m + z
    hop_from, hop_to = np.empty(cap_h, np.int32), np.empty(cap_h, np.int32)
    reach = np.empty(cap_r, np.int32)
    scratch = (
        np.zeros(z, np.int64),
        np.zeros(z, np.int64),
        np.empty(z, np.int32),
        np.empty(z, np.int32),
    )
    done = 0
    while True:
        done = _route_kernel(
            done, lO, lI, rI, rO, src, zones.zlo_l, zones.zhi_l, zones.zlo_r, zones.zhi_r,
            zones.lo, zones.hi, zones.nbr_ptr, zones.nbr_idx,
            hop_ptr, hop_from, hop_to, greedy, reach_ptr, reach, *scratch,
        )  # fmt: skip
        if done == m:
            break
        # out of room for a worst-case message: grow the buffers and resume
        hop_from = _grow(hop_from, hop_ptr[done])
        hop_to = _grow(hop_to, hop_ptr[done])
        reach = _grow(reach, reach_ptr[done])
    h, r = hop_ptr[m], reach_ptr[m]
    return Routes(
        hop_ptr, hop_from[:h].copy(), hop_to[:h].copy(), greedy, reach_ptr, reach[:r].copy()
    )


def _sources(zones: Zones, src: np.ndarray | int | None, m: int) -> np.ndarray:
    if src is None:
        src = zones.server_zone
    src_arr = np.broadcast_to(np.asarray(src, dtype=np.int64), (m,))
    if m and (src_arr.min() < 0 or src_arr.max() >= zones.n_zones):
        raise InputError(f"source zones must be in 0..{zones.n_zones - 1}")
    return np.ascontiguousarray(src_arr, dtype=np.int32)


def _grow(buf: np.ndarray, used: int) -> np.ndarray:
    out = np.empty(2 * len(buf), buf.dtype)
    out[:used] = buf[:used]
    return out


@numba.njit(cache=True, inline="always")
def _dist2(a, b, c, d, lO, lI, rI, rO):  # pragma: no cover - numba
    # squared distance between the closed zone box and the closed rectangle
    gl = max(0.0, lO - b, a - lI)
    gr = max(0.0, rI - d, c - rO)
    return gl * gl + gr * gr


@numba.njit(cache=True)
def _route_kernel(
    m0,
    lO,
    lI,
    rI,
    rO,
    src,
    zlo_l,
    zhi_l,
    zlo_r,
    zhi_r,
    box_lo,
    box_hi,
    nbr_ptr,
    nbr_idx,
    hop_ptr,
    hop_from,
    hop_to,
    greedy,
    reach_ptr,
    reach,
    mark,
    bfs_mark,
    queue,
    parent,
):  # pragma: no cover - numba
    n_zones = len(zlo_l)
    h = hop_ptr[m0]
    q = reach_ptr[m0]
    for m in range(m0, len(lO)):
        # worst case: greedy, fallback path and propagation each below n_zones hops
        if h + 3 * n_zones > len(hop_from) or q + n_zones > len(reach):
            return m
        a0, a1, b0, b1 = lO[m], lI[m], rI[m], rO[m]
        stamp = m + 1
        if meets_zone(box_lo, box_hi, box_lo, box_hi, box_hi, a0, a1, b0, b1):
            cur = src[m]
            cur_d = _dist2(zlo_l[cur], zhi_l[cur], zlo_r[cur], zhi_r[cur], a0, a1, b0, b1)
            h0 = h
            while not meets_zone(
                zlo_l[cur], zhi_l[cur], zlo_r[cur], zhi_r[cur], box_hi, a0, a1, b0, b1
            ):
                best, best_d = -1, cur_d
                for p in range(nbr_ptr[cur], nbr_ptr[cur + 1]):
                    nb = nbr_idx[p]
                    d = _dist2(zlo_l[nb], zhi_l[nb], zlo_r[nb], zhi_r[nb], a0, a1, b0, b1)
                    if d < best_d:
                        best, best_d = nb, d
                if best < 0:
                    h, cur = _bfs_to_rect(
                        cur, stamp, a0, a1, b0, b1, zlo_l, zhi_l, zlo_r, zhi_r, box_hi,
                        nbr_ptr, nbr_idx, hop_from, hop_to, h, bfs_mark, queue, parent,
                    )  # fmt: skip
                    break
                hop_from[h] = cur
                hop_to[h] = best
                h += 1
                cur, cur_d = best, best_d
            greedy[m] = h - h0
            # propagation: breadth-first over neighbours meeting the rectangle
            mark[cur] = stamp
            queue[0] = cur
            head, tail = 0, 1
            reach[q] = cur
            q += 1
            while head < tail:
                z = queue[head]
                head += 1
                for p in range(nbr_ptr[z], nbr_ptr[z + 1]):
                    nb = nbr_idx[p]
                    if mark[nb] != stamp and meets_zone(
                        zlo_l[nb], zhi_l[nb], zlo_r[nb], zhi_r[nb], box_hi, a0, a1, b0, b1
                    ):
                        mark[nb] = stamp
                        queue[tail] = nb
                        tail += 1
                        hop_from[h] = z
                        hop_to[h] = nb
                        h += 1
                        reach[q] = nb
                        q += 1
        hop_ptr[m + 1] = h
        reach_ptr[m + 1] = q
    return len(lO)


@numba.njit(cache=True)
def _bfs_to_rect(
    start,
    stamp,
    a0,
    a1,
    b0,
    b1,
    zlo_l,
    zhi_l,
    zlo_r,
    zhi_r,
    box_hi,
    nbr_ptr,
    nbr_idx,
    hop_from,
    hop_to,
    h,
    bfs_mark,
    queue,
    parent,
):  # pragma: no cover - numba
    """Shortest overlay path from ``start`` to a zone meeting the rectangle; appends hops."""
    bfs_mark[start] = stamp
    parent[start] = -1
    queue[0] = start
    head, tail = 0, 1
    target = -1
    while head < tail and target < 0:
        z = queue[head]
        head += 1
        for p in range(nbr_ptr[z], nbr_ptr[z + 1]):
            nb = nbr_idx[p]
            if bfs_mark[nb] == stamp:
                continue
            bfs_mark[nb] = stamp
            parent[nb] = z
            if meets_zone(zlo_l[nb], zhi_l[nb], zlo_r[nb], zhi_r[nb], box_hi, a0, a1, b0, b1):
                target = nb
                break
            queue[tail] = nb
            tail += 1
    # walk back from the target, then write the path forwards
    n = 0
    z = target
    while z != start:
        n += 1
        z = parent[z]
    z = target
    for i in range(n - 1, -1, -1):
        hop_from[h + i] = parent[z]
        hop_to[h + i] = z
        z = parent[z]
    return h + n, target
