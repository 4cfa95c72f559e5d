"""The public Python API: what notebooks and scripts call (the CLI is a thin layer over
the same functions).

>>> import cnsim
>>> sc = cnsim.Scenario(seed=7, objects={"count": 300}, subscriptions={"count": 3000, "k": 5},
...                     events={"count": 50}, overlay={"kind": "ideal"},
...                     algorithm={"approaches": ["paint-dense", "unicast"]})
>>> result = cnsim.run(sc)
>>> result.summary["approaches"]["paint-dense"]["redundancy"]
0.0
>>> cnsim.verify(sc).ok
True

Every metric of ``result.events``, ``result.brokers`` and ``result.summary`` is
described in :data:`cnsim.CATALOG` (unit, label, the paper's figure it mirrors).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from cnsim.errors import API
from cnsim.simulations.config import Scenario
from cnsim.simulations.launch import run_result
from cnsim.simulations.metrics import CATALOG, Catalog, Metric
from cnsim.simulations.result import Result
from cnsim.simulations.verify import Report

__all__ = [
    "CATALOG", "Catalog", "Metric", "Report", "Result", "Scenario", "report", "run", "sweep",
    "verify",
]  # fmt: skip


def run(
    scenario: Scenario,
    out: str | Path | None = None,
    events: int | None = None,
    overwrite: bool = False,
    master: str | None = None,
) -> Result:
    """Run ``scenario`` (counting or timed mode, as it says); write its outputs into
    ``out`` if given (a new or empty folder, or an earlier run's; ``overwrite``: any
    folder cnsim wrote). ``events`` overrides the number of events. With
    ``run.partitions`` > 1, or a Spark ``master`` URL, its subscriptions are spread over
    Spark tasks (the same results).

    >>> result = cnsim.run(cnsim.Scenario.from_toml("examples/small.toml"), events=20)
    >>> result.events.groupby("approach")["delivered_msgs"].mean()  # doctest: +SKIP
    """
    return run_result(scenario, out, events, overwrite, API, master)


def verify(scenario: Scenario, events: int | None = None, master: str | None = None) -> Report:
    """Check every approach of ``scenario`` against the brute-force oracle after every
    event (batch); ``report.ok``, ``report.text()``. Use small scenarios: the oracle
    costs O(m·n) per event. With ``run.partitions`` > 1 (or a Spark ``master``), each
    partition checks its subscriptions.

    >>> cnsim.verify(cnsim.Scenario.from_toml("examples/small.toml"), events=30).ok
    True
    """
    from cnsim.simulations.config import check_call
    from cnsim.simulations.launch import verify as verify_scenario
    from cnsim.simulations.progress import interval_s

    check_call(scenario, events)
    if scenario["run"]["progress"]:
        interval_s()  # a bad $CNSIM_PROGRESS_S fails before any work
    return verify_scenario(scenario, events, master, API)


def sweep(
    path: str | Path,
    out: str | Path,
    *,
    master: str | None = None,
    serial: bool = False,
    quick: bool = False,
    repeat: int | None = None,
    overwrite: bool = False,
) -> pd.DataFrame:
    """Run the sweep file ``path`` into the dataset ``out`` (on Spark unless ``serial``;
    runs already there are skipped) and return its rows, one per run and approach.
    ``out`` must be new, empty or this sweep's dataset (``overwrite``: any folder cnsim
    wrote).

    >>> rows = cnsim.sweep("examples/sweeps/table3.toml", "out/t3", quick=True)  # doctest: +SKIP
    >>> rows.groupby(["subscriptions.k", "approach"])["mean_calls_min_y"].mean()  # doctest: +SKIP
    """
    from cnsim.simulations.sweep import load_sweep, read_results, run_sweep

    spec = load_sweep(path, quick=quick, repeat=repeat, names=API)
    run_sweep(spec, out, master=master, serial=serial, overwrite=overwrite, names=API)
    return read_results(out)


def report(src: str | Path, out: str | Path, overwrite: bool = False) -> Path:
    """Write the HTML report (figures and tables in the layout of seed 003 §V) of a run
    folder or a sweep dataset ``src`` into ``out``; returns the path of ``index.html``.

    >>> cnsim.report("out/default", "out/default-report")  # doctest: +SKIP
    """
    from cnsim.simulations.report import build_report

    return build_report(Path(src), out, overwrite, API)


def reproduce(
    paper: str,
    out: str | Path,
    *,
    quick: bool = False,
    master: str | None = None,
    serial: bool = False,
    overwrite: bool = False,
) -> pd.DataFrame:
    """Re-run a paper's whole evaluation into ``out`` (``cnsim reproduce``: every sweep,
    resuming, then ``out/report``) and return the comparison of every value the paper
    prints with ours (``out/report/comparison.csv``).

    >>> cmp = cnsim.reproduce("seed003", "out/seed003", quick=True)  # doctest: +SKIP
    >>> cmp[cmp["item"] == "Table III"]  # doctest: +SKIP
    """
    from cnsim.simulations.reproduce import reproduce as run_reproduction

    done = run_reproduction(
        paper, out, quick=quick, master=master, serial=serial, overwrite=overwrite,
        progress=False, echo=lambda _line: None, names=API,
    )  # fmt: skip
    return pd.read_csv(done.report.parent / "comparison.csv")
