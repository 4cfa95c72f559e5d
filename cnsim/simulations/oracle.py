"""The brute-force oracle: every subscription's true top-k, computed from scratch.

Deliberately independent of the indexes it checks: a plain scan of all objects
per subscription (vectorised over objects with numba), O(m · n).
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def true_top_k(x, y, l, r, k):
    """Ids and y-values of each subscription's top k (sorted by (y, id), padded with
    ``(-1, inf)``), by scanning every object for every subscription."""
    m = len(l)
    out_i = np.full((m, k), -1, np.int64)
    out_y = np.full((m, k), np.inf)
    for j in range(m):
        for o in range(len(x)):
            yo = y[o]
            if not (l[j] <= x[o] <= r[j]) or yo == np.inf:
                continue
            if yo > out_y[j, k - 1] or (yo == out_y[j, k - 1] and o > out_i[j, k - 1] >= 0):
                continue
            c = k - 1
            while c > 0 and (
                yo < out_y[j, c - 1] or (yo == out_y[j, c - 1] and o < out_i[j, c - 1])
            ):
                out_y[j, c] = out_y[j, c - 1]
                out_i[j, c] = out_i[j, c - 1]
                c -= 1
            out_y[j, c] = yo
            out_i[j, c] = o
    return out_i, out_y


@numba.njit(cache=True)
def ranks(x, y, l, r, subs, obj):
    """1-based rank of object ``obj[t]`` among the live objects of subscription
    ``subs[t]``'s range (objects with smaller y, ties by id, plus one)."""
    out = np.empty(len(subs), np.int64)
    for t in range(len(subs)):
        s, o = subs[t], obj[t]
        below = 0
        for p in range(len(x)):
            if p != o and l[s] <= x[p] <= r[s] and (y[p] < y[o] or (y[p] == y[o] and p < o)):
                below += 1
        out[t] = below + 1
    return out
