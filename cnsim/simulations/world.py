"""The workload of one run: objects, subscriptions and events, drawn from the seed.

Each part has its own named random stream (:class:`cnsim.simulations.seeds.Seeds`),
so changing, say, the number of subscriptions leaves the objects and the events as
they were: runs of a sweep differ only in what their parameters change.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cnsim.simulations.config import Scenario
from cnsim.simulations.seeds import Seeds
from cnsim.subscriptions.trace import load_event_trace
from cnsim.subscriptions.workload import (
    Events,
    generate_events,
    generate_objects,
    generate_subscriptions,
)


@dataclass(frozen=True)
class Workload:
    """Initial objects, subscriptions and the event stream of one scenario."""

    x: np.ndarray
    y: np.ndarray
    l: np.ndarray
    r: np.ndarray
    k: int
    events: Events


def build_workload(scenario: Scenario, seeds: Seeds, events: int | None = None) -> Workload:
    """Draw the scenario's workload; ``events`` overrides the configured event count."""
    o, s, e = scenario["objects"], scenario["subscriptions"], scenario["events"]
    x, y = generate_objects(
        seeds.rng("objects"), o["count"], o["distribution"], o["y_distribution"], e["update"]
    )
    l, r = generate_subscriptions(
        seeds.rng("subscriptions"), s["count"], s["distribution"], s["spread"]
    )
    if e["trace"]:  # the objects and events of a user's file (subscriptions still drawn)
        trace = load_event_trace(e["trace"], e["count"] if events is None else events)
        return Workload(trace.x, trace.y, l, r, s["k"], trace.events)
    stream = generate_events(
        seeds.rng("events"),
        y,
        e["count"] if events is None else events,
        e["update"],
        e["volatility"],
        (e["inserts"], e["deletes"], e["moves"]),
        x,
        o["distribution"],
    )
    return Workload(x, y, l, r, s["k"], stream)
