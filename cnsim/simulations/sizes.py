"""What a scenario needs before it runs: an estimate of its peak memory from its sizes,
checked against the machine's, so that a size nobody can run is refused before any work
(not after set-up, in numpy's ``ArrayMemoryError``).

The estimate is a sum of per-item costs measured on this code (``benchmarks/RESULTS.md``,
"Memory estimate"): per subscription (workload, index, gateways) plus per subscription
and per approach that keeps lists (its ``m × k`` list of object ids and y-values), per
object per approach (each keeps its own object index), per event (the event stream and
one metrics row per approach), the broker matrices of the world, and a fixed base for the
interpreter and its libraries. It errs high; ``cnsim run --dry-run`` prints it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from cnsim.algorithms.registry import parse
from cnsim.brokers import NETWORKS
from cnsim.errors import InputError
from cnsim.simulations.config import Scenario

# Bytes, measured (peak RSS over sizes, least squares, rounded up; see the module doc).
BASE = 350e6  # interpreter, numpy, numba, pandas, pyarrow, compiled kernels
PER_SUBSCRIPTION = 180.0  # l, r, ids, the ideal index
PER_SUBSCRIPTION_BROKERS = 400.0  # gateways: zone order, per-zone k-d trees, their build
PER_LIST_SLOT = 12.0  # one (object id, y) of a list, per approach with lists (issue 15)
PER_SUBSCRIPTION_APPROACH = 40.0  # list lengths, dirty flags, per-approach scratch
PER_OBJECT_APPROACH = 96.0  # x, y and the object index of one approach
PER_EVENT = 64.0  # the event stream: kind, object, x, y, offsets
PER_EVENT_APPROACH = 400.0  # one metrics row (~40 columns) per approach and batch
PER_BROKER_PAIR = 24.0  # broker hop and latency matrices
PER_IP_NODE = 400.0  # the IP graph while the world is built
ORACLE_PER_SUBSCRIPTION = 64.0  # verify: the oracle's own lists and scratch
# ranked delivery: per-zone scored R-trees, id maps, columns (RankedZones.nbytes: 351 MB
# for 2,000,000 subscriptions, benchmarks/RESULTS.md) and the scores, rounded up
PER_SUBSCRIPTION_RANKED = 220.0


@dataclass(frozen=True)
class Estimate:
    """A scenario's estimated peak memory, by part (bytes), and the machine's memory."""

    parts: dict[str, float]
    available: float

    @property
    def total(self) -> float:
        return sum(self.parts.values())

    def text(self) -> str:
        rows = [f"  {name:<28}{_gb(b):>10}" for name, b in self.parts.items()]
        return "\n".join(
            [
                "estimated peak memory:",
                *rows,
                f"  {'total':<28}{_gb(self.total):>10}",
                f"  {'available on this machine':<28}{_gb(self.available):>10}",
            ]
        )


def estimate(scenario: Scenario, events: int | None = None, oracle: bool = False) -> Estimate:
    """The estimated peak memory of running ``scenario`` (``oracle``: under verify)."""
    m = scenario["subscriptions"]["count"]
    k = scenario["subscriptions"]["k"]
    n = scenario["objects"]["count"]
    n_events = scenario["events"]["count"] if events is None else events
    specs = [parse(name) for name in scenario["algorithm"]["approaches"]]
    with_lists = sum(s.stores == "top-k" for s in specs)
    a = len(specs)
    batches = -(-n_events // scenario["events"]["batch_size"])
    inserts = scenario["events"]["inserts"] * n_events  # objects grow with inserts
    net = scenario["network"]
    has_brokers = NETWORKS[scenario["overlay"]["kind"]].has_brokers
    brokers = net["brokers"] if has_brokers else 0
    per_subscription = PER_SUBSCRIPTION + has_brokers * PER_SUBSCRIPTION_BROKERS
    parts = {
        "base (Python, libraries)": BASE,
        "subscriptions": m * (per_subscription + a * PER_SUBSCRIPTION_APPROACH),
        "subscriber lists": m * k * with_lists * PER_LIST_SLOT,
        "objects": (n + inserts) * a * PER_OBJECT_APPROACH,
        "events and metrics": n_events * PER_EVENT + batches * a * PER_EVENT_APPROACH,
        "world": brokers * brokers * PER_BROKER_PAIR + net.get("ip_nodes", 0) * PER_IP_NODE,
    }
    if any(s.message == "ranked" for s in specs):
        parts["ranked delivery"] = m * PER_SUBSCRIPTION_RANKED
    if oracle:
        parts["oracle"] = m * (ORACLE_PER_SUBSCRIPTION + k * PER_LIST_SLOT)
    return Estimate(parts, available_memory())


def check_fits(scenario: Scenario, events: int | None = None, oracle: bool = False) -> Estimate:
    """The estimate, or an InputError before any work if it exceeds the machine's memory."""
    est = estimate(scenario, events, oracle)
    if est.total > est.available:
        biggest = max(est.parts, key=est.parts.__getitem__)
        raise InputError(
            f"{scenario.source}: needs about {_gb(est.total)} of memory (most for "
            f"{biggest}: {_gb(est.parts[biggest])}), this machine has {_gb(est.available)} "
            "available; reduce subscriptions.count, objects.count, events.count or the "
            "approaches (cnsim run --dry-run prints the estimate)"
        )
    return est


def available_memory() -> float:
    """Bytes of memory available to this process: the cgroup limit if lower than the
    machine's available memory (``MemAvailable``)."""
    available = float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES"))
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    available = float(line.split()[1]) * 1024
    except OSError:
        pass
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            with open(path, encoding="ascii") as fh:
                text = fh.read().strip()
        except OSError:
            continue
        if text.isdigit():
            available = min(available, float(text))
    return available


def _gb(b: float) -> str:
    return f"{b / 1e9:.2f} GB" if b >= 1e8 else f"{b / 1e6:.0f} MB"
