"""``cnsim bench run_loop --before REV [--after REV]``: one run of each subscription kind
over the Meghdoot overlay, by two revisions of this repository, side by side: the same
scenario run by each in turn, in alternating subprocesses (the two revisions cannot share
a process), so both see the same machine load. Each run must give the same per-event
counts (a digest of the events frame without its time columns), so only the time
differs.

It measures the whole run loop of a scenario per kind (setup time, and server plus
delivery time per event and approach) and reports the ratio after / before per round,
so a change to the shared run loop, the subscription kinds or the D-dimensional Meghdoot
overlay shows its cost on every kind at once (RESULTS.md, "One simulator: the run loop
before and after").  Both revisions (``--after`` HEAD by default) are exported with
``git archive`` into a temporary folder (``WORKTREE``: the working copy as it is, with
its uncommitted changes); both share this checkout's world cache.
``--quick`` runs the scenarios at 2,000 subscriptions and 20 events, one round.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from cnsim.bench import provenance
from cnsim.bench.revisions import ROOT, export

#: the scenarios: seed 003's world (1,000 brokers on a 20,000-node topology) and k = 10
SCENARIOS = {
    "range (m = 2,000,000)": {"subscriptions": {"count": 2_000_000, "k": 10}},
    "range-1.5d (m = 200,000)": {"subscriptions": {"count": 200_000, "k": 10,
                                                   "kind": "range-1.5d"}},  # fmt: skip
    "box d = 2 (m = 200,000)": {
        "subscriptions": {"count": 200_000, "k": 10, "kind": "box", "dims": 2},
        "objects": {"count": 2000},
    },
}
EVENTS = 200

#: one run in a subprocess: prints a JSON line {setup_s, per_event_ms, digest, code}
CHILD = """
import hashlib, json, sys
import cnsim
from cnsim.simulations.runner import simulate
over = json.loads(sys.argv[1])
base = {"seed": 3, "events": {"count": int(sys.argv[2])}, "network": {"ip_nodes": 20000,
        "brokers": 1000}, "overlay": {"kind": "meghdoot"}, "run": {"progress": False},
        "algorithm": {"approaches": ["paint-dense", "paint-sparse", "unicast", "cn-relax"]}}
for section, values in over.items():
    base.setdefault(section, {}).update(values)
r = simulate(cnsim.Scenario(**base))
ev = r.events
times = ev.groupby("approach")[["server_time_s", "delivery_time_s"]].mean() * 1000
counts = ev.drop(columns=[c for c in ev.columns if c.endswith("time_s")])
digest = hashlib.sha256(counts.to_csv(index=False).encode()).hexdigest()
print(json.dumps({"setup_s": r.summary["setup_time_s"],
                  "per_event_ms": {a: float(row.sum()) for a, row in times.iterrows()},
                  "digest": digest, "code": cnsim.__file__}))
"""


def _run(folder: Path, over: dict, events: int = EVENTS) -> dict:
    """One run by the code in ``folder`` (its cnsim first on the path)."""
    cache = os.environ.get("CNSIM_CACHE", str(ROOT / ".cnsim-cache"))  # one world build
    env = {**os.environ, "PYTHONPATH": str(folder), "CNSIM_CACHE": cache}
    argv = [sys.executable, "-c", CHILD, json.dumps(over), str(events)]
    out = subprocess.run(argv, cwd=folder, env=env, check=True, capture_output=True, text=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["code"].startswith(str(folder)), (got["code"], folder)  # ran the code asked
    return got


def run_bench(
    quick: bool = False,
    full: bool = False,
    before: str | None = None,
    after: str | None = None,
    rounds: int | None = None,
) -> dict:
    """Every scenario: a small run by each revision first (caches), then ``rounds`` rounds
    of one run each, the order alternating; per round the ratio after / before."""
    after = after or "HEAD"
    rounds = (1 if quick else 2) if rounds is None else rounds
    events = 20 if quick else EVENTS
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folders = {"before": Path(tmp) / "before", "after": Path(tmp) / "after"}
        for (side, folder), rev in zip(folders.items(), (before, after), strict=True):
            folder.mkdir()
            export(str(rev), folder, f"--{side}", "cnsim bench run_loop")
        for name, over in SCENARIOS.items():
            small = {**over, "subscriptions": {**over["subscriptions"], "count": 2000}}
            for folder in folders.values():  # compile / load the caches first
                _run(folder, small, events)
            for r in range(rounds):
                order = list(folders.items())[:: 1 if r % 2 == 0 else -1]
                got = {side: _run(folder, small if quick else over, events)
                       for side, folder in order}  # fmt: skip
                same = got["before"]["digest"] == got["after"]["digest"]
                ratio = {a: got["after"]["per_event_ms"][a] / got["before"]["per_event_ms"][a]
                         for a in got["after"]["per_event_ms"]}  # fmt: skip
                row = {"scenario": name, "round": r, "same_counts": same, "ratio": ratio,
                       "setup_ratio": got["after"]["setup_s"] / got["before"]["setup_s"],
                       **got}  # fmt: skip
                rows.append(row)
                print(json.dumps(row), flush=True)
    given = {"before": before, "after": after, "rounds": rounds}
    headline = {f"{r['scenario']} round {r['round']}": {**r["ratio"], "same": r["same_counts"]}
                for r in rows}  # fmt: skip
    return {"provenance": provenance("run_loop", quick, full, given), "before": before,
            "after": after, "rows": rows, "headline": headline}  # fmt: skip
