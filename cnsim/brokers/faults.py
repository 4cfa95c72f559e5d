"""Brokers that fail and come back during a run over the Meghdoot overlay (``[faults]``).

Model, in units of events (event ``e`` happens at time ``e``), as CAN handles a
departed node (Ratnasamy et al., "A Scalable Content-Addressable Network"):

* **failures**: a Poisson number of brokers fails before each event (mean
  ``faults.rate``), drawn uniformly among the brokers up and not the server's; or the
  brokers ``faults.brokers`` fail before the events ``faults.at``. A failed broker
  comes back ``faults.repair_time`` events later on average (exponential; 0: not in
  the run).
* **takeover**: every zone the failed broker owns is taken over by the broker of a
  neighbouring zone — the one of smallest zone volume among the neighbours holding a
  replica of the zone, or, with none up, among all neighbours up (CAN's rule) — so
  routing over the zones is unchanged; only who owns a zone is. A hop between two
  zones of one broker is no overlay hop.
* **replication** (``faults.replication`` = r): each zone's subscriptions are also held
  by the brokers of its r smallest neighbouring zones (by volume, at the start). A
  takeover by a replica holder serves the zone's subscriptions at once; with r = 0, or
  no replica holder up, the zone's subscriptions are *lost*: messages still reach the
  zone, but their deliveries are dropped (``lost_msgs``) until the subscriber notices,
  ``faults.detection`` events after the failure, and re-subscribes: its subscription
  goes to the zone's broker (one message over the last hop) and its list comes anew
  from the server, as a joining subscriber's does.
* **repair**: the broker comes back and takes its original zones back, with the
  subscriptions the zones' brokers now hold (one message per zone over the IP hops
  between them); those still lost stay lost until they re-subscribe.

The schedule is drawn once, before any event, from the stream ``faults``. The server's
broker never fails (the server would go with it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

#: the per-batch counts a network with faults reports (catalog mode "faults")
COUNTS = ("failures", "repairs", "lost_subs", "resubscriptions", "handback_msgs",
          "handback_bytes", "handback_ip_bytes")  # fmt: skip


def faulty(section: Mapping[str, Any]) -> bool:
    """Whether a ``[faults]`` section makes brokers fail."""
    return section["rate"] > 0 or bool(section["brokers"])


@dataclass(frozen=True)
class FaultSchedule:
    """Which broker fails before which event, and when it comes back."""

    fail_at: np.ndarray  # (F,) event before which failure f happens, non-decreasing
    broker: np.ndarray  # (F,) the broker failing
    repair_at: np.ndarray  # (F,) event before which it comes back (n_events: not in the run)

    @classmethod
    def draw(
        cls, section: Mapping[str, Any], n_brokers: int, server: int, n_events: int, rng
    ) -> FaultSchedule:
        """The run's failures: the listed ones, or drawn at ``rate`` among the brokers
        up (never ``server``); a broker failing while down is left out."""
        if section["brokers"]:
            at = np.asarray(section["at"], np.int64)
            broker = np.asarray(section["brokers"], np.int64)
            order = np.argsort(at, kind="stable")
            at, broker = at[order], broker[order]
            wanted = None
        else:
            counts = rng.poisson(section["rate"], n_events)
            at = np.repeat(np.arange(n_events, dtype=np.int64), counts)
            broker = np.full(len(at), -1, np.int64)
            wanted = rng.random(len(at))  # which of the brokers up, when it fails
        mean = section["repair_time"]
        repair = rng.exponential(mean, len(at)) if mean > 0 else np.full(len(at), np.inf)
        up_again = np.full(n_brokers, -1, np.int64)  # event from which a down broker is up
        keep = np.zeros(len(at), bool)
        repair_at = np.zeros(len(at), np.int64)
        for f in range(len(at)):
            t = int(at[f])
            if wanted is not None:
                up = np.flatnonzero((up_again <= t) & (np.arange(n_brokers) != server))
                if not len(up):
                    continue
                broker[f] = up[min(int(wanted[f] * len(up)), len(up) - 1)]
            b = int(broker[f])
            if up_again[b] > t:  # down already
                continue
            keep[f] = True
            back = t + max(1, int(np.ceil(repair[f]))) if np.isfinite(repair[f]) else n_events
            repair_at[f] = min(back, n_events)
            up_again[b] = repair_at[f] if repair_at[f] < n_events else np.iinfo(np.int64).max
        return cls(at[keep], broker[keep], repair_at[keep])

    def due(self, first: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
        """``(failing, repaired)``: the brokers failing and coming back at the start of
        the batch of events ``first .. stop - 1``."""
        failing = self.broker[(self.fail_at >= first) & (self.fail_at < stop)]
        repaired = self.broker[(self.repair_at >= first) & (self.repair_at < stop)]
        return failing, repaired
