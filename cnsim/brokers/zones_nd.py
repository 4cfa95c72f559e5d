"""Meghdoot/CAN zones over a D-dimensional subscription space S, and the routing of
box messages over them — the dimension-generic form of :mod:`cnsim.brokers.zones` and
:mod:`cnsim.brokers.routing` (which carry the 2-d S of 1-d ranges and stay as they are).

S is the cube ``[lo, hi]^D``. It is 3-d for 1.5-d range subscriptions (seed 003
appendix D: a subscription ``[l1, r1] × (−∞, r2]`` is the point ``(l1, r1, r2)``) and
2d-dimensional for d-dimensional boxes (``(l_1, r_1, …, l_d, r_d)``).

Messages. A message is a box given as D pairs ``(lo_d, hi_d)`` (a row of 2D values, in
the column order of the run's messages: 1.5-d ``(lO, lI, rI, rO, vI, vO)``). Each
dimension is of one of two kinds, fixed per space by ``lower_open``:

* a *lower bound* of a subscription (l, l1, l_i): the message holds ``lo < p <= hi``
  (seed 003's ``lO < l <= lI``);
* an *upper bound* (r, r1, r2, r_i): the message holds ``lo <= p < hi``
  (``rI <= r < rO``; appendix D's ``vI <= r2 < vO``).

Zones. A zone is the half-open box ``[zlo_d, zhi_d)`` in every dimension, closed on a
side lying on S's upper face ``hi``. A zone meets a message in dimension d iff

* lower-bound dimension: ``lo < hi``, ``zlo <= hi`` and ``lo < zhi``;
* upper-bound dimension: ``lo < hi``, ``zlo < hi`` and ``lo < zhi`` (``lo <= zhi`` when
  ``zhi`` is S's upper face),

and meets the message iff it meets it in every dimension (:func:`meets`) — for D = 2
exactly :func:`cnsim.subscriptions.space.meets_zone`.

Joins (CAN, as in 2-d). Broker 0 owns S; broker j picks a uniform point of the valid
part of S (the lower bound of each ``ordered`` pair at most its upper bound: l1 <= r1;
the other coordinates uniform), and splits the zone holding it at the midpoint of its
longest side (the lowest dimension on ties, so zones halved from a cube cycle through
the dimensions: l1, r1, r2, l1, … — CAN's split order), taking the half holding the
point. With D = 2 and one ordered pair this draws exactly the zones of
:func:`cnsim.brokers.zones.build_zones` (``mode="random"``) from the same generator.

Neighbours share a face of positive (D−1)-measure. Routing is that of 2-d: greedy
towards the message box (Euclidean distance between closed boxes) with a breadth-first
fallback, then breadth-first propagation over neighbours meeting the box; the zones
meeting a box are connected (the box clipped to S is convex), so every one is reached.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from cnsim.brokers.routing import Routes
from cnsim.errors import InputError


@dataclass(frozen=True)
class BoxZones:
    """A tiling of S = [lo, hi]^D by broker zones: columnar boxes, owners, neighbours
    and the split tree (the interface of :class:`cnsim.brokers.zones.Zones` that the
    Meghdoot network reads: ``owner``, ``n_zones``, ``server_zone``, ``server``)."""

    lo: float
    hi: float
    zlo: np.ndarray  # float64 (Z, D)
    zhi: np.ndarray  # float64 (Z, D)
    lower_open: np.ndarray  # bool (D,): messages hold (lo, hi] in this dimension
    owner: np.ndarray  # int32 (Z,)
    nbr_ptr: np.ndarray  # int64 (Z + 1,)
    nbr_idx: np.ndarray  # int32
    node_dim: np.ndarray  # int8 (T,): split dimension, -1 at leaves
    node_val: np.ndarray  # float64 (T,): coordinates >= val go right
    node_left: np.ndarray  # int32 (T,)
    node_right: np.ndarray  # int32 (T,)
    node_zone: np.ndarray  # int32 (T,): zone of a leaf, -1 for inner nodes
    server_zone: int  # zone holding the centre of S

    @property
    def n_zones(self) -> int:
        """Number of zones (= brokers)."""
        return len(self.zlo)

    @property
    def dims(self) -> int:
        """D, the dimensions of S."""
        return self.zlo.shape[1]

    @property
    def server(self) -> int:
        """Broker acting as the server (owner of the zone at the centre of S)."""
        return int(self.owner[self.server_zone])

    def zone_of(self, points: np.ndarray) -> np.ndarray:
        """Zone (int32) holding each point, a row of ``points`` (N, D)."""
        p = np.ascontiguousarray(points, np.float64).reshape(-1, self.dims)
        bad = ~((p >= self.lo) & (p <= self.hi)).all(axis=1)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            where = f"[{self.lo}, {self.hi}]^{self.dims}"
            raise InputError(f"point {tuple(p[i])!r} lies outside S = {where}")
        t = self
        return _locate(p, t.node_dim, t.node_val, t.node_left, t.node_right, t.node_zone)

    def neighbours(self, zone: int) -> np.ndarray:
        """Zones sharing a face of positive measure with ``zone``."""
        return self.nbr_idx[self.nbr_ptr[zone] : self.nbr_ptr[zone + 1]]

    def volumes(self) -> np.ndarray:
        """Volume of every zone."""
        return np.prod(self.zhi - self.zlo, axis=1)

    def meeting(self, box) -> np.ndarray:
        """Mask of the zones meeting message ``box`` (2D values), by brute force."""
        q = np.ascontiguousarray(box, np.float64)
        return np.array([
            meets(self.zlo[z], self.zhi[z], q, self.lower_open, self.hi)
            for z in range(self.n_zones)
        ], dtype=bool)  # fmt: skip


@numba.njit(cache=True, inline="always")
def meets(zlo, zhi, q, lower_open, box_hi) -> bool:
    """Whether the half-open zone ``[zlo, zhi)`` (closed on S's upper face ``box_hi``)
    shares a point with message box ``q`` (pairs ``(lo_d, hi_d)``, see the module
    docstring)."""
    for d in range(len(zlo)):
        lo, hi = q[2 * d], q[2 * d + 1]
        if not lo < hi:
            return False
        if lower_open[d]:
            if not (zlo[d] <= hi and lo < zhi[d]):
                return False
        elif not (zlo[d] < hi and (lo < zhi[d] or (zhi[d] == box_hi and lo <= zhi[d]))):
            return False
    return True


def build_box_zones(
    n_zones: int,
    lower_open,
    ordered: tuple[tuple[int, int], ...] = (),
    seed: int | np.random.Generator = 0,
    lo: float = 0.0,
    hi: float = 1.0,
) -> BoxZones:
    """Zones of ``n_zones`` brokers joining one after another over ``[lo, hi]^D``,
    ``D = len(lower_open)``; ``ordered`` lists the (lower, upper) dimension pairs whose
    points satisfy lower <= upper (see the module docstring)."""
    lower_open = np.asarray(lower_open, np.bool_)
    d = len(lower_open)
    if isinstance(n_zones, bool) or not isinstance(n_zones, int | np.integer) or n_zones < 1:
        raise InputError(f"zones.n_zones = {n_zones!r}: must be an integer >= 1")
    if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi):
        raise InputError(f"zones.domain = ({lo!r}, {hi!r}): must be finite with lo < hi")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    box = np.empty((n_zones, 2 * d))
    box[0, 0::2], box[0, 1::2] = lo, hi
    n_nodes = 2 * n_zones - 1
    dim = np.full(n_nodes, -1, np.int8)
    val = np.zeros(n_nodes)
    left = np.full(n_nodes, -1, np.int32)
    right = np.full(n_nodes, -1, np.int32)
    zone = np.full(n_nodes, -1, np.int32)
    zone[0] = 0
    leaf = np.zeros(n_zones, np.int32)
    u = lo + (hi - lo) * rng.random((n_zones - 1, d))
    for a, b in ordered:  # min/max of two uniforms is uniform on the half a <= b
        u[:, a], u[:, b] = np.minimum(u[:, a], u[:, b]), np.maximum(u[:, a], u[:, b])
    used = 1
    for j in range(n_zones - 1):
        node = 0
        while dim[node] >= 0:
            node = right[node] if u[j, dim[node]] >= val[node] else left[node]
        z = int(zone[node])
        sides = box[z, 1::2] - box[z, 0::2]
        s = int(np.argmax(sides))  # the first longest side
        cut = 0.5 * (box[z, 2 * s] + box[z, 2 * s + 1])
        if not box[z, 2 * s] < cut < box[z, 2 * s + 1]:
            raise InputError(f"zones.n_zones = {n_zones}: zones became too thin to split")
        new = j + 1
        high_new = u[j, s] >= cut
        low_zone, high_zone = (z, new) if high_new else (new, z)
        low, high = box[z].copy(), box[z].copy()
        low[2 * s + 1], high[2 * s] = cut, cut
        box[low_zone], box[high_zone] = low, high
        kids = (used, used + 1)
        used += 2
        dim[node], val[node], zone[node] = s, cut, -1
        left[node], right[node] = kids
        for kid, zz in zip(kids, (low_zone, high_zone), strict=True):
            zone[kid] = zz
            leaf[zz] = kid
    zlo, zhi = np.ascontiguousarray(box[:, 0::2]), np.ascontiguousarray(box[:, 1::2])
    ptr, idx = _neighbour_table(zlo, zhi)
    centre = np.full((1, d), (lo + hi) / 2)
    server = int(_locate(centre, dim, val, left, right, zone)[0])
    arrays = [zlo, zhi, lower_open, np.arange(n_zones, dtype=np.int32), ptr, idx,
              dim, val, left, right, zone]  # fmt: skip
    for arr in arrays:
        arr.setflags(write=False)
    return BoxZones(lo, hi, *arrays, server_zone=server)


@numba.njit(cache=True)
def _locate(p, dim, val, left, right, zone):  # pragma: no cover - numba
    out = np.empty(len(p), np.int32)
    for i in range(len(p)):
        node = 0
        while dim[node] >= 0:
            node = right[node] if p[i, dim[node]] >= val[node] else left[node]
        out[i] = zone[node]
    return out


@numba.njit(cache=True)
def _neighbour_table(zlo, zhi):  # pragma: no cover - numba
    """CSR neighbour lists: zones touching in one dimension and overlapping with
    positive length in every other (sorted within each zone). O(Z² D): built once."""
    z, d = zlo.shape
    count = np.zeros(z + 1, np.int64)
    for pass_ in range(2):
        if pass_ == 1:
            for i in range(z):
                count[i + 1] += count[i]
            idx = np.empty(count[z], np.int32)
            fill = count[:z].copy()
        for i in range(z):
            for j in range(z):
                if i == j:
                    continue
                touch = 0
                ok = True
                for e in range(d):
                    if zhi[i, e] == zlo[j, e] or zhi[j, e] == zlo[i, e]:
                        touch += 1
                    elif not (zlo[i, e] < zhi[j, e] and zlo[j, e] < zhi[i, e]):
                        ok = False
                        break
                if ok and touch == 1:
                    if pass_ == 0:
                        count[i + 1] += 1
                    else:
                        idx[fill[i]] = j
                        fill[i] += 1
    return count, idx


def route_boxes(zones: BoxZones, boxes: np.ndarray, src: np.ndarray | int | None = None) -> Routes:
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
