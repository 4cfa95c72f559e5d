"""d-dimensional box workloads (seed 003 §IV-C): uniform objects in [0, 1)^d, uniform
boxes (two uniform corners per dimension, sorted) and §V's event rule."""

from __future__ import annotations

import numpy as np

from cnsim.subscriptions.generators.checks import check_int, check_product, check_seed
from cnsim.subscriptions.generators.datasets_15d import events as event_stream
from cnsim.subscriptions.workload import sorted_pairs


def workload(d: int, n: int, m: int, events: int, seed: int = 0):
    """x (n, d), y, l (m, d), r (m, d) and the event stream [(object, new y)].

    ``d``, ``n``, ``m`` and ``events`` are integers >= 0 (at least one object when there
    are events) whose arrays fit ``MAX_COUNT`` elements, ``seed`` an integer >= 0, else
    ``InputError``."""
    d, n, m = check_int("d", d), check_int("n", n), check_int("m", m)
    check_int("events", events)
    seed = check_seed("seed", seed)
    check_product(f"n x d ({n} x {d})", n * d)
    check_product(f"m x d ({m} x {d})", m * d)
    rng = np.random.default_rng([seed, d])
    x, y = rng.random((n, d)), rng.random(n)
    l, r = sorted_pairs(rng, (m, d))
    stream = event_stream(y, events, np.random.default_rng([seed, d, 7]))
    return x, y, l, r, stream
