"""The table of :func:`cnsim.simulations.reproduce.expected.expected_next_event` over
seeds and times (``cnsim bench fidelity``)."""

from __future__ import annotations

import numpy as np

from cnsim.bench.fidelity.paper import M
from cnsim.bench.fidelity.streams import workload
from cnsim.simulations.reproduce.expected import expected_next_event
from cnsim.subscriptions.generators.readings import READINGS


def expected_table(seeds: list[int], ks, combos, times=(0,)) -> dict:
    """:func:`expected_next_event` × M on the objects of each seed after ``t`` events of
    the stream (t in ``times``), for each update rule and initial y."""
    out = {}
    for update, initial in combos:
        rows = {}
        for t in times:
            for k in ks:
                per_seed = []
                for seed in seeds:
                    x, y, ev = workload(seed, t, update, initial)
                    y = y.copy()
                    for o, v in zip(ev.obj.tolist(), ev.y_new.tolist(), strict=True):
                        y[o] = v  # the objects after the first t events
                    per_seed.append(expected_next_event(x, y, k, update))
                rows[f"{t}/{k}"] = {
                    reading: {
                        key: M * float(np.mean([s[reading][key] for s in per_seed]))
                        for key in per_seed[0][reading]
                    }
                    | {"per_seed": [M * s[reading]["exact"] for s in per_seed]}
                    for reading in READINGS
                }
        out[f"{update}/{initial}"] = rows
    return out
