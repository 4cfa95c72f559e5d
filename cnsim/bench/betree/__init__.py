"""BE*-tree benchmark (seed 002 §VII, Table III, Figures 6-9): ``cnsim bench betree``.

Build time, matching time and top-1 / top-5 / top-k time of the BE*-tree, the BE-tree,
the k-index and a sequential scan on synthetic workloads after Table III
(:mod:`cnsim.subscriptions.ranked.boolean.workload`), varying one parameter at a time
(subscription count, dimensions, cardinality, number of clusters, match probability),
for uniform and Zipf attribute choice.  Query times come from ``top_k_batch`` /
``count_batch`` (the event loop runs in numba); the builds run in numba too (BE*-B and
the BE-tree's bulk load in ``_build.build_main``, the one-by-one BE* in
``_insert.insert_many``), the k-index's in numba (two passes, a counting sort).

* ``--quick``: the small one-by-one sweeps (:data:`.plans.QUICK_AXES`) and tiny points
  of Table III's size column and DBLP-like workloads (:data:`.plans.QUICK_TABLE3`);
* no size option: :func:`.harness.run_full`, every figure at 100,000 subscriptions;
* ``--full``: :func:`.harness.run_full_1m`, the numba builds' speed-ups over their
  Python references, Fig 8 up to 1M and Fig 9 at 1M with every structure
  (:data:`.plans.FULL_1M_STRUCTURES`; RESULTS.md "Full run, dynamic BE* and BE-tree at
  1M");
* ``--table 3 [--figures F,..]``: :func:`.harness.run_table3`, Table III's "Sub/Event
  Size" column (a paired axis, sizes moving together) and its DBLP-driven workloads,
  Fig 8's author and title panels and the "Match Prob (Author / Title)" variants, on our
  DBLP-like stand-in for BEGen's DBLP data
  (:mod:`cnsim.subscriptions.ranked.boolean.dblp_like`, where every assumption is
  written down); RESULTS.md "Table III's size sweep and DBLP-like workloads".

* ``--figures F,..`` without ``--table``: :mod:`.intervals`, BE*-B against the k-index
  at the points of those figures (among Figures 6-9) at 100,000 subscriptions, in
  repeated rounds alternating the two, each matching time and their ratio with a 90%
  interval (RESULTS.md "BE*-B against the k-index with 90% intervals"); with
  ``--quick`` at a toy size.

``--full`` and ``--table 3`` rewrite the ``--json`` file after every point, and
``--resume`` measures only what that file does not hold yet.  ``--tables FILE`` prints
the Markdown tables of such a result (RESULTS' tables are its output) and runs nothing.
"""

from __future__ import annotations

import json as _json
import time
from pathlib import Path

from cnsim.bench import provenance
from cnsim.bench.betree.harness import (
    build_rates,
    merge_full,
    run_full,
    run_full_1m,
    run_table3,
    sweep,
)
from cnsim.bench.betree.intervals import FIGURES as INTERVAL_FIGURES
from cnsim.bench.betree.intervals import run_bench as run_intervals
from cnsim.bench.betree.paper import headline
from cnsim.bench.betree.plans import (
    FULL_AXES,
    QUICK_AXES,
    QUICK_BUILDS,
    QUICK_EVENTS,
    QUICK_N,
    QUICK_TABLE3,
    STRUCTURES,
    TABLE3_FIGS,
)
from cnsim.bench.betree.results import json_default, shape_problem
from cnsim.bench.betree.tables import tables as markdown_tables
from cnsim.errors import InputError
from cnsim.outputs import STAMP, write_file
from cnsim.schema import config_error
from cnsim.subscriptions.ranked.boolean.workload import DEFAULTS


def run_bench(
    quick: bool = False,
    full: bool = False,
    table: int | None = None,
    figures: list[str] | None = None,
    resume: bool = False,
    tables: str | None = None,
    json: str | None = None,
) -> dict:
    """The run the options name (see the module's doc); ``json`` is the --json file,
    rewritten after every point of the long runs."""
    if tables is not None:
        return {"text": markdown_tables(_result_file(tables, "--tables")), "headline": {}}
    if figures is not None and table is None:  # the interval run
        bad = [f for f in figures if f not in INTERVAL_FIGURES]
        if bad or not figures or full or resume:
            raise config_error("cnsim bench betree", "--figures", figures, "names an unknown "
                               "figure" if bad or not figures else "is given with --full or "
                               "--resume", "figures among " + ", ".join(INTERVAL_FIGURES)
                               + " (alone or with --quick), or with --table 3")  # fmt: skip
        return run_intervals(quick=quick, figures=figures)
    if resume and not (full or table):
        raise config_error("cnsim bench betree", "--resume", True, "is given without --full "
                           "or --table", "--resume with --full or --table 3")  # fmt: skip
    if not (full or table):
        return _quick() if quick else merge_full([run_full()])
    if quick:
        raise config_error("cnsim bench betree", "--table", table, "is given with --quick",
                           "--table 3 alone or with --resume")  # fmt: skip
    prior = _result_file(json, "--json") if resume else None
    write = _writer(json)
    if table:
        figures = list(TABLE3_FIGS) if figures is None else figures
        bad = [f for f in figures if f not in FULL_AXES]
        if bad or not figures:
            raise config_error("cnsim bench betree", "--figures", figures, "names an unknown "
                               "figure", "figures among " + ", ".join(FULL_AXES))  # fmt: skip
        res = run_table3(figures, on_point=write, prior=prior)
    else:
        res = run_full_1m(on_point=write, prior=prior)
    write(res)
    return {**res, "written": json is not None}


def _quick() -> dict:
    """The small one-by-one sweeps, the build rates and the quick points of Table III."""
    base = {"n": QUICK_N}
    t0 = time.perf_counter()
    res = {"provenance": provenance("betree", True), "defaults": {**DEFAULTS, **base},
           "events": QUICK_EVENTS, "structures": list(STRUCTURES), "figures": {}}  # fmt: skip
    figs = res["figures"]
    res["build"] = build_rates(*QUICK_BUILDS, QUICK_EVENTS)
    for fig, (axis, values) in QUICK_AXES.items():
        figs[fig] = sweep(axis, values, base, QUICK_EVENTS)
    for fig, (axis, values, b) in QUICK_TABLE3.items():
        figs[fig] = sweep(axis, values, b, QUICK_EVENTS, dists=("real",) if "dist" in b else
                          ("uniform", "zipf"))  # fmt: skip
    res["wall_s"] = time.perf_counter() - t0
    res["headline"] = headline(res)
    return res


def _result_file(path: str | None, option: str) -> dict:
    """A result of this benchmark read back (to resume it, or to print its tables)."""
    try:
        prior = _json.loads(Path(str(path)).read_text())
    except (OSError, ValueError) as e:
        raise InputError(f"cnsim bench betree: {option} = {path!r} cannot be read: {e}") from None
    if isinstance(prior, dict):
        prior.pop(STAMP, None)  # written anew with the result
    if not isinstance(prior, dict) or not all(k in prior for k in ("figures", "structures")):
        raise InputError(f"cnsim bench betree: {option} = {path!r} holds no 'figures' and "
                         "'structures' (not a result of this benchmark)")  # fmt: skip
    problem = shape_problem(prior, FULL_AXES)
    if problem is not None:
        raise InputError(f"cnsim bench betree: {option} = {path!r}: {problem}; expected a "
                         "result of cnsim bench betree --full or --table 3 (--json)")  # fmt: skip
    return prior


def _writer(path: str | None):
    """A callback writing a (partial) result to ``path`` atomically; none without one."""

    def write(res: dict) -> None:
        if path is None:
            return
        text = _json.dumps(res, indent=1, default=json_default) + "\n"
        write_file(Path(path), text, "--json")  # stamped: a later run may replace it

    return write
