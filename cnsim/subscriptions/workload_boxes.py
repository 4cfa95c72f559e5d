"""Workload of d-dimensional box subscriptions (seed 003 §IV-C), as ``[subscriptions]
kind = "box"`` with ``dims = d`` draws it in ``cnsim run`` and ``cnsim verify``.

Notation (:mod:`cnsim.algorithms.boxes`): object i is ``(x_i1..x_id, y_i)``, a
subscription the box ``[l_1, r_1] × … × [l_d, r_d]`` — the point ``(l_1, r_1, …, l_d,
r_d)`` of S = R^{2d}. Attributes are independent and uniform in [0, 1):

* ``x_i1`` is the 1-d scenario's x (``[objects]``, uniform), so x_1 and y of a box run
  equal those of the 1-d run of the same seed;
* ``x_i2..x_id`` come from the stream of 1.5-d's x2 (``objects_x2``), one row of d − 1
  draws per object in id order (for d = 2, x_2 is the 1.5-d run's x2). An insert, or a
  move's new id, takes its x_1 from the event and its other attributes from the
  stream's next row, in id order (:func:`extend_attributes`), as :func:`extend_x2`
  does in 1.5-d;
* each side ``[l_t, r_t]`` is the smaller and larger of two uniform draws (as
  ``cnsim bench boxes``), drawn as two (m, d) arrays from the ``subscriptions``
  stream: for d = 1 exactly the 1-d run's uniform ranges.

The subscribers' initial lists come from :func:`initial_lists_boxes` (a numba scan of
the objects in (y, id) order per subscription, stopping at the k-th hit); the
verification oracle stays the independent full scan of
:func:`cnsim.simulations.verify_boxes.true_top_k_boxes`.
"""

from __future__ import annotations

import numba
import numpy as np

from cnsim.subscriptions.lists import Layout, TopKLists, id_dtype

KINDS = ("box",)  # [subscriptions] kind of d-dimensional boxes
MAX_DIMS = 4  # [subscriptions] dims: 1 .. MAX_DIMS (Paint-Dense's regions grow like z^d)


def generate_attributes(rng: np.random.Generator, x1: np.ndarray, d: int) -> np.ndarray:
    """The (n, d) attributes of objects whose first attribute is ``x1``: the other
    d − 1 uniform in [0, 1), one row per object."""
    x1 = np.asarray(x1, np.float64)
    return np.column_stack([x1, rng.random((len(x1), d - 1))])


def extend_attributes(
    rng: np.random.Generator, xd: np.ndarray, event_ids: np.ndarray, event_x: np.ndarray
) -> np.ndarray:
    """``xd`` grown to every id ``event_ids`` name: a new id (an insert, a move's new
    position) gets its first attribute from its updates' x and the others from the next
    row of ``rng`` (the stream ``xd`` came from), in id order; nothing is drawn when no
    id is new."""
    n, d = xd.shape
    n_ids = max(n, int(event_ids.max()) + 1 if len(event_ids) else 0)
    if n_ids == n:
        return xd
    new = np.full((n_ids - n, d), np.nan)
    created = event_ids >= n
    new[event_ids[created] - n, 0] = event_x[created]
    new[:, 1:] = rng.random((n_ids - n, d - 1))
    assert not np.isnan(new[:, 0]).any()  # events create ids in order, each with its x
    return np.concatenate([xd, new])


def generate_boxes(rng: np.random.Generator, m: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    """``(l, r)``, each (m, d), of ``m`` boxes: every side the smaller and larger of
    two uniform draws."""
    a, b = rng.random((m, d)), rng.random((m, d))
    return np.minimum(a, b), np.maximum(a, b)


def initial_lists_boxes(
    xd: np.ndarray,
    y: np.ndarray,
    l: np.ndarray,
    r: np.ndarray,
    k: int,
    layout: Layout | None = None,
    max_id: int | None = None,
) -> TopKLists:
    """Every box subscription's true top-k over the objects ``xd[:len(y)]``, stored in
    ``layout`` (as :meth:`TopKLists.initial` for 1-d ranges)."""
    if layout is not None:
        l, r = l[layout.order], r[layout.order]
    dtype = id_dtype(len(y) - 1 if max_id is None else max_id)
    ids, ys = initial_top_k_boxes(xd[: len(y)], y, l, r, k)
    return TopKLists(ids.astype(dtype), ys, layout)


def initial_top_k_boxes(xd, y, l, r, k) -> tuple[np.ndarray, np.ndarray]:
    """Ids and y-values of each box's top k (sorted by (y, id), padded with
    ``(-1, inf)``): the objects in (y, id) order, first k inside each box."""
    y = np.asarray(y, np.float64)
    order = np.lexsort((np.arange(len(y)), y))
    order = order[np.isfinite(y[order])]
    return _scan(
        np.ascontiguousarray(np.asarray(xd, np.float64)[order]),
        y[order],
        order.astype(np.int64),
        np.ascontiguousarray(l, np.float64),
        np.ascontiguousarray(r, np.float64),
        k,
    )


@numba.njit(cache=True)
def _scan(sx, sy, sid, l, r, k):  # pragma: no cover - numba
    m, d = l.shape
    out_i = np.full((m, k), -1, np.int64)
    out_y = np.full((m, k), np.inf)
    for j in range(m):
        c = 0
        for p in range(len(sy)):
            inside = True
            for t in range(d):
                if not (l[j, t] <= sx[p, t] <= r[j, t]):
                    inside = False
                    break
            if inside:
                out_i[j, c] = sid[p]
                out_y[j, c] = sy[p]
                c += 1
                if c == k:
                    break
    return out_i, out_y
