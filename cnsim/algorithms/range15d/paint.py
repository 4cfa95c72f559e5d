"""Paint-Dense and Paint-Sparse for 1.5-d range subscriptions (seed 003 appendix D,
Algorithms 6–11, rebuilt from the geometry; see :mod:`cnsim.algorithms.range15d`).

Slabs. The influence region IR(i) of object ``i = (a_i, b_i)`` at height z is kept
as a list of *slabs*: slab t covers the r2-values ``[u_t, u_{t+1})`` (``u_0 = b_i``,
the last one open upward) and holds the lists ``(L_t, R_t)`` of the active objects
(below z) with ``x2 <= u_t`` that decide its 1-d staircase
(:mod:`cnsim.algorithms.range15d.regions`). The slabs are the discretised x2-axis
of appendix D-A; the union of ``II_t × [u_t, u_{t+1})`` (slab 0 reaching down to
``x2 = -inf``) is the *influence rectilinear polygon* in E (Figure 21).

* Algorithm 7 (ComputeInfluenceRectilinearPolygon): ``first_k`` west and east of
  ``(a_i, b_i)`` give slab 0; then ``min_x2`` over the top slab's influence interval
  finds the next active object the sweep plane meets; it is added (Algorithm 6,
  UpdateList) to a new slab starting at its x2 (to the top slab if it has the same
  x2). The sweep ends when no active object is left in the interval.
* Rank-raising (Algorithm 11 lines 2–7): notify IR_new(i) with i's new value, each
  slab's staircase as boxes, a rectangle repeated by consecutive slabs merged into
  one box (Algorithm 10, Merge).
* Rank-lowering (lines 8–46): notify IR_old(i) with i's new value, then sweep i's
  height from y_old to y_new. The next exposed object is the lowest (in (y, id))
  of one ``min_y`` per polygon rectangle ``II_t × [u_t, u_{t+1})`` above the sweep;
  answers are kept per slab and asked again only when the slab's rectangle lost
  them (lines 35–37, "we store the other retrieved objects"). The exposed object h
  joins every slab from the one holding ``x2_h`` (split at ``x2_h`` if it falls
  inside it) upward while ``a_h`` stays inside the slab's influence interval (the
  plane sweeps "from x2_h to q", Figure 25); each such slab's gain is the staircase
  difference (a diagonal chain, Lemma 3), sent with h's values and merged across
  slabs. Neighbouring slabs left with equal lists are merged (lines 38–43).

Paint-Sparse additionally (§III-B, appendix D-B "we can skip all inessential
exposed objects by shrinking the rectangles with the knowledge of subscriptions"):
snaps every box and greedily merges neighbours whose enclosing box reaches no
extra subscription; and searches polygon rectangle t only within
``[l*, r*] × (-inf, v*]``, where l*, r*, v* are the least l1, the greatest r1 and
the greatest r2 of the subscriptions inside IR*(i) in slabs t and above (an
object outside reaches none of them, so it is inessential: the regions computed
without it differ from the true ones only where no subscription lies). The sweep
ends when IR*(i) holds no subscription. Each slab remembers the rectangles snapped
empty during the update (a part of an empty box is empty): their gains are not
snapped or sent, and they are not snapped again. ``bounds`` says when a slab's
(l*, r*, v*) is snapped again after it changed: ``tight`` (default) at once,
``lazy`` only when its rectangle needs a new ``min_y`` (older bounds still bound
a subset: fewer snaps, more ``min_y``).

Counting (seed 003 §V, Tables VII–VIII): ``first_k``, ``min_y``, ``min_x2`` per
call; ``snap`` once per distinct box per update.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from cnsim.algorithms.messages import Messages
from cnsim.algorithms.range15d import regions
from cnsim.algorithms.regions import greedy_merge
from cnsim.server.object_index_2d import EAST, WEST, CallCounter2D, ObjectIndex2D
from cnsim.subscriptions.index import SubscriptionIndex3D, closed_box_15d

INF = math.inf
AFTER_ALL = 2**62  # an id above every id: "after every object at this x2"
BOUNDS = ("tight", "lazy")  # how Paint-Sparse keeps the slabs' subscription bounds
# A 1.5-d CN message: a 3-d box (six values) and the object (x1, x2, y), 4 bytes each.
MESSAGE_BYTES = 36


@dataclass(frozen=True)
class Messages15:
    """The messages one approach sends for one event, in send order."""

    boxes: np.ndarray  # (M, 6) float64: lO, lI, rI, rO, vI, vO
    obj: np.ndarray  # (M,) int64 object ids
    x1: np.ndarray
    x2: np.ndarray
    y: np.ndarray  # (M,) the y carried (inf: the object is gone)

    def __len__(self) -> int:
        return len(self.obj)

    def as_messages(self) -> Messages:
        """In the run's columnar form (6-column boxes; x is x1)."""
        return Messages(self.boxes, self.obj, self.x1, self.y)


class Writer15:
    """Collects messages, then freezes them into :class:`Messages15`."""

    def __init__(self) -> None:
        self.boxes: list[tuple] = []
        self.objects: list[tuple] = []

    def send(self, boxes: list[tuple], obj: int, x1: float, x2: float, y: float) -> None:
        """Send ``(obj, x1, x2, y)`` to each box of ``boxes``."""
        self.boxes.extend(boxes)
        self.objects.extend([(obj, x1, x2, y)] * len(boxes))

    def freeze(self) -> Messages15:
        """The messages sent so far."""
        if not self.objects:
            e = np.empty(0)
            return Messages15(np.empty((0, 6)), np.empty(0, np.int64), e, e.copy(), e.copy())
        obj, x1, x2, y = zip(*self.objects, strict=True)
        return Messages15(
            np.array(self.boxes, np.float64).reshape(-1, 6),
            np.array(obj, np.int64),
            np.array(x1, np.float64),
            np.array(x2, np.float64),
            np.array(y, np.float64),
        )


@dataclass
class Slab:
    """One slab ``[u, next.u)`` of r2 with the lists deciding its staircase."""

    u: float
    L: tuple
    R: tuple
    cand: int | None = None  # lowest object above the sweep in its polygon rectangle; -1 none
    subs: tuple | None = field(default=None)  # Paint-Sparse: (count, l_min, r_max, v_max)
    fresh: bool = False  # whether ``subs`` describes the slab's current staircase
    empty: list = field(default_factory=list)  # Paint-Sparse: rectangles snapped empty here


def _open(lo: float, hi: float) -> tuple[float, float]:
    # The closed range of the open interval (lo, hi) (its ends cannot change anything).
    return math.nextafter(lo, INF), math.nextafter(hi, -INF)


class PaintDense15:
    """Paint-Dense for 1.5-d range subscriptions over its own object index."""

    family = "paint-dense"

    def __init__(self, objects: ObjectIndex2D, k: int):
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        self.objects = objects
        self.counter: CallCounter2D = objects.counter
        self.k = k

    # -- events -----------------------------------------------------------------------------
    def process(self, obj: np.ndarray, y_new: np.ndarray) -> Messages15:
        """Apply the updates ``obj[t] -> y_new[t]`` one at a time with their messages."""
        out = Writer15()
        for i, y in zip(np.asarray(obj).tolist(), np.asarray(y_new, np.float64).tolist(),
                        strict=True):  # fmt: skip
            y_old = float(self.objects.y[i])
            self.objects.update(i, y)
            self.notify(out, i, y_old, y)
        return out.freeze()

    def insert(self, x1: float, x2: float, y: float) -> tuple[int, Messages15]:
        """Insert a new object at ``(x1, x2)``: ``Upd(inf -> y)`` (§II-A footnote 4).
        Returns its id and the messages."""
        i = self.objects.insert(x1, x2, np.inf)
        return i, self.process(np.array([i]), np.array([y]))

    def notify(self, out: Writer15, i: int, y_old: float, y_new: float) -> None:
        """Messages for ``Upd(i, y_old -> y_new)``; the index already holds ``y_new``."""
        self._begin()
        if y_new < y_old:
            slabs = self.polygon(i, y_new)
            self.emit(out, regions.stack(self.pieces(i, slabs)), i, y_new)
        elif y_new > y_old:
            self.rank_lowering(out, i, y_old, y_new)

    def _begin(self) -> None:
        """Per-update state (Paint-Sparse's snap answers)."""

    # -- Algorithm 7: the influence rectilinear polygon -------------------------------------
    def polygon(self, i: int, z: float) -> list[Slab]:
        """The slabs of IR(i) with i at height ``(z, i)``."""
        ob, k = self.objects, self.k
        a, b = float(ob.x1[i]), float(ob.x2[i])
        L = tuple(ob.first_k(a, b, z, i, WEST, k).tolist())
        R = tuple(ob.first_k(a, b, z, i, EAST, k).tolist())
        slabs = [Slab(b, L, R)]
        plane_b, plane_id = b, AFTER_ALL
        while True:
            top = slabs[-1]
            ii = regions.interval(a, top.L, top.R, k)
            if ii is None:
                break
            h = ob.min_x2(*_open(*ii), plane_b, plane_id, z, i)
            if h < 0:
                break
            b_h = float(ob.x2[h])
            L2, R2 = regions.add(a, top.L, top.R, float(ob.x1[h]), k)
            if b_h == top.u:
                top.L, top.R = L2, R2
            else:
                slabs.append(Slab(b_h, L2, R2))
            plane_b, plane_id = b_h, h
        return slabs

    def pieces(self, i: int, slabs: list[Slab]) -> list[tuple]:
        """Each slab's staircase, ``(vI, vO, rectangles)``, upward."""
        a = float(self.objects.x1[i])
        return [
            (s.u, _top(slabs, t), regions.staircase(a, s.L, s.R, self.k))
            for t, s in enumerate(slabs)
        ]

    # -- Algorithm 11, rank-lowering ---------------------------------------------------------
    def rank_lowering(self, out: Writer15, i: int, y_old: float, y_new: float) -> None:
        """Notify IR_old(i) with i's new value, then sweep i up and send each exposed
        object to what it gains."""
        ob = self.objects
        slabs = self.polygon(i, y_old)
        boxes = regions.stack(self.pieces(i, slabs))
        self.emit(out, boxes, i, y_new)
        self.learn(slabs, boxes)
        z = (y_old, i)
        while True:
            h = self.next_exposed(i, slabs, z)
            if h < 0 or (float(ob.y[h]), h) >= (y_new, i):
                break
            self.expose(out, i, slabs, h)
            z = (float(ob.y[h]), h)

    def next_exposed(self, i: int, slabs: list[Slab], z: tuple[float, int]) -> int:
        """The lowest object above the sweep over all polygon rectangles, or -1."""
        ob = self.objects
        best, best_key = -1, (INF, AFTER_ALL)
        for t, s in enumerate(slabs):
            rect = self.search_rect(i, slabs, t)
            if rect is None:
                s.cand = -1
                continue
            if s.cand is None or (s.cand >= 0 and not _inside(ob, s.cand, rect)):
                s.cand = ob.min_y(*rect, *z)
            if s.cand >= 0:
                key = (float(ob.y[s.cand]), s.cand)
                if key < best_key:
                    best, best_key = s.cand, key
        return best

    def search_rect(self, i: int, slabs: list[Slab], t: int) -> tuple | None:
        """Polygon rectangle t as a closed box ``(a_lo, a_hi, b_lo, b_hi)`` of E, or None."""
        a = float(self.objects.x1[i])
        s = slabs[t]
        ii = regions.interval(a, s.L, s.R, self.k)
        if ii is None:
            return None
        a_lo, a_hi = _open(*ii)
        b_lo = -INF if t == 0 else s.u
        b_hi = math.nextafter(_top(slabs, t), -INF)
        return a_lo, a_hi, b_lo, b_hi

    def expose(self, out: Writer15, i: int, slabs: list[Slab], h: int) -> None:
        """Exposed object h drops below the sweep: send it to its gain, update the slabs."""
        ob, k = self.objects, self.k
        a = float(ob.x1[i])
        a_h, b_h = float(ob.x1[h]), float(ob.x2[h])
        t0 = 0
        while t0 + 1 < len(slabs) and slabs[t0 + 1].u <= b_h:
            t0 += 1
        if b_h > slabs[t0].u:  # h enters the middle of slab t0: split it at b_h
            s = slabs[t0]
            # stale bounds stay valid bounds, and what was empty stays empty
            upper = Slab(b_h, s.L, s.R, subs=s.subs, empty=list(s.empty))
            if s.cand is not None and s.cand >= 0 and float(ob.x2[s.cand]) >= b_h:
                upper.cand, s.cand = s.cand, None
            elif s.cand is not None and s.cand >= 0:
                upper.cand = None
            else:
                upper.cand = s.cand
            s.fresh = False
            slabs.insert(t0 + 1, upper)
            t0 += 1
        pieces = []
        t = t0
        while t < len(slabs):
            s = slabs[t]
            ii = regions.interval(a, s.L, s.R, k)
            if ii is None or not ii[0] < a_h < ii[1]:
                break  # the intervals shrink upward: h changes no slab above either
            old = regions.strips(a, s.L, s.R, k)
            s.L, s.R = regions.add(a, s.L, s.R, a_h, k)
            new = regions.strips(a, s.L, s.R, k)
            gain = regions.difference(a, old, new)
            pieces.append((s.u, _top(slabs, t), self.keep(s, gain)))
            s.fresh = False
            t += 1
        for s in slabs:
            if s.cand == h:
                s.cand = None
        self._merge_equal(a, slabs, max(t0 - 1, 0), t + 1)
        self.emit(out, regions.stack(pieces), h, float(ob.y[h]))

    def keep(self, slab: Slab, gain: list) -> list:
        """The part of a slab's gain worth sending (Paint-Dense: all of it)."""
        return gain

    def learn(self, slabs: list[Slab], boxes: list[tuple]) -> None:
        """What sending IR_old(i) told about the slabs (Paint-Dense: nothing)."""

    def _merge_equal(self, a: float, slabs: list[Slab], lo: int, hi: int) -> None:
        # Neighbours with equal lists are one slab (Algorithm 11 lines 38-43).
        ob = self.objects
        t = max(lo, 0)
        while t + 1 < min(hi, len(slabs)):
            s, n = slabs[t], slabs[t + 1]
            if regions.key(a, s.L, s.R, self.k) != regions.key(a, n.L, n.R, self.k):
                t += 1
                continue
            if s.cand is None or n.cand is None:
                s.cand = None
            elif s.cand < 0 or n.cand < 0:
                s.cand = max(s.cand, n.cand)
            else:
                ks = (float(ob.y[s.cand]), s.cand)
                kn = (float(ob.y[n.cand]), n.cand)
                s.cand = s.cand if ks < kn else n.cand
            s.subs = _combine(s.subs, n.subs) if s.subs and n.subs else None
            s.empty = [e for e in s.empty if e in n.empty]
            s.fresh = False
            del slabs[t + 1]
            hi -= 1

    def emit(self, out: Writer15, boxes: list[tuple], obj: int, y: float) -> None:
        """Send ``(obj, y)`` to the region tiled by ``boxes``."""
        ob = self.objects
        out.send(boxes, obj, float(ob.x1[obj]), float(ob.x2[obj]), y)


def _top(slabs: list[Slab], t: int) -> float:
    return slabs[t + 1].u if t + 1 < len(slabs) else INF


def _combine(a: tuple, b: tuple) -> tuple:
    return a[0] + b[0], min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])


def _known_empty(slab: Slab, rect: tuple) -> bool:
    # Whether rect lies in a rectangle snapped empty over (a v-range holding) the slab.
    return any(
        e[0] <= rect[0] and rect[1] <= e[1] and e[2] <= rect[2] and rect[3] <= e[3]
        for e in slab.empty
    )


def _inside(ob: ObjectIndex2D, h: int, rect: tuple) -> bool:
    return rect[0] <= ob.x1[h] <= rect[1] and rect[2] <= ob.x2[h] <= rect[3]


class PaintSparse15(PaintDense15):
    """Paint-Sparse for 1.5-d range subscriptions: Paint-Dense's boxes snapped to the
    subscriptions and greedily merged; inessential exposed objects skipped."""

    family = "paint-sparse"

    def __init__(
        self,
        objects: ObjectIndex2D,
        subscriptions: SubscriptionIndex3D,
        k: int,
        bounds: str = "tight",
    ):
        super().__init__(objects, k)
        if bounds not in BOUNDS:
            raise ValueError(f"bounds must be one of {', '.join(BOUNDS)}, got {bounds!r}")
        self.subscriptions = subscriptions
        self.bounds = bounds
        self._snaps: dict[tuple, tuple] = {}
        self._suffix: list[tuple] = []

    def _begin(self) -> None:
        self._snaps = {}

    def snap(self, box: tuple) -> tuple:
        """The subscription index's ``snap``, counted once per distinct box per update."""
        answer = self._snaps.get(box)
        if answer is None:
            self.counter.snap += 1
            answer = self._snaps[box] = self.subscriptions.snap(box)
        return answer

    def slab_subs(self, i: int, slabs: list[Slab], t: int, refresh: bool = True) -> tuple:
        """``(count, l_min, r_max, v_max)`` of the subscriptions in IR*(i) ∩ slab t, or
        (``refresh`` False) of a region holding it, kept from an earlier staircase."""
        s = slabs[t]
        if s.subs is None or (refresh and not s.fresh):
            a = float(self.objects.x1[i])
            acc = [0, INF, -INF, -INF]
            for rect in regions.staircase(a, s.L, s.R, self.k):
                if _known_empty(s, rect):
                    continue
                c, l_min, _, _, r_max, _, v_max = self.snap((*rect, s.u, _top(slabs, t)))
                if c:
                    acc = [acc[0] + c, min(acc[1], l_min), max(acc[2], r_max),
                           max(acc[3], v_max)]  # fmt: skip
                else:
                    s.empty.append(rect)
            s.subs = tuple(acc)
            s.fresh = True
        return s.subs

    def next_exposed(self, i: int, slabs: list[Slab], z: tuple[float, int]) -> int:
        # Suffix aggregates of the slabs' subscriptions bound each polygon rectangle.
        # "tight": every changed slab is snapped again; "lazy": a slab is snapped again
        # only when its rectangle needs a new min_y (older bounds hold a superset).
        lazy = self.bounds == "lazy"
        self._suffixes(i, slabs, refresh=not lazy)
        if lazy:
            ob = self.objects
            asks = [
                t
                for t, s in enumerate(slabs)
                if not s.fresh
                and (rect := self.search_rect(i, slabs, t)) is not None
                and (s.cand is None or (s.cand >= 0 and not _inside(ob, s.cand, rect)))
            ]
            if asks:
                for t in asks:
                    self.slab_subs(i, slabs, t)
                self._suffixes(i, slabs, refresh=False)
        return super().next_exposed(i, slabs, z)

    def _suffixes(self, i: int, slabs: list[Slab], refresh: bool) -> None:
        suffix: list[tuple] = [()] * len(slabs)
        acc = (0, INF, -INF, -INF)
        for t in range(len(slabs) - 1, -1, -1):
            acc = _combine(acc, self.slab_subs(i, slabs, t, refresh))
            suffix[t] = acc
        self._suffix = suffix

    def search_rect(self, i: int, slabs: list[Slab], t: int) -> tuple | None:
        rect = super().search_rect(i, slabs, t)
        count, l_min, r_max, v_max = self._suffix[t]
        if rect is None or count == 0:
            return None
        a_lo, a_hi = max(rect[0], l_min), min(rect[1], r_max)
        b_lo, b_hi = rect[2], min(rect[3], v_max)
        if a_lo > a_hi or b_lo > b_hi:
            return None
        return a_lo, a_hi, b_lo, b_hi

    def learn(self, slabs: list[Slab], boxes: list[tuple]) -> None:
        """A box of IR_old(i) snapped empty is an empty rectangle of every slab it spans."""
        for box in boxes:
            if self._snaps[box][0] == 0:
                for s in slabs:
                    if box[4] <= s.u < box[5]:
                        s.empty.append(box[:4])

    def keep(self, slab: Slab, gain: list) -> list:
        """Drop the gained rectangles inside a rectangle already snapped empty in this
        slab (or a slab it was split from) in this update: they reach nobody."""
        return [p for p in gain if not _known_empty(slab, p)]

    def emit(self, out: Writer15, boxes: list[tuple], obj: int, y: float) -> None:
        snapped = []
        for box in boxes:
            c, *bounds = self.snap(box)
            if c:
                snapped.append((closed_box_15d(*bounds), c))
        super().emit(out, greedy_merge(snapped, lambda box: self.snap(box)[0]), obj, y)
