"""The one-by-one BE*-tree build (seed 002's dynamic BE*, ``insert_many`` in numba) of
this checkout against an earlier revision, side by side: the same workload built by
each in turn, in alternating subprocesses (the two revisions cannot share a process),
so both see the same machine load.  Each build must give the same tree (node counts and
a digest of every node table), so only the time differs.

Written for the move of ``_insert.py``'s tables from numba typed lists to numpy columns
with room to spare (RESULTS.md, "the one-by-one build on arrays").

Run: ``python benchmarks/betree_insert.py --before REV [--n 300000,1000000]
[--rounds 3] [--json benchmarks/betree_insert.json]`` (REV: any git revision, e.g. the
commit before the change; it is exported with ``git archive`` into a temporary folder).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

from cnsim.bench import provenance

ROOT = Path(__file__).resolve().parent.parent

#: one build in a subprocess: prints a JSON line {build_s, stats, digest, rss_mb}
CHILD = """
import hashlib, json, resource, sys, time
import numpy as np
from cnsim.bench.betree import _make, workload
n, dist = int(sys.argv[1]), sys.argv[2]
s0, _, w0 = workload(1, 1, n=300, dist=dist)
_make("betree_star", w0, bulk=False).insert_many(s0)  # compile / load the cache
subs, _, w = workload(0, 1, n=n, dist=dist)
ix = _make("betree_star", w, bulk=False)
t = time.perf_counter()
ix.insert_many(subs)
dt = time.perf_counter() - t
h = hashlib.sha256()
for name in ("sub_cnode", "cn_bucket", "pn_attr", "pn_count", "bk_left", "bk_right",
             "bk_lo", "bk_hi", "bk_olo", "bk_ohi"):
    h.update(np.asarray(getattr(ix, name)).tobytes())
st = {k: int(v) for k, v in ix.stats().items() if isinstance(v, (int, np.integer))}
import cnsim
print(json.dumps({"build_s": dt, "stats": st, "digest": h.hexdigest(), "code": cnsim.__file__,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def _export(rev: str, into: Path) -> None:
    """``git archive rev`` of this repository, unpacked into ``into``."""
    try:
        tar = subprocess.run(["git", "-C", str(ROOT), "archive", rev], check=True,
                             capture_output=True).stdout  # fmt: skip
    except subprocess.CalledProcessError as e:
        sys.exit(f"--before: git cannot export revision {rev!r}: "
                 f"{e.stderr.decode().strip()}")  # fmt: skip
    subprocess.run(["tar", "-x", "-C", str(into)], input=tar, check=True)


def _build(path: Path, n: int, dist: str) -> dict:
    # run in the revision's folder: ``python -c`` puts the working directory first on
    # sys.path, before PYTHONPATH
    env = {**os.environ, "PYTHONPATH": str(path)}
    out = subprocess.run([sys.executable, "-c", CHILD, str(n), dist], env=env, check=True,
                         capture_output=True, text=True, cwd=path).stdout  # fmt: skip
    return json.loads(out.strip().splitlines()[-1])


def run(before: str, sizes, rounds: int, dists=("uniform", "zipf")) -> dict:
    """Per size and distribution, ``rounds`` rounds of one build by each revision (the
    order alternating); the best and every build time of each, their ratio (best over
    best), and whether every build of both gave the same tree."""
    res: dict = {"before": before, "rounds": rounds, "points": []}
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp)
        _export(before, old)
        revs = {"before": old, "after": ROOT}
        for n in sizes:
            for dist in dists:
                runs: dict = {"before": [], "after": []}
                for r in range(rounds):
                    for label in ("before", "after")[:: 1 if r % 2 == 0 else -1]:
                        runs[label].append(_build(revs[label], n, dist))
                        print(f"  n={n} {dist} {label}: {runs[label][-1]['build_s']:.1f} s",
                              flush=True)  # fmt: skip
                for label, v in runs.items():  # each revision ran its own code
                    assert all(b["code"].startswith(str(revs[label])) for b in v), v
                digests = {b["digest"] for v in runs.values() for b in v}
                best = {k: min(b["build_s"] for b in v) for k, v in runs.items()}
                res["points"].append({
                    "n": n, "dist": dist, "same_tree": len(digests) == 1,
                    "stats": runs["after"][0]["stats"],
                    "build_s": {k: [b["build_s"] for b in v] for k, v in runs.items()},
                    "rss_mb": {k: max(b["rss_mb"] for b in v) for k, v in runs.items()},
                    "speedup": best["before"] / best["after"],
                })  # fmt: skip
    return res


def main() -> None:
    ap = argparse.ArgumentParser(prog="python benchmarks/betree_insert.py")
    ap.add_argument("--before", required=True, help="git revision to compare against")
    ap.add_argument("--n", default="300000,1000000", help="comma-separated sizes")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", type=Path, default=ROOT / "benchmarks" / "betree_insert.json")
    args = ap.parse_args()
    try:
        sizes = [int(x) for x in args.n.split(",")]
    except ValueError:
        ap.error(f"--n: {args.n!r} is not a comma-separated list of sizes")
    if any(s < 1000 for s in sizes) or args.rounds < 1:
        ap.error("--n: every size must be >= 1000; --rounds: at least 1")
    if not args.json.parent.is_dir():
        ap.error(f"--json: directory {str(args.json.parent)!r} does not exist")
    res = run(args.before, sizes, args.rounds)
    cmd = "python benchmarks/betree_insert.py " + " ".join(sys.argv[1:])
    res["provenance"] = {**provenance("betree_insert", False), "command": cmd}
    res["max_rss_mb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    tmp = args.json.with_suffix(".tmp")
    tmp.write_text(json.dumps(res, indent=1) + "\n")
    tmp.replace(args.json)
    for p in res["points"]:
        b = p["build_s"]
        print(f"n={p['n']:,} {p['dist']}: before {min(b['before']):.1f} s, after "
              f"{min(b['after']):.1f} s, {p['speedup']:.2f}x, same tree {p['same_tree']}")


if __name__ == "__main__":
    main()
