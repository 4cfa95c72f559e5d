"""Routing of CN message boxes over the zone overlay (Meghdoot/CAN style), in S of any
dimension D (:mod:`cnsim.brokers.zones`).

A message is a box of S, 2D values ``(lo_d, hi_d)`` per dimension (1-d ranges:
``(lO, lI, rI, rO)``, the points ``lO < l <= lI, rI <= r < rO``); which points it holds
in each dimension is the zones' ``lower_open`` rule (:func:`cnsim.brokers.zones.meets`).
From its source zone it travels in two phases:

1. *Greedy*: while the current zone does not meet the box, forward to the neighbour
   whose box is closest (Euclidean, between closed boxes) to the message box. On a
   box tiling some neighbour is always strictly closer until the distance is zero; at
   zero distance a zone may still miss the box (it touches an open side), and then a
   breadth-first search over the overlay finds the nearest meeting zone.
2. *Propagation*: flooding from the first meeting zone over neighbours that meet the
   box, each zone reached once (a breadth-first tree: every reached zone but the first
   is entered by exactly one hop).

The zones that meet a box are connected in the neighbour graph (the box clipped to S
is convex), so propagation reaches all of them.

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

from cnsim.brokers.zones import Zones, meets
from cnsim.errors import InputError


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


def route(zones: Zones, boxes: np.ndarray, src: np.ndarray | int | None = None) -> Routes:
    """Route a batch of message boxes (M, 2D) from ``src`` zones (default: the server's)."""
    q = np.ascontiguousarray(boxes, np.float64).reshape(-1, 2 * zones.dims)
    if np.isnan(q).any():
        raise InputError("message bounds must not be NaN")
    m, z = len(q), zones.n_zones
    if src is None:
        src = zones.server_zone
    src_arr = np.ascontiguousarray(np.broadcast_to(np.asarray(src, np.int64), (m,)), np.int32)
    if m and (src_arr.min() < 0 or src_arr.max() >= z):
        raise InputError(f"source zones must be in 0..{z - 1}")
    hop_ptr = np.zeros(m + 1, np.int64)
    reach_ptr = np.zeros(m + 1, np.int64)
    greedy = np.zeros(m, np.int32)
    cap_h, cap_r = 4 * m + 3 * z, 2 * m + z
    hop_from, hop_to = np.empty(cap_h, np.int32), np.empty(cap_h, np.int32)
    reach = np.empty(cap_r, np.int32)
    scratch = (np.zeros(z, np.int64), np.zeros(z, np.int64), np.empty(z, np.int32),
               np.empty(z, np.int32))  # fmt: skip
    done = 0
    while True:
        done = _route_kernel(
            done, q, src_arr, zones.zlo, zones.zhi, zones.lower_open, zones.lo, zones.hi,
            zones.nbr_ptr, zones.nbr_idx, hop_ptr, hop_from, hop_to, greedy, reach_ptr,
            reach, *scratch,
        )  # fmt: skip
        if done == m:
            break
        hop_from = _grow(hop_from, hop_ptr[done])
        hop_to = _grow(hop_to, hop_ptr[done])
        reach = _grow(reach, reach_ptr[done])
    h, r = hop_ptr[m], reach_ptr[m]
    return Routes(hop_ptr, hop_from[:h].copy(), hop_to[:h].copy(), greedy, reach_ptr,
                  reach[:r].copy())  # fmt: skip


def _grow(buf: np.ndarray, used: int) -> np.ndarray:
    out = np.empty(2 * len(buf), buf.dtype)
    out[:used] = buf[:used]
    return out


@numba.njit(cache=True, inline="always")
def _dist2(zlo, zhi, q):  # pragma: no cover - numba
    # squared distance between the closed zone box and the closed message box
    s = 0.0
    for d in range(len(zlo)):
        g = max(0.0, q[2 * d] - zhi[d], zlo[d] - q[2 * d + 1])
        s += g * g
    return s


@numba.njit(cache=True)
def _route_kernel(m0, q, src, zlo, zhi, lower_open, box_lo, box_hi, nbr_ptr, nbr_idx,
                  hop_ptr, hop_from, hop_to, greedy, reach_ptr, reach,
                  mark, bfs_mark, queue, parent):  # fmt: skip  # pragma: no cover - numba
    n_zones, d = zlo.shape
    whole_lo = np.full(d, box_lo)
    whole_hi = np.full(d, box_hi)
    h = hop_ptr[m0]
    r = reach_ptr[m0]
    for m in range(m0, len(q)):
        if h + 3 * n_zones > len(hop_from) or r + n_zones > len(reach):
            return m
        qm = q[m]
        stamp = m + 1
        if meets(whole_lo, whole_hi, qm, lower_open, box_hi):
            cur = src[m]
            cur_d = _dist2(zlo[cur], zhi[cur], qm)
            h0 = h
            while not meets(zlo[cur], zhi[cur], qm, lower_open, box_hi):
                best, best_d = -1, cur_d
                for p in range(nbr_ptr[cur], nbr_ptr[cur + 1]):
                    nb = nbr_idx[p]
                    dd = _dist2(zlo[nb], zhi[nb], qm)
                    if dd < best_d:
                        best, best_d = nb, dd
                if best < 0:  # breadth-first to the nearest zone meeting the box
                    bfs_mark[cur] = stamp
                    parent[cur] = -1
                    queue[0] = cur
                    head, tail, target = 0, 1, -1
                    while head < tail and target < 0:
                        z = queue[head]
                        head += 1
                        for p in range(nbr_ptr[z], nbr_ptr[z + 1]):
                            nb = nbr_idx[p]
                            if bfs_mark[nb] == stamp:
                                continue
                            bfs_mark[nb] = stamp
                            parent[nb] = z
                            if meets(zlo[nb], zhi[nb], qm, lower_open, box_hi):
                                target = nb
                                break
                            queue[tail] = nb
                            tail += 1
                    n = 0
                    z = target
                    while z != cur:
                        n += 1
                        z = parent[z]
                    z = target
                    for i in range(n - 1, -1, -1):
                        hop_from[h + i] = parent[z]
                        hop_to[h + i] = z
                        z = parent[z]
                    h += n
                    cur = target
                    break
                hop_from[h] = cur
                hop_to[h] = best
                h += 1
                cur, cur_d = best, best_d
            greedy[m] = h - h0
            mark[cur] = stamp
            queue[0] = cur
            head, tail = 0, 1
            reach[r] = cur
            r += 1
            while head < tail:
                z = queue[head]
                head += 1
                for p in range(nbr_ptr[z], nbr_ptr[z + 1]):
                    nb = nbr_idx[p]
                    if mark[nb] != stamp and meets(zlo[nb], zhi[nb], qm, lower_open, box_hi):
                        mark[nb] = stamp
                        queue[tail] = nb
                        tail += 1
                        hop_from[h] = z
                        hop_to[h] = nb
                        h += 1
                        reach[r] = nb
                        r += 1
        hop_ptr[m + 1] = h
        reach_ptr[m + 1] = r
    return len(q)
