"""Joins and leaves during a ranked-delivery run: scored range subscriptions
come and go while events flow, and the zones keep their score bounds current.

The command stream follows seed 001's
(:class:`cnsim.simulations.runner.StreamSimulation`): ``commands`` join/leave commands,
each a *leave* with probability ``churn`` (the share of commands unsubscribing, as
``subscriptions.churn`` is there) — of a subscription drawn uniformly from those live at
that moment — and otherwise a *join* of a new subscription drawn from the run's
subscription law (``subscriptions.distribution``; its own draw of the clustered centres)
with a score from ``[ranked] scores``. A leave with nothing live is a join instead. The
commands are spread evenly over the events as seed 001's are: event ``e`` follows
command ``floor((e + 1) * commands / events) - 1``, so command ``c`` is applied just
before event ``ceil((c + 1) * events / commands) - 1``.

Ids: the run's ``m`` subscriptions are ``0 .. m - 1``; the ``j``-th join gets
``m + j`` (what :meth:`cnsim.brokers.ranked.RankedZones.insert` gives).  A joining
subscriber sits on a uniformly drawn IP node (as ``subscriber_nodes``), reached from
its gateway over the last hop.

The schedule is drawn once from the ``ranked_churn`` stream, before any event, from the
command parameters alone: it is the workload, independent of the zones, and what
``cnsim verify`` replays to know which subscriptions are live at each event
(:meth:`RankedChurn.live_before`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cnsim.subscriptions.ranked.scores import generate_scores
from cnsim.subscriptions.workload import generate_subscriptions

CHURN_COSTS = (  # with [ranked] commands > 0: the batch's joins, leaves and bound updates
    "churn_joins",
    "churn_leaves",
    "churn_bound_changes",
    "churn_bound_msgs",
    "churn_bound_ip_bytes",
)


@dataclass(frozen=True)
class RankedChurn:
    """Join/leave commands and the events they precede (see the module docstring)."""

    m: int  # subscriptions before the first command (ids 0 .. m - 1)
    before_event: np.ndarray  # (C,) command c is applied just before this event
    leave: np.ndarray  # (C,) bool: a leave (else a join)
    target: np.ndarray  # (C,) id leaving, or id the join gets
    l: np.ndarray  # (J,) the joins' ranges and scores, ids m .. m + J - 1
    r: np.ndarray
    score: np.ndarray
    node: np.ndarray  # (J,) IP node of each joining subscriber

    @classmethod
    def draw(
        cls,
        rng: np.random.Generator,
        m: int,
        n_events: int,
        commands: int,
        churn: float,
        distribution: str,
        spread: float,
        scores: str,
        n_nodes: int,
    ) -> RankedChurn:
        """The schedule of ``commands`` commands over ``n_events`` events."""
        c = np.arange(commands, dtype=np.int64)
        if n_events:
            before = -(-(c + 1) * n_events // max(commands, 1)) - 1
        else:  # no event: the commands would follow the last one; none is applied
            before = np.zeros(commands, np.int64)
        is_leave = rng.random(commands) < churn
        # the live set, as an array with swap-remove (a uniform draw is one index)
        live = np.empty(m + commands, np.int64)
        live[:m] = np.arange(m)
        n_live, joins = m, 0
        leave = np.zeros(commands, bool)
        target = np.empty(commands, np.int64)
        picks = rng.random(commands)
        for i in range(commands):
            if is_leave[i] and n_live:
                j = int(picks[i] * n_live)
                target[i] = live[j]
                n_live -= 1
                live[j] = live[n_live]
                leave[i] = True
            else:
                target[i] = m + joins
                live[n_live] = m + joins
                n_live += 1
                joins += 1
        l, r = generate_subscriptions(rng, joins, distribution, spread)
        score = generate_scores(rng, l, r, scores)
        node = rng.integers(n_nodes, size=joins)
        return cls(m, before, leave, target, l, r, score, node)

    def __len__(self) -> int:
        return len(self.leave)

    @property
    def n_joins(self) -> int:
        """Joins in the schedule."""
        return len(self.l)

    def upto(self, event: int) -> int:
        """Number of commands applied before ``event`` (all of them: the commands
        ``0 .. upto - 1``)."""
        return int(np.searchsorted(self.before_event, event, side="right"))

    def live_before(self, event: int) -> np.ndarray:
        """Which of the ids ``0 .. m + n_joins - 1`` are live when ``event`` is published
        (the replay ``cnsim verify`` checks against)."""
        alive = np.zeros(self.m + self.n_joins, bool)
        alive[: self.m] = True
        n = self.upto(event)
        t, lv = self.target[:n], self.leave[:n]
        alive[t[~lv]] = True
        alive[t[lv]] = False
        return alive

    @classmethod
    def of_setup(cls, ranked, seeds, m: int, n_events: int, n_nodes: int):
        """The schedule of a run's ``[ranked] commands`` (``ranked``: a
        :class:`cnsim.brokers.base.RankedSetup`; stream ``ranked_churn``), or None
        without commands."""
        if not ranked.commands:
            return None
        return cls.draw(
            seeds.rng("ranked_churn"), m, n_events, ranked.commands, ranked.churn,
            ranked.distribution, ranked.spread, ranked.scores, n_nodes,
        )  # fmt: skip


class JoinsAndLeaves:
    """What a ranked overlay with joins and leaves shares (``RankedOverlay`` over the
    zones, ``RankedTreeOverlay`` over the broker tree).  A subclass provides ``net``
    (with ``insert``, ``delete`` and the counters ``bound_changes``, ``bound_msgs``,
    ``bound_ip_bytes``), ``churn`` (a :class:`RankedChurn`), ``world``, and
    :meth:`_join`; it sets ``applied = 0`` and ``_last_hop = None``."""

    net: object
    churn: RankedChurn
    world: object
    applied: int
    _last_hop: np.ndarray | None

    def _join(self, j: int) -> tuple[int, int]:
        """Insert the ``j``-th join; ``(its id, the broker its subscriber hangs off)``."""
        raise NotImplementedError

    def _churn_before(self, update_events, last_hop: np.ndarray) -> tuple[dict, np.ndarray]:
        """Apply the commands scheduled before the batch's event (``update_events``: one
        event per batch): the batch's churn costs (none without commands) and the last
        hops of every subscription, joined ones included."""
        if self.churn is None:
            return {}, last_hop
        events = np.asarray(update_events)
        assert len(events) and events.min() == events.max(), "one event per batch"
        churned = self._apply_churn(self.churn.upto(int(events[0])), last_hop)
        return churned, self._last_hop

    def _apply_churn(self, upto: int, last_hop: np.ndarray) -> dict[str, int]:
        """Apply the commands ``applied .. upto - 1`` (joins, leaves; the bound changes
        they cause are counted by ``net``); the batch's churn costs (``CHURN_COSTS``)."""
        net, ch = self.net, self.churn
        if self._last_hop is None:
            self._last_hop = np.concatenate(
                [np.asarray(last_hop, np.int64), np.zeros(ch.n_joins, np.int64)]
            )
        before = (net.bound_changes, net.bound_msgs, net.bound_ip_bytes)
        joins = leaves = 0
        for c in range(self.applied, upto):
            i = int(ch.target[c])
            if ch.leave[c]:
                net.delete(i)
                leaves += 1
                continue
            j = i - ch.m
            got, broker = self._join(j)
            assert got == i  # ids are given in join order
            hop = self.world.last_hops(np.array([broker]), np.array([ch.node[j]]))
            self._last_hop[i] = int(hop[0])
            joins += 1
        self.applied = max(self.applied, upto)
        after = (net.bound_changes, net.bound_msgs, net.bound_ip_bytes)
        counts = (joins, leaves, *(a - b for a, b in zip(after, before, strict=True)))
        return dict(zip(CHURN_COSTS, counts, strict=True))
