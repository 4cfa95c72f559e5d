"""Seed 001's command stream run event by event against brute force (the harness of
tests/simulations/test_churn.py and tests/brokers/test_batch_forwarding.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from cnsim.simulations.runner import StreamSimulation
from cnsim.subscriptions.covering.workload import SUBSCRIBE


def checked_rows(scenario, engine: str = "auto") -> tuple[StreamSimulation, pd.DataFrame]:
    """Run ``scenario``'s command stream with ``engine`` (see :func:`check_steps`): the
    simulation and one row of every metric per event."""
    sim = StreamSimulation(scenario, engine=engine)
    return sim, check_steps(sim, sim.steps())


def check_steps(sim: StreamSimulation, steps) -> pd.DataFrame:
    """Consume ``steps`` of ``sim``, asserting that every event reaches exactly the
    subscriptions live when it is published whose box holds its point, each once; one
    row of every metric per event."""
    w, st = sim.commands, sim.commands.stream
    live, issued, rows = np.zeros(len(st), bool), 0, []
    for e, outcomes in steps:
        for i in range(issued, int(w.after[e]) + 1):
            live[st.sid[i]] = st.op[i] == SUBSCRIBE
        issued = int(w.after[e]) + 1
        x = w.points[e]
        want = np.flatnonzero(live & (st.lo <= x).all(axis=1) & (x <= st.hi).all(axis=1))
        (o,) = outcomes.values()
        assert np.array_equal(np.sort(o.delivery.subs), want), (e, x)
        rows.append({m.name: m.collect(o) for m in sim.metrics()})
    return pd.DataFrame(rows)
