"""HTML reports of a run directory (``cnsim run --out``) or a sweep dataset (``cnsim sweep``).

The report mirrors the evaluation of seed 003 §V where the data allows it: outgoing
server traffic (Fig. 11, 12, 13a), broker-network traffic (Fig. 14), messages received
and redundancy (Tables I, II), server calls (Tables III, IV), workloads (Fig. 15) and
batch processing (Fig. 16). A single run adds per-event distributions, traffic by event
kind, per-broker load and, for timed runs, latency and queueing; a sweep adds a trend of
the main metrics against any other numeric parameter it varies. Every table is also
written as CSV beside ``index.html``; figures are PNGs drawn with matplotlib's Agg canvas,
as wide as the page, their panels in rows of at most three, each approach in its own
colour and marker (:data:`.plots.STYLES`) in every figure. Metrics, their labels and
units — axis labels included — come from the metrics catalog
(:data:`cnsim.simulations.metrics.CATALOG`), approach names from the registry's specs.

Whatever columns or files are missing are skipped, and the report says what it skipped.

Modules: :mod:`.document` (the page, tables, figures; run or sweep), :mod:`.plots`
(matplotlib helpers), :mod:`.run_sections`, :mod:`.sweep_sections`; the entry point
:func:`build_report` is here.

Example::

    from cnsim.simulations.report import build_report
    index = build_report("out/run", "out/report")  # out/report/index.html
"""

from pathlib import Path

from cnsim.errors import CLI, InputError, Names
from cnsim.outputs import claim, marker, place, replacing
from cnsim.simulations.report.document import Document, detect
from cnsim.simulations.report.run_sections import run_report
from cnsim.simulations.report.sweep_sections import sweep_report


def build_report(src: Path, out: Path, overwrite: bool = False, names: Names = CLI) -> Path:
    """Turn a run directory or a sweep dataset into ``out/index.html`` with figures and
    CSVs. ``out`` must be new, empty or an earlier report's folder (``overwrite``: any
    folder cnsim wrote); a folder holding anything cnsim did not write — a site of
    one's own with its ``index.html`` among them — is refused either way. The report
    is written aside and swapped in whole. ``names``: how messages name the arguments
    (``--out`` for the CLI, ``out`` for the API)."""
    src = Path(src)
    kind = detect(src)
    where = place(out, names)
    out = claim(out, "report", overwrite=overwrite, names=names)
    if out == src.absolute() or out in src.absolute().parents:
        raise InputError(f"{where}: would replace the {kind} it reports on")
    with replacing(out, marker("report", str(src)), where) as stage:
        index = (
            run_report(Document(stage), src)
            if kind == "run"
            else sweep_report(Document(stage), src)
        )
    return out / index.name


__all__ = ["build_report", "detect"]
