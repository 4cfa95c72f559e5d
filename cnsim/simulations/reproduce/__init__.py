"""``cnsim reproduce PAPER``: re-run a paper's whole evaluation and write one report in
which every table and figure stands beside the paper's numbers.

A reproduction (:mod:`~cnsim.simulations.reproduce.catalog`) is a list of sweep files
(package data under ``sweeps/PAPER/``; ``examples/sweeps`` links to seed 003's), the
numbers the paper prints and the statements it makes about its figures. Running it:

1. every sweep file is read and validated, the output folder, each sweep's dataset, the
   Spark master and every run's memory estimate are checked — all before any run;
2. the sweeps run one after another, on one Spark session (or ``serial``), each into
   ``OUT/sweeps/NAME`` — a sweep dataset like ``cnsim sweep`` writes, so an interrupted
   reproduction resumes where it stopped (finished runs are kept, failed ones retried);
3. ``OUT/report/`` is written aside and swapped in whole: ``index.html`` (every item of
   the paper beside ours), ``comparison.csv`` (every printed value: paper, ours, ratio,
   status), ``claims.csv`` (every claim: holds or not, and the evidence),
   ``timings.csv`` (wall, run and CPU time by sweep) and each sweep's own full report under
   ``sweeps/NAME/``.

``quick`` applies every sweep file's ``[quick]`` table: the same pipeline in a few
minutes at small sizes (CI runs it); its deviations from the paper mean nothing and
the report says so.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from cnsim.errors import CLI, InputError, Names
from cnsim.outputs import claim, mark, marker, owner, place, replacing
from cnsim.simulations.reproduce.catalog import Reproduction
from cnsim.simulations.reproduce.seed003 import SEED003

__all__ = ["Outcome", "plan", "reproduce", "reproduction"]


@dataclass
class Outcome:
    """What a reproduction did: per sweep its runs (total, run now, failed) and wall
    time, and where the report is."""

    out: Path
    report: Path | None = None
    sweeps: list[dict] = field(default_factory=list)

    @property
    def failed(self) -> int:
        return sum(s["failed"] for s in self.sweeps)


def registry() -> dict[str, Reproduction]:
    """Every paper ``cnsim reproduce`` can re-run, by name."""
    return {r.name: r for r in (SEED003,)}


def reproduction(paper: str) -> Reproduction:
    """The reproduction named ``paper``; an InputError naming the known ones otherwise."""
    known = registry()
    if paper not in known:
        raise InputError(
            f"paper {paper!r}: no reproduction of that name; known: {', '.join(sorted(known))}"
        )
    return known[paper]


def plan(paper: str, quick: bool = False) -> list[str]:
    """What ``reproduce`` would run (``--dry-run``): per sweep its runs and the largest
    run's estimated memory; every sweep file is validated."""
    from cnsim.simulations.config import from_dict
    from cnsim.simulations.sizes import estimate
    from cnsim.simulations.sweep import load_sweep

    repro = reproduction(paper)
    lines, total = [], 0
    for name in repro.sweeps:
        sweep = load_sweep(repro.sweep_file(name), quick=quick)
        peak = max(estimate(from_dict(r.scenario, name)).total for r in sweep.runs)
        lines.append(f"{name:<8} {len(sweep.runs):>4} runs, largest needs ~{peak / 1e9:.1f} GB")
        total += len(sweep.runs)
    lines.append(f"{total} runs in {len(repro.sweeps)} sweeps (nothing run: --dry-run)")
    return lines


def reproduce(
    paper: str,
    out: str | Path,
    *,
    quick: bool = False,
    master: str | None = None,
    serial: bool = False,
    overwrite: bool = False,
    progress: bool = True,
    echo=print,
    verbose: bool = False,
    names: Names = CLI,
) -> Outcome:
    """Run every sweep of ``paper``'s reproduction into ``out/sweeps`` (resuming) and
    write ``out/report``. Everything is checked before the first run; a message about
    ``out`` or a folder inside it names ``out`` (``names``: as an option or a keyword).
    ``progress``: each sweep's runs followed on stderr
    (:mod:`cnsim.simulations.progress`); ``verbose``: Spark's and the JVM's messages on
    stderr too."""
    from cnsim.simulations.progress import interval_s
    from cnsim.simulations.sizes import check_fits
    from cnsim.simulations.sweep import claim_dataset, load_sweep
    from cnsim.simulations.sweep.executors import check_master

    repro = reproduction(paper)
    sweeps = [load_sweep(repro.sweep_file(n), quick=quick, names=names) for n in repro.sweeps]
    same = _same(paper, quick, names)
    root = claim(out, "reproduction", overwrite=overwrite, same=same, names=names)
    for sweep in sweeps:  # each dataset is this sweep's (or --overwrite)
        claim_dataset(out, sweep, overwrite, names, f"sweeps/{sweep.name}")
    claim(out, "report", overwrite=True, names=names, part="report")  # rewritten each time
    if progress:
        interval_s()  # a bad $CNSIM_PROGRESS_S fails before any work
    if not serial:
        check_master(master, names=names)
    if serial or master is None or master.startswith("local"):
        from cnsim.simulations.config import from_dict

        for sweep in sweeps:
            for run in sweep.runs:
                check_fits(from_dict(run.scenario, f"{sweep.name} run {run.run_id}"))
    _open(root, paper, quick, repro.sweeps, place(out, names))
    outcome = Outcome(root)
    session = None
    try:
        if not serial:
            from cnsim.simulations.sweep import spark_session, stop_spark

            session = spark_session(master, f"cnsim-reproduce-{paper}", verbose)
        for sweep in sweeps:
            outcome.sweeps.append(
                _run_one(sweep, out, master, serial, session, progress, echo, names)
            )
    finally:
        if session is not None:
            stop_spark(session)
    where = place(out, names, "report")
    outcome.report = write_report(repro, root, quick, outcome.sweeps, where)
    return outcome


def _same(paper: str, quick: bool, names: Names = CLI):
    def same(found: dict) -> str | None:
        if found.get("name") != paper:
            return f"holds the reproduction of {found.get('name')!r}, not of {paper!r}"
        if bool(found.get("quick")) != quick:
            held = names.flag("quick") if found.get("quick") else "full"
            return f"holds the {held} reproduction (run it the same way, or elsewhere)"
        return None

    return same


def _open(root: Path, paper: str, quick: bool, sweeps, where: str | None = None) -> None:
    """Make ``root`` this reproduction's folder: emptied (atomically) if it held
    anything else (claimed with --overwrite), then marked; its marker names its parts,
    ``sweeps/NAME`` and ``report``, each a cnsim folder with a marker of its own.
    ``where``: how a message names ``root`` (:func:`cnsim.outputs.place`)."""
    parts = [f"sweeps/{name}" for name in sweeps] + ["report"]
    content = marker("reproduction", paper, quick=quick, parts=parts)
    found = owner(root)
    if found is not None and (
        found["kind"] != "reproduction" or _same(paper, quick)(found) is not None
    ):
        with replacing(root, content, where):
            pass
    root.mkdir(parents=True, exist_ok=True)
    mark(root, content)


def _run_one(sweep, out, master, serial: bool, session, progress: bool, echo, names) -> dict:
    """Run ``sweep`` into ``out/sweeps/NAME`` (``out``: as the caller gave it)."""
    from cnsim.simulations.sweep import run_sweep

    started = time.perf_counter()
    done = run_sweep(
        sweep, out, master=master, serial=serial, progress=progress, spark=session,
        overwrite=True, names=names, part=f"sweeps/{sweep.name}",  # claimed above
    )  # fmt: skip
    wall = time.perf_counter() - started
    echo(
        f"{sweep.name}: {done.total} runs — {done.skipped} already done, {done.ran} run now, "
        f"{len(done.failed)} failed; {wall:.1f} s"
    )
    return {
        "sweep": sweep.name,
        "runs": done.total,
        "already_done": done.skipped,
        "run_now": done.ran,
        "failed": len(done.failed),
        "wall_s": wall,
    }


def load_results(repro: Reproduction, root: Path) -> dict[str, pd.DataFrame]:
    """The successful rows of every sweep of the reproduction held in ``root``."""
    from cnsim.simulations.report.sweep_sections import load_sweep as load_rows

    results = {}
    for name in repro.sweeps:
        folder = root / "sweeps" / name
        if folder.is_dir() and any(folder.glob("run-*.parquet")):
            results[name] = load_rows(folder).ok
    return results


def write_report(
    repro: Reproduction, root: Path, quick: bool, timings: list[dict], where: str | None = None
) -> Path:
    """``root/report``: written aside, swapped in whole (staging folders a killed
    earlier reproduction left for it are removed first); the path of its index.html.
    ``where``: how a message names the folder (:func:`cnsim.outputs.place`)."""
    from cnsim.simulations.report.document import Document
    from cnsim.simulations.reproduce.report import write_document

    results = load_results(repro, root)
    target = root / "report"
    with replacing(target, marker("report", f"reproduction {repro.name}"), where) as stage:
        write_document(Document(stage), repro, results, quick, timings, root)
    return target / "index.html"
