"""Workload of 1.5-dimensional range top-k subscriptions (seed 003 appendix D-C), as
``[subscriptions] kind = "range-1.5d"`` draws it in ``cnsim run`` and ``cnsim verify``.

Notation (appendix D): object i is ``(x_i^(1), x_i^(2), y_i)``; its x1 is the 1-d
scenario's x (``[objects] distribution``), its x2 is uniform in [0, 1) (drawn from a
stream of its own, so the x1 and y of a 1.5-d run equal those of the 1-d run of the
same seed). An insert, or a move (the delete of the id and a new id at a new position),
creates an id whose x1 the event draws and whose x2 is the stream's next draw, in id
order (:func:`extend_x2`). A subscription is ``[l1, r1] × (−∞, r2]`` — the point ``(l1, r1, r2)`` of
the 3-d subscription space S — with r2 uniform and, by ``[subscriptions] dataset``:

* ``DS#1``: l1, r1 the smaller and larger of two uniform draws;
* ``DS#2`` / ``DS#3``: l1 uniform, r1 the x1 of the ``cover``-th object from l1
  eastward (the narrowest range holding that many objects by x1; the paper's 1,000 and
  100 of its 10,000 objects), or the last object's.

The subscribers' initial lists come from :func:`initial_top_k_15d` (a scan of the
objects in (y, id) order per subscription, stopping at the k-th hit: numba, no Python
object per subscription); the verification oracle stays the independent full scan of
:func:`cnsim.simulations.verify_15d.true_top_k_15d`.
"""

from __future__ import annotations

import numba
import numpy as np

from cnsim.subscriptions.lists import Layout, TopKLists, id_dtype

KINDS = ("range", "range-1.5d")  # [subscriptions] kind
DATASETS = ("DS#1", "DS#2", "DS#3")  # [subscriptions] dataset (appendix D-C)
COVER = {"DS#2": 1_000, "DS#3": 100}  # objects a DS#2 / DS#3 range covers by default


def generate_x2(rng: np.random.Generator, n: int) -> np.ndarray:
    """x2 of ``n`` objects, uniform in [0, 1)."""
    return rng.random(n)


def extend_x2(rng: np.random.Generator, x2: np.ndarray, event_ids: np.ndarray) -> np.ndarray:
    """``x2`` grown to every id ``event_ids`` name: an id an insert or move creates gets
    the next draw of ``rng`` (the stream ``x2`` came from), in id order, so its x2
    depends on the seed and the id only; nothing is drawn when no id is new."""
    n_ids = max(len(x2), int(event_ids.max()) + 1 if len(event_ids) else 0)
    return np.concatenate([x2, generate_x2(rng, n_ids - len(x2))]) if n_ids > len(x2) else x2


def generate_subscriptions_15d(
    rng: np.random.Generator, m: int, dataset: str, x1: np.ndarray, cover: int | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(l1, r1, r2)`` of ``m`` subscriptions of ``dataset`` over objects with x1-values
    ``x1``; ``cover`` (DS#2/DS#3) overrides how many objects a range covers."""
    if dataset == "DS#1":
        a, b = rng.random(m), rng.random(m)
        l, r = np.minimum(a, b), np.maximum(a, b)
    elif dataset in COVER:
        need = COVER[dataset] if cover is None else cover
        xs = np.sort(np.asarray(x1, np.float64))
        l = rng.random(m)
        first = np.searchsorted(xs, l, side="left")
        r = np.maximum(xs[np.minimum(first + need - 1, len(xs) - 1)], l) if len(xs) else l.copy()
    else:
        raise ValueError(f"unknown dataset {dataset!r}; allowed: {', '.join(DATASETS)}")
    return l, r, rng.random(m)


def initial_lists_15d(
    x1: np.ndarray,
    x2: np.ndarray,
    y: np.ndarray,
    l: np.ndarray,
    r: np.ndarray,
    v: np.ndarray,
    k: int,
    layout: Layout | None = None,
    max_id: int | None = None,
) -> TopKLists:
    """Every subscription's true top-k, stored in ``layout`` (as
    :meth:`TopKLists.initial` for 1-d ranges)."""
    if layout is not None:
        l, r, v = l[layout.order], r[layout.order], v[layout.order]
    dtype = id_dtype(len(x1) - 1 if max_id is None else max_id)
    ids, ys = initial_top_k_15d(x1, x2, y, l, r, v, k)
    return TopKLists(ids.astype(dtype), ys, layout)


def initial_top_k_15d(x1, x2, y, l, r, v, k) -> tuple[np.ndarray, np.ndarray]:
    """Ids and y-values of each subscription's top k (sorted by (y, id), padded with
    ``(-1, inf)``): the objects in (y, id) order, first k inside each box."""
    y = np.asarray(y, np.float64)
    order = np.lexsort((np.arange(len(y)), y))
    order = order[np.isfinite(y[order])]
    return _scan(
        np.ascontiguousarray(x1, np.float64)[order],
        np.ascontiguousarray(x2, np.float64)[order],
        y[order],
        order.astype(np.int64),
        *(np.ascontiguousarray(a, np.float64) for a in (l, r, v)),
        k,
    )


@numba.njit(cache=True)
def _scan(sx1, sx2, sy, sid, l, r, v, k):  # pragma: no cover - numba
    m = len(l)
    out_i = np.full((m, k), -1, np.int64)
    out_y = np.full((m, k), np.inf)
    for j in range(m):
        c = 0
        for p in range(len(sx1)):
            if l[j] <= sx1[p] <= r[j] and sx2[p] <= v[j]:
                out_i[j, c] = sid[p]
                out_y[j, c] = sy[p]
                c += 1
                if c == k:
                    break
    return out_i, out_y
