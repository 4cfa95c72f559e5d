"""``cnsim bench betree_build --before REV``: BE*-B, the BE*-tree's bulk load (seed
002's Algorithms 4 and 5 applied top-down to a batch, ``_build.py`` in numba), of this
checkout against an earlier revision, side by side: the same workload built by each in
turn, in alternating subprocesses (the two revisions cannot share a process), so both
see the same machine load.  Every build must give the same tree, node for node: a
digest of every array column of the index and of every list of its slabs (l-nodes,
p-directories, weight summaries), list by list.

Each point is ``insert_many`` of Table III's default workload (seed 0, match
probability 0.1%) into an empty ``betree_star`` (``bulk=True``), timed after a warm-up
build in the same process (no numba compilation or cache loading in the times: the
warm-up builds 25,000 expressions, enough to run the threaded build's kernels too).
With ``--threads T`` the working copy builds on T threads (``build_threads``: the
deferred subtrees of ``_bulk_threads``), the earlier revision on one (``--before
WORKTREE --threads 2``: one thread against two, the same code).  Before the timed
rounds both revisions' trees are also compared at ``--check`` subscriptions (seed 1),
uniform and Zipf, for BE*-B and for the BE-tree's bulk load, on those threads.  REV is
any git revision (e.g. the commit before a change), exported with ``git archive`` into
a temporary folder; the one-by-one build has its own entry, ``cnsim bench
betree_insert``.
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

#: sizes, rounds and the same-tree check's size: the published run (``--full``, also
#: the default) and ``--quick``
FULL = {"n": [1_000_000], "rounds": 3, "check": 20_000}
QUICK = {"n": [2_000], "rounds": 1, "check": 1_000}

#: builds in a subprocess: ``n dist seed tree[,tree..] threads``; prints a JSON line per
#: tree {tree, build_s, stats, digest, code, rss_mb} (``build_threads`` is passed only
#: above one thread: an earlier revision may not know it)
CHILD = """
import hashlib, json, resource, sys, time
from array import array
import numpy as np
from cnsim.subscriptions.ranked.boolean.betree import Slab
from cnsim.subscriptions.ranked.boolean.workload import make_index, workload
n, dist, seed, trees = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4].split(",")
kw = {"build_threads": int(sys.argv[5])} if int(sys.argv[5]) > 1 else {}

def digest(ix):
    h = hashlib.sha256()
    for k, v in sorted(vars(ix).items()):
        if isinstance(v, (array, np.ndarray)):
            h.update(k.encode() + b":" + np.asarray(v).tobytes())
        elif isinstance(v, Slab):
            h.update(k.encode())
            for s, m in zip(v.start, v.length):
                h.update(b"|" + b"".join(p[s : s + m].tobytes() for p in v.pools))
    return h.hexdigest()

s0, _, w0 = workload(1, 1, n=min(n, 25_000), dist=dist)  # (past the threaded build's start)
for name in trees:  # compile / load the cache
    make_index(name, w0, bulk=True, **kw).insert_many(s0)
subs, _, w = workload(seed, 1, n=n, dist=dist)
import cnsim
for name in trees:
    ix = make_index(name, w, bulk=True, **kw)
    t = time.perf_counter()
    ix.insert_many(subs)
    dt = time.perf_counter() - t
    st = {k: int(v) for k, v in ix.stats().items() if isinstance(v, (int, np.integer))}
    print(json.dumps({"tree": name, "build_s": dt, "stats": st, "digest": digest(ix),
                      "code": cnsim.__file__,
                      "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
    del ix
"""


def _builds(path: Path, n: int, dist: str, seed: int, trees: tuple[str, ...],
            threads: int = 1) -> list[dict]:  # fmt: skip
    # run in the revision's folder: ``python -c`` puts the working directory first on
    # sys.path, before PYTHONPATH
    env = {**os.environ, "PYTHONPATH": str(path)}
    argv = [sys.executable, "-c", CHILD, str(n), dist, str(seed), ",".join(trees), str(threads)]
    out = subprocess.run(argv, env=env, check=True, capture_output=True, text=True,
                         cwd=path).stdout  # fmt: skip
    rows = [json.loads(line) for line in out.strip().splitlines() if line.startswith("{")]
    assert all(r["code"].startswith(str(path)) for r in rows), rows  # its own code ran
    return rows


def run(before: str, sizes, rounds: int, check: int, dists=("uniform", "zipf"),
        threads: int = 1) -> dict:  # fmt: skip
    """Per distribution, the same-tree checks at ``check`` (BE*-B and the BE-tree's bulk
    load, one build by each revision), then per size ``rounds`` rounds of one BE*-B
    build by each revision (the order alternating; the working copy's on ``threads``
    threads): every build time of each, the ratio per round and best over best, and
    whether every build of both gave the same tree."""
    res: dict = {"before": before, "rounds": rounds, "check": check, "threads": threads,
                 "checks": [], "points": []}  # fmt: skip
    on = {"before": 1, "after": threads}
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp)
        export(before, old, "--before", "cnsim bench betree_build")
        res["commits"] = commits(before)
        revs = {"before": old, "after": ROOT}
        for dist in dists:
            trees = ("betree_star", "betree")
            got = {k: _builds(p, check, dist, 1, trees, on[k]) for k, p in revs.items()}
            for b, a in zip(got["before"], got["after"], strict=True):
                same = b["digest"] == a["digest"]
                res["checks"].append({"n": check, "dist": dist, "tree": a["tree"],
                                      "same_tree": same})  # fmt: skip
                print(f"  check n={check} {dist} {a['tree']}: same tree {same}", flush=True)
        for n in sizes:
            for dist in dists:
                def bulk(label: str, n=n, dist=dist) -> list[dict]:
                    return _builds(revs[label], n, dist, 0, ("betree_star",), on[label])

                runs = alternating(rounds, bulk, f"n={n} {dist}")
                res["points"].append(side_by_side(runs, n=n, dist=dist, build="BE*-B (bulk)"))
    return res


def run_bench(
    quick: bool = False,
    full: bool = False,
    before: str | None = None,
    n: list[int] | None = None,
    rounds: int | None = None,
    check: int | None = None,
    threads: int | None = None,
) -> dict:
    """The side-by-side builds at the size form's sizes, rounds and check size (or
    ``n``, ``rounds``, ``check``)."""
    form = QUICK if quick else FULL
    sizes = form["n"] if n is None else n
    res = run(str(before), sizes, form["rounds"] if rounds is None else rounds,
              form["check"] if check is None else check, threads=threads or 1)  # fmt: skip
    res["provenance"] = provenance(
        "betree_build", quick, full,
        {"before": before, "n": n, "rounds": rounds, "check": check, "threads": threads},
    )
    res["max_rss_mb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    res["headline"] = {
        **{f"check n={c['n']:,} {c['dist']} {c['tree']}": f"same tree {c['same_tree']}"
           for c in res["checks"]},
        **{f"n={p['n']:,} {p['dist']}": f"before {min(p['build_s']['before']):.2f} s, after "
           f"{min(p['build_s']['after']):.2f} s on {res['threads']} thread(s), "
           f"{p['speedup']:.2f}x, same tree {p['same_tree']}" for p in res["points"]},
    }  # fmt: skip
    return res
