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
from cnsim.subscriptions.workload_15d import extend_x2, generate_subscriptions_15d, generate_x2
from cnsim.subscriptions.workload_boxes import (
    extend_attributes,
    generate_attributes,
    generate_boxes,
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
    # 1.5-d range subscriptions (seed 003 appendix D; [subscriptions] kind =
    # "range-1.5d"): x is every object's x1, x2 the x2 of every id the run uses (the
    # initial objects', then those inserts and moves create); l, r, v are every
    # subscription's l1, r1, r2. None: 1-d ranges.
    x2: np.ndarray | None = None
    v: np.ndarray | None = None
    # d-dimensional box subscriptions (seed 003 §IV-C; [subscriptions] kind = "box"): x
    # is every object's x_1, xd the (ids, d) attributes of every id the run uses, and l,
    # r are every box's (m, d) lower and upper sides. None: no boxes.
    xd: np.ndarray | None = None


def build_workload(scenario: Scenario, seeds: Seeds, events: int | None = None) -> Workload:
    """Draw the scenario's workload; ``events`` overrides the configured event count."""
    o, s, e = scenario["objects"], scenario["subscriptions"], scenario["events"]
    x, y = generate_objects(
        seeds.rng("objects"), o["count"], o["distribution"], o["y_distribution"], e["update"]
    )
    l, r = generate_subscriptions(
        seeds.rng("subscriptions"), s["count"], s["distribution"], s["spread"]
    )
    x2 = v = xd = None
    if s["kind"] == "range-1.5d":  # x is x1; x2 and (l1, r1, r2) of appendix D-C
        x2_rng = seeds.rng("objects_x2")
        x2 = generate_x2(x2_rng, len(x))
        l, r, v = generate_subscriptions_15d(
            seeds.rng("subscriptions"), s["count"], s["dataset"], x, s["cover"]
        )
    if s["kind"] == "box":  # x is x_1; the other attributes and the boxes (workload_boxes)
        xd_rng = seeds.rng("objects_x2")
        xd = generate_attributes(xd_rng, x, s["dims"])
        l, r = generate_boxes(seeds.rng("subscriptions"), s["count"], s["dims"])
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
    if x2 is not None:  # the ids inserts and moves create: x2 from the stream's next draws
        x2 = extend_x2(x2_rng, x2, stream.obj)
    if xd is not None:  # likewise the attributes of the ids inserts and moves create
        xd = extend_attributes(xd_rng, xd, stream.obj, stream.x)
    return Workload(x, y, l, r, s["k"], stream, x2, v, xd)
