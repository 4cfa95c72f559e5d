"""One run of each subscription kind over the Meghdoot overlay, by this checkout and by
an earlier revision, side by side: the same scenario run by each in turn, in
alternating subprocesses (the two revisions cannot share a process), so both see the
same machine load. Each run must give the same per-event counts (a digest of the events
frame without its time columns), so only the time differs.

Written for the redesign that made the subscription kind one interface and the
Meghdoot overlay one D-dimensional implementation (RESULTS.md, "One simulator: the run
loop before and after").

Run: ``python benchmarks/run_loop_ab.py --before REV [--after REV] [--rounds 2]
[--json FILE]`` (any git revisions, ``--after`` HEAD by default; each is exported with
``git archive`` into a temporary folder; both share this checkout's world cache).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from cnsim.bench import provenance

ROOT = Path(__file__).resolve().parent.parent

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


def _export(rev: str, into: Path) -> None:
    """``git archive rev`` of this repository, unpacked into ``into``."""
    try:
        tar = subprocess.run(["git", "-C", str(ROOT), "archive", rev], check=True,
                             capture_output=True).stdout  # fmt: skip
    except subprocess.CalledProcessError as e:
        sys.exit(f"--before: git cannot export revision {rev!r}: {e.stderr.decode().strip()}")
    subprocess.run(["tar", "-x", "-C", str(into)], input=tar, check=True)


def _run(folder: Path, over: dict) -> dict:
    """One run by the code in ``folder`` (its cnsim first on the path)."""
    cache = os.environ.get("CNSIM_CACHE", str(ROOT / ".cnsim-cache"))  # one world build
    env = {**os.environ, "PYTHONPATH": str(folder), "CNSIM_CACHE": cache}
    argv = [sys.executable, "-c", CHILD, json.dumps(over), str(EVENTS)]
    out = subprocess.run(argv, cwd=folder, env=env, check=True, capture_output=True, text=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["code"].startswith(str(folder)), (got["code"], folder)  # ran the code asked
    return got


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True, help="the earlier git revision")
    ap.add_argument("--after", default="HEAD", help="the later git revision")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        before, after = Path(tmp) / "before", Path(tmp) / "after"
        for rev, folder in ((args.before, before), (args.after, after)):
            folder.mkdir()
            _export(rev, folder)
        for name, over in SCENARIOS.items():
            small = {**over, "subscriptions": {**over["subscriptions"], "count": 2000}}
            for folder in (before, after):  # compile / load the caches first
                _run(folder, small)
            for r in range(args.rounds):
                order = (("before", before), ("after", after))[:: 1 if r % 2 == 0 else -1]
                got = {side: _run(folder, over) for side, folder in order}
                same = got["before"]["digest"] == got["after"]["digest"]
                ratio = {a: got["after"]["per_event_ms"][a] / got["before"]["per_event_ms"][a]
                         for a in got["after"]["per_event_ms"]}  # fmt: skip
                row = {"scenario": name, "round": r, "same_counts": same, "ratio": ratio,
                       "setup_ratio": got["after"]["setup_s"] / got["before"]["setup_s"],
                       **got}  # fmt: skip
                rows.append(row)
                print(json.dumps(row), flush=True)
    if args.json:
        command = (f"python benchmarks/run_loop_ab.py --before {args.before} "
                   f"--after {args.after} --rounds {args.rounds}")
        record = {"provenance": {**provenance("", False), "command": command},
                  "before": args.before, "after": args.after, "rows": rows}  # fmt: skip
        args.json.write_text(json.dumps(record, indent=2) + "\n")


if __name__ == "__main__":
    main()
