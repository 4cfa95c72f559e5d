"""Paint-Dense and Paint-Sparse for d-dimensional box subscriptions (seed 003 §IV-C;
the design and its proof of exactness are in :mod:`cnsim.algorithms.boxes`).

Per update ``Upd(i, y_old -> y_new)`` (the index already holds ``y_new``):

* rank-raising (``y_new < y_old``; an insert is ``inf -> y``): P = the k-skyband of
  the objects below ``(y_new, i)`` w.r.t. x_i; send ``(i, y_new)`` to IR_new(i), the
  grid cells with ``N(c) <= k - 1``.
* rank-lowering (``y_new > y_old``; a delete is ``y -> inf``): P = the k-skyband
  below ``(y_old, i)``; send ``(i, y_new)`` to IR_old(i); then sweep i's height up
  through the objects strictly between ``(y_old, i)`` and ``(y_new, i)`` in (y, id)
  order. An object h whose MEB with x_i holds fewer than k objects of P is
  *exposed*: send ``(h, y_h)`` to its gain, the cells ``c >= ρ_h`` with
  ``N(c) = k - 1`` on the grid of P ∪ {h}; then P becomes the skyband of P ∪ {h}.
  Objects not exposed are dominated by k objects below them and change nothing.

Paint-Sparse (§III-B generalised) computes the same regions but does not partition
a sub-box that snaps empty (one ``snap`` per slab visited, asked inside the numba
partition kernel), nor a region whose whole box snaps empty; its sweep examines
only the objects inside the bounding box of the subscriptions that hold i (the 1-d
search range ``[l*, r*]`` generalised; proof in :class:`PaintSparseBoxes`); it
shrinks every box to the closed box of its subscriptions and greedily merges a box
into the previous one when their enclosing box holds exactly the subscriptions of
the two: every message it sends reaches a subscription, and each subscription it
reaches hears what Paint-Dense would send it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cnsim.algorithms.boxes import regions
from cnsim.algorithms.messages import Messages
from cnsim.algorithms.regions import greedy_merge
from cnsim.errors import InputError
from cnsim.server.object_index_d import CallCounterD, ObjectIndexD
from cnsim.subscriptions.space_boxes import BoxSubscriptions, closed_box


@dataclass(frozen=True)
class MessagesD:
    """The messages one approach sends for one event, in send order."""

    boxes: np.ndarray  # (M, 4d): per dimension lO, lI, rI, rO
    obj: np.ndarray  # (M,) int64
    x: np.ndarray  # (M, d)
    y: np.ndarray  # (M,) the y carried (inf: the object is gone)

    def __len__(self) -> int:
        return len(self.obj)

    def as_messages(self) -> Messages:
        """In the run's columnar form (4d-column boxes; x is x_1)."""
        return Messages(self.boxes, self.obj, np.ascontiguousarray(self.x[:, 0]), self.y)


class _Writer:
    def __init__(self, d: int):
        self.d = d
        self.parts: list[tuple] = []

    def send(self, boxes: np.ndarray, obj: int, x: np.ndarray, y: float) -> None:
        if len(boxes):
            self.parts.append((boxes, obj, x, y))

    def freeze(self) -> MessagesD:
        d = self.d
        if not self.parts:
            return MessagesD(np.empty((0, 4 * d)), np.empty(0, np.int64), np.empty((0, d)),
                             np.empty(0))  # fmt: skip
        sizes = [len(b) for b, *_ in self.parts]
        return MessagesD(
            np.concatenate([b for b, *_ in self.parts]),
            np.repeat(np.array([o for _, o, _, _ in self.parts], np.int64), sizes),
            np.repeat(np.array([x for *_, x, _ in self.parts]).reshape(-1, d), sizes, axis=0),
            np.repeat(np.array([y for *_, y in self.parts], np.float64), sizes),
        )


class PaintDenseBoxes:
    """Paint-Dense for d-dimensional box subscriptions over its own object index.

    ``budget`` bounds the slabs the partitions of one event may visit together (None:
    no bound); past it :class:`cnsim.algorithms.boxes.regions.RegionTooLarge` is
    raised — the bench's way of censoring events whose regions are too large to
    enumerate.
    ``engine`` picks the partition: ``"numba"`` (default) or the ``"python"``
    reference (same boxes, same order; kept to measure the port against)."""

    family = "paint-dense"

    def __init__(self, objects: ObjectIndexD, k: int, budget: int | None = None,
                 engine: str = "numba"):  # fmt: skip
        if not isinstance(k, int | np.integer) or k < 1:
            raise InputError(f"k must be an integer >= 1, got {k!r}")
        if engine not in regions.ENGINES:
            raise InputError(f"engine must be one of {regions.ENGINES}, got {engine!r}")
        self.engine = engine
        self.objects = objects
        self.counter: CallCounterD = objects.counter
        self.k = int(k)
        self.d = objects.d
        self.budget = budget
        self._slabs = 0

    def process(self, obj: np.ndarray, y_new: np.ndarray) -> MessagesD:
        """Apply the updates ``obj[t] -> y_new[t]`` one at a time with their messages."""
        out = _Writer(self.d)
        for i, y in zip(np.asarray(obj).tolist(), np.asarray(y_new, np.float64).tolist(),
                        strict=True):  # fmt: skip
            if not 0 <= i < len(self.objects):
                last = len(self.objects) - 1
                raise InputError(f"object id {i} does not exist (ids are 0..{last})")
            y_old = float(self.objects.y[i])
            self.objects.update(i, y)
            self.notify(out, i, y_old, y)
        return out.freeze()

    def notify(self, out: _Writer, i: int, y_old: float, y_new: float) -> None:
        """Messages for ``Upd(i, y_old -> y_new)``; the index already holds ``y_new``."""
        ob, k = self.objects, self.k
        x_i = ob.x[i]
        self._slabs = 0  # visited by this event's partitions
        self._begin()
        if y_new < y_old:
            P = ob.skyband(x_i, y_new, i, k, skip=i)
            self.emit(out, self.region(x_i, P, 0, k - 1), i, y_new)
        elif y_new > y_old:
            P = ob.skyband(x_i, y_old, i, k, skip=i)
            self.emit(out, self.region(x_i, P, 0, k - 1), i, y_new)
            order = self._relevant(ob.sweep_order(y_old, i, y_new, i))
            pos = 0
            while True:
                pos = ob.first_exposed(order, pos, x_i, P, k)
                if pos >= len(order):
                    break
                h = int(order[pos])
                self.emit(out, self.region(x_i, P, k - 1, k - 1, h), h, float(ob.y[h]))
                P = ob.reduce(x_i, np.append(P, h), k)
                pos += 1

    def region(self, x_i: np.ndarray, P: np.ndarray, lo: int, hi: int, h: int = -1) -> np.ndarray:
        """Message boxes of the cells with ``lo <= N(c) <= hi`` on the grid of P (and
        ``c >= ρ_h`` on the grid of P ∪ {h} when ``h >= 0``)."""
        xs = self.objects.x[P] if h < 0 else np.vstack([self.objects.x[P], self.objects.x[h]])
        grid = regions.Grid(x_i, xs)
        ranks = grid.ranks[: len(P)]
        start = grid.ranks[-1] if h >= 0 else None
        if not self._worth(grid, start):
            return np.empty((0, 4 * self.d))
        left = None if self.budget is None else self.budget - self._slabs
        try:
            cells, work = regions.partition_work(ranks, grid.cap, lo, hi, start,
                                                 self._keep(grid), left, self.engine)  # fmt: skip
        except regions.RegionTooLarge:
            raise regions.RegionTooLarge(
                f"the event's partitions needed more than {self.budget} slabs"
            ) from None
        self._slabs += work
        return grid.to_boxes(cells)

    # -- hooks Paint-Sparse overrides -----------------------------------------------------
    def _begin(self) -> None:
        """Per-update state."""

    def _relevant(self, order: np.ndarray) -> np.ndarray:
        """The objects of the sweep to examine (Paint-Dense: all)."""
        return order

    def _worth(self, grid: regions.Grid, start: np.ndarray | None) -> bool:
        """Whether to partition a region at all (Paint-Dense: always)."""
        return True

    def _keep(self, grid: regions.Grid):
        """Which sub-boxes to partition (Paint-Dense: all)."""
        return None

    def emit(self, out: _Writer, boxes: np.ndarray, obj: int, y: float) -> None:
        """Send ``(obj, y)`` to the region tiled by ``boxes``."""
        out.send(boxes, obj, self.objects.x[obj].copy(), y)


class PaintSparseBoxes(PaintDenseBoxes):
    """Paint-Sparse for d-dimensional box subscriptions: Paint-Dense's partition pruned
    where it holds no subscription, boxes snapped and greedily merged.

    ``engine="numba"`` (default) runs the pruned partition as a numba kernel that asks
    the subscription k-d tree for every slab itself
    (:func:`cnsim.algorithms.boxes._partition_nb.partition_sparse_nb`); ``"python"``
    is the reference (a ``keep`` callback per slab). Both send the same messages and
    count the same ``snap`` calls (one per distinct box per update).

    Skipping irrelevant objects of the sweep (the analogue of 1-d Paint-Sparse's
    search range ``[l*, r*]``). Let ``L*_t`` be the smallest ``l_t`` and ``R*_t`` the
    largest ``r_t`` of the subscriptions in IR_old(i) (read off the snaps of its
    message boxes), and B = ``[L*, R*]`` ⊂ R^d. An object h of the sweep with
    ``x_h ∉ B`` is neither examined nor added to P. Exact: (1) no subscription that
    holds i at any height of the sweep holds h (those are in IR_z(i) ⊆ IR_old(i), so
    inside B), so h's gain, the σ ∈ θ_h that hold i and k − 1 others, reaches nobody.
    (2) Leaving h out of the active set A (call the result A') changes no later
    decision about a subscription: take σ ∈ θ_i. If σ holds no skipped object,
    ``|A' ∩ σ| = |A ∩ σ|`` and P (maintained on A' as on A, Lemma A) gives σ the same
    count N, hence the same membership in every region. If σ holds skipped objects,
    let h0 be the first: when h0 was passed σ was outside IR (else x_h0 ∈ σ ⊆ B), so
    σ held k objects of A then, none of them skipped (h0 is the first), i.e. k of A';
    A' only grows during the sweep, so σ's count stays >= k with or without the
    skipped ones and σ is in no later gain either way. So every subscription gets
    exactly Paint-Dense's notifications (checked by the oracle,
    ``sparse-same-notifications``). Objects of A' that look exposed only because a
    skipped object is missing from P have gains holding no subscription (by (2)), so
    they cost a snap and send nothing.

    Cheaper still, a region whose whole box (cells ``start..cap``: for a gain, the
    subscriptions holding both x_i and x_h) snaps empty is not partitioned at all."""

    family = "paint-sparse"

    def __init__(self, objects: ObjectIndexD, subscriptions: BoxSubscriptions, k: int,
                 budget: int | None = None, engine: str = "numba"):  # fmt: skip
        super().__init__(objects, k, budget, engine)
        if subscriptions.d != objects.d:
            raise InputError(
                f"subscriptions have d = {subscriptions.d} but objects d = {objects.d}; "
                "they must agree"
            )
        self.subscriptions = subscriptions
        self._snaps: dict[bytes, tuple | None] = {}
        self._held: list[np.ndarray] = []

    def _begin(self) -> None:
        self._snaps = {}
        self._held = [np.full(2 * self.d, np.inf), np.full(2 * self.d, -np.inf)]

    def snap(self, box: np.ndarray) -> tuple:
        """The subscription index's ``snap``, counted once per distinct box per update."""
        key = np.asarray(box, np.float64).tobytes()
        answer = self._snaps.get(key, _ABSENT)
        if answer is _ABSENT:
            self.counter.snap += 1
        if answer is None or answer is _ABSENT:
            # None: asked (and counted) inside the partition kernel, which kept only
            # whether it holds a subscription
            answer = self._snaps[key] = self.subscriptions.snap(box)
        return answer

    def _asked(self, boxes: np.ndarray, answers: np.ndarray) -> None:
        """Count and cache the boxes the partition kernel looked up."""
        if not len(boxes):
            return
        snaps, empty = self._snaps, (0, None, None)
        # each row's bytes as one key (what ``box.tobytes()`` gives), built in C
        keys = np.ascontiguousarray(boxes).view(f"V{8 * boxes.shape[1]}").ravel().tolist()
        fresh = dict(zip(keys, [None if hit else empty for hit in answers.tolist()],
                         strict=True))  # fmt: skip
        new = [key for key in fresh if key not in snaps]
        self.counter.snap += len(new)
        for key in new:
            snaps[key] = fresh[key]

    def _keep(self, grid: regions.Grid):
        return regions.Pruning(grid, self.subscriptions, lambda box: self.snap(box)[0] > 0,
                               self._asked)  # fmt: skip

    def _worth(self, grid: regions.Grid, start: np.ndarray | None) -> bool:
        s = np.zeros(len(grid.cap), np.int64) if start is None else start
        if (s > grid.cap).any():
            return False
        return self.snap(grid.to_boxes(np.stack([s, grid.cap], axis=1)[None])[0])[0] > 0

    def _relevant(self, order: np.ndarray) -> np.ndarray:
        lows, highs = self._held  # of IR_old's subscriptions (see the class docstring)
        x = self.objects.x[order]
        inside = np.all((x >= lows[0::2]) & (x <= highs[1::2]), axis=1)
        return order[inside]

    def emit(self, out: _Writer, boxes: np.ndarray, obj: int, y: float) -> None:
        snaps = self._snaps
        keys = [box.tobytes() for box in boxes]
        todo = [j for j, key in enumerate(keys) if snaps.get(key) is None]
        if todo:  # one batched lookup for the boxes not snapped whole yet
            counts, lows, highs = self.subscriptions.snap_many(boxes[todo])
            for t, j in enumerate(todo):
                if keys[j] not in snaps:
                    self.counter.snap += 1
                snaps[keys[j]] = (int(counts[t]), lows[t], highs[t])
        snapped = []
        held_lo, held_hi = self._held
        for key in keys:
            c, lows, highs = snaps[key]
            if c:
                np.minimum(held_lo, lows, out=held_lo)
                np.maximum(held_hi, highs, out=held_hi)
                snapped.append((closed_box(lows, highs), c))
        merged = greedy_merge(snapped, lambda box: self.snap(np.array(box))[0])
        if merged:
            super().emit(out, np.array(merged), obj, y)


_ABSENT = object()
