"""Seed 001 §V-A command streams: interleaved subscribes and unsubscribes.

Each command is a subscribe of a random box with probability ``1 - p`` and an
unsubscribe of a uniformly chosen live subscription with probability ``p`` (a
subscribe when none is live).  A box's edge on each attribute is a random segment of
the attribute domain: two values drawn uniformly from the integers ``0 .. 2**bits - 1``
(seed 001 requires attributes in ``[0, 2^c - 1]``), sorted.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cnsim.errors import InputError

SUBSCRIBE, UNSUBSCRIBE = 0, 1


@dataclass
class CommandStream:
    """``op[i]`` is SUBSCRIBE or UNSUBSCRIBE; ``sid[i]`` the subscription it names (the
    position of its subscribe command); ``lo``/``hi`` the boxes, row ``i`` meaningful
    for subscribes."""

    op: np.ndarray
    sid: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    p: float
    bits: int

    def __len__(self) -> int:
        return len(self.op)

    @property
    def d(self) -> int:
        return self.lo.shape[1]


def random_boxes(rng: np.random.Generator, n: int, d: int, bits: int = 10):
    """``n`` boxes whose edges are random segments of ``[0, 2**bits - 1]``."""
    a = rng.integers(0, 2**bits, size=(n, d, 2))
    a.sort(axis=2)
    return a[:, :, 0].astype(np.float64), a[:, :, 1].astype(np.float64)


def command_stream(n: int, d: int, p: float, seed: int = 0, bits: int = 10) -> CommandStream:
    """``n`` commands on ``d`` attributes with unsubscribe probability ``p``."""
    if not 0 <= p < 1:
        raise InputError(f"unsubscribe probability must be in [0, 1), got {p}")
    if not 1 <= bits <= 52:
        raise InputError(f"bits must be 1 to 52, got {bits}")
    rng = np.random.default_rng(seed)
    lo, hi = random_boxes(rng, n, d, bits)
    coin = rng.random(n) < p
    pick = rng.random(n)
    op = np.full(n, SUBSCRIBE, np.int8)
    sid = np.arange(n, dtype=np.int64)
    live = np.empty(n, np.int64)
    m = 0
    for i in range(n):
        if coin[i] and m:
            j = int(pick[i] * m)
            op[i] = UNSUBSCRIBE
            sid[i] = live[j]
            m -= 1
            live[j] = live[m]
        else:
            live[m] = i
            m += 1
    return CommandStream(op, sid, lo, hi, p, bits)


BITS = 10  # attribute domain 0 .. 2**BITS - 1 (seed 001 §V-A: [0, 2^c - 1])
DOMAIN = (0.0, float(2**BITS - 1))


@dataclass(frozen=True)
class CommandWorkload:
    """Seed 001's command stream with the events published between its commands:
    event ``e`` is the point ``points[e]`` (d attributes), published once commands
    ``0 .. after[e]`` have been issued."""

    stream: CommandStream
    after: np.ndarray  # (E,) the last command before each event
    points: np.ndarray  # (E, d) float64

    def live(self) -> np.ndarray:
        """Live subscriptions when each event is published."""
        step = np.where(self.stream.op == SUBSCRIBE, 1, -1).astype(np.int64)
        return np.concatenate([[0], np.cumsum(step)])[self.after + 1]


def command_workload(n: int, d: int, p: float, n_events: int, seeds) -> CommandWorkload:
    """``n`` commands on ``d`` attributes (unsubscribe probability ``p``, stream
    ``subscriptions``) and ``n_events`` points uniform over the same integers (stream
    ``events``), evenly spread over the commands: event ``e`` follows command
    ``floor((e + 1) * n / n_events) - 1``."""
    seed = int(seeds.rng("subscriptions").integers(2**63))
    stream = command_stream(n, d, p, seed, BITS)
    after = (np.arange(1, n_events + 1) * n) // max(n_events, 1) - 1
    x = seeds.rng("events").integers(0, 2**BITS, size=(n_events, d)).astype(np.float64)
    return CommandWorkload(stream, after.astype(np.int64), x)
