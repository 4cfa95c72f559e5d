"""Every random stream of a run, by name, from the scenario's seed.

Each stream is a child of ``numpy.random.SeedSequence(seed)`` with a fixed spawn key,
so changing one part of a scenario (say, the number of subscriptions) leaves the
other streams — the objects, the events — exactly as they were, and runs of a sweep
differ only in what their parameters change. The IP topology is the exception: it
is drawn from ``[network] seed`` (the run's seed unless set), with named streams of
its own (:func:`cnsim.network.topology.stream`), so that one cached world serves
runs of different seeds.
"""

from __future__ import annotations

import numpy as np

# The order fixes each stream's spawn key: append new streams, never reorder.
STREAMS = (
    "objects",  # initial objects' x and y
    "subscriptions",  # subscription points (l, r)
    "events",  # the event stream
    "subscriber_nodes",  # the IP node of every subscription
    "publishers",  # the IP node publishing every event
    "zones",  # the points at which joining brokers split CAN zones
    "arrivals",  # timed mode's Poisson publication times
    "scores",  # ranked delivery's subscription scores ([ranked] scores)
    "objects_x2",  # 1.5-d range subscriptions: every object's x2 (seed 003 appendix D)
    "ranked_churn",  # ranked delivery's joins and leaves ([ranked] commands, churn)
    "churn",  # when subscriptions join and leave ([churn]; cnsim/subscriptions/churn.py)
    "churn_subscriptions",  # the points of the joining subscriptions
    "faults",  # which brokers fail when, and their repair times ([faults])
)


class Seeds:
    """The named random streams of one run."""

    def __init__(self, seed: int):
        self.seed = seed

    def sequence(self, name: str) -> np.random.SeedSequence:
        """The SeedSequence of stream ``name`` (one of :data:`STREAMS`)."""
        return np.random.SeedSequence(self.seed, spawn_key=(STREAMS.index(name),))

    def rng(self, name: str) -> np.random.Generator:
        """A fresh generator of stream ``name``."""
        return np.random.default_rng(self.sequence(name))
