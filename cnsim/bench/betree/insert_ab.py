"""``cnsim bench betree_insert --before REV``: the one-by-one BE*-tree build (seed 002's
dynamic BE*, ``insert_many`` in numba) of this checkout against an earlier revision,
side by side: the same workload built by each in turn, in alternating subprocesses (the
two revisions cannot share a process), so both see the same machine load.  Each build
must give the same tree (node counts and a digest of every node table), so only the
time differs.

Written for the move of ``_insert.py``'s tables from numba typed lists to numpy columns
with room to spare (RESULTS.md, "the one-by-one build on arrays").  REV is any git
revision (e.g. the commit before the change), exported with ``git archive`` into a
temporary folder.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

from cnsim.bench import provenance
from cnsim.bench.revisions import ROOT, alternating, commits, export, side_by_side

#: sizes and rounds: the published run (``--full``, also the default) and ``--quick``
FULL = {"n": [300_000, 1_000_000], "rounds": 2}
QUICK = {"n": [2_000], "rounds": 1}

#: one build in a subprocess: prints a JSON line {build_s, stats, digest, rss_mb}
CHILD = """
import hashlib, json, resource, sys, time
import numpy as np
try:
    from cnsim.subscriptions.ranked.boolean.workload import make_index as _make, workload
except ImportError:  # a revision from before the workloads' move
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
        export(before, old, "--before", "cnsim bench betree_insert")
        res["commits"] = commits(before)
        revs = {"before": old, "after": ROOT}
        for n in sizes:
            for dist in dists:
                runs = alternating(rounds, lambda lab, n=n, dist=dist: [_build(revs[lab], n, dist)],
                                   f"n={n} {dist}")  # fmt: skip
                for label, v in runs.items():  # each revision ran its own code
                    assert all(b["code"].startswith(str(revs[label])) for b in v), v
                res["points"].append(side_by_side(runs, n=n, dist=dist))
    return res


def run_bench(
    quick: bool = False,
    full: bool = False,
    before: str | None = None,
    n: list[int] | None = None,
    rounds: int | None = None,
) -> dict:
    """The side-by-side builds at the size form's sizes and rounds (or ``n``, ``rounds``)."""
    form = QUICK if quick else FULL
    sizes = form["n"] if n is None else n
    rounds = form["rounds"] if rounds is None else rounds
    res = run(str(before), sizes, rounds)
    given = {"before": before, "n": n, "rounds": rounds if rounds != form["rounds"] else None}
    res["provenance"] = provenance("betree_insert", quick, full, given)
    res["max_rss_mb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    res["headline"] = {
        f"n={p['n']:,} {p['dist']}": f"before {min(p['build_s']['before']):.1f} s, after "
        f"{min(p['build_s']['after']):.1f} s, {p['speedup']:.2f}x, same tree {p['same_tree']}"
        for p in res["points"]
    }
    return res
