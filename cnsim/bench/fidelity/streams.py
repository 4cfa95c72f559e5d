"""The fidelity benchmark's objects and event streams: seed 003 §V's under one reading of
its update rule and initial y, drawn from the run's named random streams."""

from __future__ import annotations

from cnsim.bench.fidelity.paper import N_OBJECTS
from cnsim.simulations.seeds import Seeds
from cnsim.subscriptions.workload import generate_events, generate_objects


def workload(seed: int, n_events: int, update: str, initial: str):
    """Objects and an event stream of seed 003 §V under one reading (x uniform), as
    ``cnsim run`` draws them with ``objects.y_distribution = initial`` and
    ``events.update = update``."""
    seeds = Seeds(seed)
    x, y = generate_objects(seeds.rng("objects"), N_OBJECTS, "uniform", initial, update)
    ev = generate_events(seeds.rng("events"), y, n_events, update, 1.0, (0.0, 0.0, 0.0), x)
    return x, y, ev
