"""HTML reports of a run directory (``cnsim run --out``) or a sweep dataset (``cnsim sweep``).

The report mirrors the evaluation of seed 003 §V where the data allows it: outgoing
server traffic (Fig. 11, 12, 13a), broker-network traffic (Fig. 14), messages received
and redundancy (Tables I, II), server calls (Tables III, IV), workloads (Fig. 15) and
batch processing (Fig. 16). A single run adds per-event distributions, traffic by event
kind, per-broker load and, for timed runs, latency and queueing; a sweep adds a trend of
the main metrics against any other numeric parameter it varies. Every table is also
written as CSV beside ``index.html``; figures are PNGs drawn with matplotlib's Agg canvas.
Metrics, their labels and units come from the metrics catalog
(:data:`cnsim.simulations.metrics.CATALOG`), approach names from the registry's specs.

Whatever columns or files are missing are skipped, and the report says what it skipped.

Modules: :mod:`.document` (the page, tables, figures, :func:`build_report`, run or
sweep), :mod:`.plots` (matplotlib helpers), :mod:`.run_sections`, :mod:`.sweep_sections`.

Example::

    from cnsim.simulations.report import build_report
    index = build_report("out/run", "out/report")  # out/report/index.html
"""

from cnsim.simulations.report.document import build_report, detect

__all__ = ["build_report", "detect"]
