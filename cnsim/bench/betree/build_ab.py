"""BE*-B (the BE*-tree's bulk load) of this checkout's ``_build.py`` against a copy of
an earlier one, side by side in one process: ``python -m cnsim.bench.betree.build_ab
OLD_BUILD_PY [--n 1000000] [--rounds 3] [--check 20000] [--json FILE]``.

Both modules are swapped in turn into ``betree`` (its ``B``), the order alternating per
round, each timing ``insert_many`` of Table III's default workload (seed 0, match
probability 0.1%) on an empty ``betree_star`` tree (``bulk=True``) after a warm-up
build of each (no numba compilation in the times).  Every build's tree is compared with
the first one's: every array column of the index (``cn_``, ``pn_``, ``bk_``,
``sub_cnode``, the box pool) and every list of its slabs (l-nodes, p-directories,
weight summaries), list by list.  ``--check N`` also compares the two at N
subscriptions, uniform and Zipf, for BE*-B and the BE-tree's bulk load.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import sys
import time
from array import array

import numpy as np

from cnsim.subscriptions.ranked.boolean import _build as NEW
from cnsim.subscriptions.ranked.boolean import betree
from cnsim.subscriptions.ranked.boolean.betree import Slab
from cnsim.subscriptions.ranked.boolean.workload import make_index, workload


def load(path: str):
    """The module at ``path`` (a copy of ``_build.py``) under its own name."""
    spec = importlib.util.spec_from_file_location("_build_before", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # (numba's cache finds the module by name)
    spec.loader.exec_module(mod)
    return mod


def tree(ix) -> dict:
    """Every node table of ``ix``: array columns as bytes, slabs list by list."""
    out = {}
    for k, v in sorted(vars(ix).items()):
        if isinstance(v, array | np.ndarray):
            out[k] = np.asarray(v).tobytes()
        elif isinstance(v, Slab):
            out[k] = [
                [p[s : s + n].tobytes() for p in v.pools]
                for s, n in zip(v.start, v.length, strict=True)
            ]
    return out


def build(mod, subs, w, name="betree_star"):
    """Time BE*-B (or the BE-tree's bulk load) of ``subs`` with ``mod`` as ``_build``."""
    betree.B = mod
    try:
        ix = make_index(name, w, bulk=True)
        t = time.perf_counter()
        ix.insert_many(subs)
        return time.perf_counter() - t, ix
    finally:
        betree.B = NEW


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old")
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--check", type=int, default=20_000)
    ap.add_argument("--dists", default="uniform,zipf")
    ap.add_argument("--json")
    a = ap.parse_args(argv)
    mods = {"before": load(a.old), "after": NEW}
    res = {
        "n": a.n, "rounds": a.rounds, "old": a.old,
        "command": "python -m cnsim.bench.betree.build_ab " + " ".join(argv or sys.argv[1:]),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": f"vm {platform.machine()}", "nproc": os.cpu_count(),
        "method": "one process; the old _build.py (a copy) and the working tree's swapped "
                  "in turn into betree.py, alternating per round; every build's node tables "
                  "compared with the first's",
        "checks": [], "points": [],
    }  # fmt: skip
    dists = a.dists.split(",")
    for dist in dists:  # warm-up (compilation) and the small same-tree checks
        s0, _, w0 = workload(1, 1, n=a.check or 300, dist=dist)
        for name in ("betree_star", "betree"):
            ts = {k: tree(build(m, s0, w0, name)[1]) for k, m in mods.items()}
            same = ts["before"] == ts["after"]
            res["checks"].append({"n": a.check, "dist": dist, "tree": name, "same_tree": same})
            print(f"check n={a.check} {dist} {name}: same tree {same}", flush=True)
    for dist in dists:
        subs, _, w = workload(0, 1, n=a.n, dist=dist)
        times: dict = {"before": [], "after": []}
        first, same, stats = None, True, None
        for r in range(a.rounds):
            for label in ("before", "after")[:: 1 if r % 2 == 0 else -1]:
                dt, ix = build(mods[label], subs, w)
                times[label].append(dt)
                t = tree(ix)
                if first is None:
                    first = t
                    stats = {k: int(v) for k, v in ix.stats().items()
                             if isinstance(v, int | np.integer)}  # fmt: skip
                else:
                    same = same and t == first
                del ix, t
                print(f"  n={a.n} {dist} {label}: {dt:.2f} s", flush=True)
        per = [b / f for b, f in zip(times["before"], times["after"], strict=True)]
        best = min(times["before"]) / min(times["after"])
        res["points"].append({"dist": dist, "build": "BE*-B (bulk)", "build_s": times,
                              "same_tree": same, "stats": stats, "speedup_per_round": per,
                              "speedup_best": best})  # fmt: skip
        print(f"{dist}: before {times['before']}, after {times['after']}, per round "
              f"{[round(x, 2) for x in per]}, best/best {best:.2f}x, same tree {same}")  # fmt: skip
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)
    return res


if __name__ == "__main__":
    main()
