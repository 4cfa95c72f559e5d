"""``cnsim bench memory``: the memory estimate of :mod:`cnsim.simulations.sizes` against
measured peaks, and the per-item costs refitted to them.

Each case is ``examples/default.toml`` (the paper's setup: six approaches, k = 10,
1,000 brokers) with some sizes changed, run by ``cnsim.simulate`` in a fresh process
whose peak resident memory (``ru_maxrss``) is the measurement; the world is built once
beforehand, so a case loads it from the cache as every run after the first does.

The fit: the costs that scale with the subscriptions (``FITTED``) are refitted by
non-negative least squares to what the measured peaks leave after the other costs
(kept as they are: they are small at these sizes), then multiplied by ``PAD`` so that
the estimate errs high, as a guard before any work should. The result is the cost table
to put in ``sizes.COSTS``, the estimate/measured ratio of every case under the old and
the new costs, and the fit's residuals.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from scipy.optimize import nnls

from cnsim.bench import provenance
from cnsim.simulations.config import from_dict, load
from cnsim.simulations.sizes import COSTS, estimate, quantities

FITTED = ("subscription", "subscription_brokers", "list_slot", "subscription_approach")
PAD = 1.10  # the refitted costs are raised by 10%: the estimate must err high
EVENTS = 200  # enough to reach the steady state of every buffer; events cost little

# label -> changes to default.toml (dotted keys); the sizes vary one or two at a time
CASES: dict[str, dict] = {
    "m=0.5M ideal": {"subscriptions.count": 500_000, "overlay.kind": "ideal"},
    "m=1M ideal": {"subscriptions.count": 1_000_000, "overlay.kind": "ideal"},
    "m=2M ideal": {"overlay.kind": "ideal"},
    "m=2M ideal k=1": {"overlay.kind": "ideal", "subscriptions.k": 1},
    "m=2M ideal k=20": {"overlay.kind": "ideal", "subscriptions.k": 20},
    "m=2M ideal 1 approach": {"overlay.kind": "ideal", "algorithm.approaches": ["paint-dense"]},
    "m=2M ideal 3 approaches": {
        "overlay.kind": "ideal",
        "algorithm.approaches": ["paint-dense", "paint-sparse", "unicast"],
    },
    "m=0.5M Meghdoot": {"subscriptions.count": 500_000},
    "m=2M Meghdoot": {},
    "m=2M Meghdoot 3 approaches": {
        "algorithm.approaches": ["paint-dense", "paint-sparse", "unicast"],
    },
}
QUICK_CASES = ("m=0.5M ideal", "m=0.5M Meghdoot")
QUICK_SCALE = 0.2  # --quick: every count of subscriptions × 0.2

_CHILD = """
import json, resource, sys
from cnsim.simulations.config import from_dict
from cnsim.simulations.runner import simulate
scenario = from_dict(json.loads(sys.stdin.read()), "bench memory case")
simulate(scenario)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)  # KiB on Linux
"""


def scenario_of(changes: dict, scale: float = 1.0) -> dict:
    """``examples/default.toml`` as a dict with ``changes`` applied (and the subscription
    count scaled)."""
    data = load(Path(__file__).resolve().parents[2] / "examples" / "default.toml").as_dict()
    data["events"]["count"] = EVENTS
    data["run"] = {**data.get("run", {}), "progress": False}
    for dotted, value in changes.items():
        section, key = dotted.split(".")
        data[section][key] = value
    data["subscriptions"]["count"] = int(data["subscriptions"]["count"] * scale)
    return data


def measure_peak(data: dict) -> float:
    """Peak resident bytes of simulating ``data`` in a fresh Python process."""
    done = subprocess.run(
        [sys.executable, "-c", _CHILD], input=json.dumps(data), capture_output=True,
        text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"bench memory case failed: {done.stderr.strip()[-2000:]}")
    return float(done.stdout.split()[-1])


def fit(rows: list[dict], costs: dict[str, float] = COSTS) -> dict[str, float]:
    """``costs`` with the ``FITTED`` ones refitted (non-negative least squares) to the
    rows' measured peaks minus what the other costs account for, unpadded."""
    a = np.array([[r["quantities"][c] for c in FITTED] for r in rows], float)
    rest = np.array(
        [sum(costs[c] * q for c, q in r["quantities"].items() if c not in FITTED) for r in rows]
    )
    measured = np.array([r["measured"] for r in rows], float)
    scale = a.max(axis=0)
    scale[scale == 0] = 1.0
    solution, _ = nnls(a / scale, measured - rest)
    return {**costs, **{c: float(v) for c, v in zip(FITTED, solution / scale, strict=True)}}


def run_bench(quick: bool = False, full: bool = False) -> dict:
    """Every case measured; the costs refitted; old and new estimates beside the peaks."""
    started = time.perf_counter()
    names = QUICK_CASES if quick else tuple(CASES)
    scale = QUICK_SCALE if quick else 1.0
    from cnsim.network.cache import build_world

    build_world(from_dict(scenario_of({}, scale), "bench memory").network)  # for the cases
    rows = []
    for name in names:
        data = scenario_of(CASES[name], scale)
        scenario = from_dict(data, name)
        rows.append(
            {
                "case": name,
                "quantities": quantities(scenario),
                "measured": measure_peak(data),
                "estimate_before": estimate(scenario).total,
            }
        )
    fitted = fit(rows)
    padded = {**fitted, **{c: fitted[c] * PAD for c in FITTED}}
    for r in rows:
        r["estimate_fitted"] = sum(fitted[c] * q for c, q in r["quantities"].items())
        r["estimate_after"] = sum(padded[c] * q for c, q in r["quantities"].items())
        r["before_over_measured"] = r["estimate_before"] / r["measured"]
        r["after_over_measured"] = r["estimate_after"] / r["measured"]
    after = [r["after_over_measured"] for r in rows]
    return {
        **provenance("memory", quick, full),
        "events_per_case": EVENTS,
        "subscription_scale": scale,
        "cases": rows,
        "costs_before": {c: COSTS[c] for c in FITTED},
        "costs_fitted": {c: fitted[c] for c in FITTED},
        "costs_padded": {c: padded[c] for c in FITTED},
        "headline": {
            "estimate_over_measured_before": [round(r["before_over_measured"], 2) for r in rows],
            "estimate_over_measured_after": [round(x, 2) for x in after],
            "min_after": min(after),
        },
        "wall_s": time.perf_counter() - started,
    }
