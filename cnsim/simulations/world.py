"""The workload of one run: objects, subscriptions and events, drawn from the seed.

Each part has its own named random stream (:class:`cnsim.simulations.seeds.Seeds`),
so changing, say, the number of subscriptions leaves the objects and the events as
they were: runs of a sweep differ only in what their parameters change.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np

from cnsim.simulations.config import Scenario
from cnsim.simulations.seeds import Seeds
from cnsim.subscriptions.kinds import SubscriptionKind, kind_of
from cnsim.subscriptions.trace import load_event_trace
from cnsim.subscriptions.workload import Events, generate_events, generate_objects


@dataclass(frozen=True)
class Workload:
    """Initial objects, subscriptions and the event stream of one scenario, with the
    kind of its subscriptions (which reads its own fields below)."""

    x: np.ndarray
    y: np.ndarray
    l: np.ndarray
    r: np.ndarray
    k: int
    events: Events
    kind: SubscriptionKind
    # 1.5-d range subscriptions (seed 003 appendix D; [subscriptions] kind =
    # "range-1.5d"): x is every object's x1, x2 the x2 of every id the run uses (the
    # initial objects', then those inserts and moves create); l, r, v are every
    # subscription's l1, r1, r2. None for other kinds.
    x2: np.ndarray | None = None
    v: np.ndarray | None = None
    # d-dimensional box subscriptions (seed 003 §IV-C; [subscriptions] kind = "box"): x
    # is every object's x_1, xd the (ids, d) attributes of every id the run uses, and l,
    # r are every box's (m, d) lower and upper sides. None for other kinds.
    xd: np.ndarray | None = None

    #: the fields with one row per subscription (the others are the objects')
    PER_SUBSCRIPTION: ClassVar[tuple[str, ...]] = ("l", "r", "v")

    def subscriptions_of(self, ids: np.ndarray) -> Workload:
        """The same objects and events with subscriptions ``ids`` alone, in that order (a
        partition of a run spread over Spark tasks)."""
        fields = {f: getattr(self, f) for f in self.PER_SUBSCRIPTION}
        kept = {f: np.ascontiguousarray(a[ids]) for f, a in fields.items() if a is not None}
        return replace(self, **kept)


def objects_and_events(
    scenario: Scenario, seeds: Seeds, events: int | None = None
) -> tuple[np.ndarray, np.ndarray, Events]:
    """The scenario's initial objects ``(x, y)`` and event stream, drawn (or read from
    ``events.trace``) without its subscriptions; ``events`` overrides the event count."""
    o, e = scenario["objects"], scenario["events"]
    n_events = e["count"] if events is None else events
    if e["trace"]:  # the objects and events of a user's file (subscriptions still drawn)
        trace = load_event_trace(e["trace"], n_events)
        return trace.x, trace.y, trace.events
    x, y = generate_objects(
        seeds.rng("objects"), o["count"], o["distribution"], o["y_distribution"], e["update"]
    )
    stream = generate_events(
        seeds.rng("events"), y, n_events, e["update"], e["volatility"],
        (e["inserts"], e["deletes"], e["moves"]), x, o["distribution"],
    )  # fmt: skip
    return x, y, stream


def build_workload(scenario: Scenario, seeds: Seeds, events: int | None = None) -> Workload:
    """Draw the scenario's workload; ``events`` overrides the configured event count."""
    s = scenario["subscriptions"]
    kind = kind_of(s)
    x, y, stream = objects_and_events(scenario, seeds, events)
    return Workload(x, y, k=s["k"], events=stream, kind=kind, **kind.draw(seeds, x, stream))
