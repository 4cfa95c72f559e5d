"""The ``cnsim`` command line: ``run``, ``verify``, ``sweep``, ``report``, ``topology``
and ``bench``."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from cnsim.errors import CnsimError
from cnsim.network.cli import topology_app

app = typer.Typer(
    help="cnsim: simulate range top-k subscriptions over a content-driven network.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
bench_app = typer.Typer(help="Reproducible performance measurements.", no_args_is_help=True)
app.add_typer(bench_app, name="bench")
app.add_typer(topology_app, name="topology")

ConfigArg = Annotated[Path, typer.Argument(help="scenario TOML file")]
EventsOpt = Annotated[
    int | None, typer.Option("--events", min=0, help="override events.count of the scenario")
]


@app.command()
def run(
    config: ConfigArg,
    out: Annotated[Path, typer.Option("--out", help="directory for events.parquet, summary.json")],
    events: EventsOpt = None,
) -> None:
    """Run a scenario in counting mode and write its per-event metrics and summary."""
    from cnsim.simulations import config as config_mod
    from cnsim.simulations.runner import run as run_scenario

    scenario = config_mod.load(config)
    _, summary = run_scenario(scenario, out, events)
    typer.echo(_summary_table(summary))
    typer.echo(f"wrote {out / 'events.parquet'} and {out / 'summary.json'}")


@app.command()
def verify(config: ConfigArg, events: EventsOpt = None) -> None:
    """Check every approach against the brute-force oracle after every event (batch)."""
    from cnsim.simulations import config as config_mod
    from cnsim.simulations.verify import verify as verify_scenario

    report = verify_scenario(config_mod.load(config), events)
    typer.echo(report.text())
    if not report.ok:
        raise typer.Exit(1)


@app.command()
def sweep(
    sweep_file: Annotated[Path, typer.Argument(metavar="SWEEP", help="sweep TOML file")],
    out: Annotated[Path, typer.Option("--out", help="directory of the results dataset")],
    master: Annotated[
        str | None, typer.Option("--master", help="Spark master URL (default local[*])")
    ] = None,
    repeat: Annotated[int | None, typer.Option("--repeat", min=1, help="runs per point")] = None,
    serial: Annotated[bool, typer.Option("--serial", help="run in this process, no Spark")] = False,
    quick: Annotated[bool, typer.Option("--quick", help="apply the file's [quick] table")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="validate and list runs")] = False,
) -> None:
    """Run a parameter sweep on Spark (one task per run), resuming an interrupted one."""
    from cnsim.simulations.sweep import sweep_command

    sweep_command(sweep_file, out, master, repeat, serial, quick, dry_run)


@app.command()
def report(
    src: Annotated[Path, typer.Argument(help="run directory (cnsim run --out) or sweep dataset")],
    out: Annotated[Path, typer.Option("--out", help="directory for index.html, figures, CSV")],
) -> None:
    """Write an HTML report (figures and tables of seed 003 §V) of a run or a sweep."""
    from cnsim.simulations.report import build_report

    typer.echo(f"wrote {build_report(src, out)}")


BENCHES = {  # name -> (module with run_bench(quick) -> dict, what it measures)
    "paint": ("cnsim.bench.paint", "Per-event cost of the Paint algorithms vs k and m."),
    "overlay": ("cnsim.bench.overlay", "The overlay: world build, routing, cost, traffic."),
    "batch": ("cnsim.bench.batch", "Paint-Batch, Coalesce, Online on one long batch."),
    "timed": ("cnsim.bench.timed", "Timed (SimPy) mode against counting mode."),
    "sweep": ("cnsim.bench.sweep", "A 16-run sweep serially and on Spark local[2]."),
    "stabbing": ("cnsim.bench.stabbing", "Top-k stabbing indexes: build, memory, queries."),
}


def _bench_command(module: str, doc: str):
    def command(
        quick: Annotated[bool, typer.Option("--quick", help="small sizes, a fast look")] = False,
        json_path: Annotated[Path | None, typer.Option("--json", help="write results")] = None,
    ) -> None:
        bench = importlib.import_module(module)
        results = bench.run_bench(quick=quick)
        default = getattr(bench, "json_default", None)
        if json_path is not None:
            json_path.write_text(json.dumps(results, indent=2, default=default) + "\n")
        typer.echo(json.dumps(results["headline"], indent=1, default=default))

    command.__doc__ = doc
    return command


for _name, (_module, _doc) in BENCHES.items():
    bench_app.command(_name)(_bench_command(_module, _doc))


_COLUMNS = (  # (header, summary key, scale, format) of the per-approach table
    ("msgs", "mean_server_out_msgs", 1, ".2f"),
    ("server B", "mean_server_out_bytes", 1, ".0f"),
    ("overlay B", "mean_overlay_bytes", 1, ".0f"),
    ("IP B", "mean_ip_bytes", 1, ".0f"),
    ("delivered", "mean_delivered_msgs", 1, ".1f"),
    ("redund.", "redundancy", 1, ".3f"),
    ("min_y", "mean_calls_min_y", 1, ".2f"),
    ("snap", "mean_calls_snap", 1, ".2f"),
    ("server µs", "mean_server_time_s", 1e6, ".0f"),
)


def _summary_table(summary: dict) -> str:
    per = "event" if summary["batch_size"] == 1 else f"batch of {summary['batch_size']}"
    rows = [f"{'per ' + per:<28}" + "".join(f"{h:>11}" for h, *_ in _COLUMNS)]
    for name, s in summary["approaches"].items():
        cells = []
        for _, key, scale, fmt in _COLUMNS:
            value = s.get(key)
            cells.append(f"{'-':>11}" if value is None else f"{scale * value:>11{fmt}}")
        rows.append(f"{name:<28}" + "".join(cells))
    head = (
        f"{summary['events']} events, {summary['objects']} objects, "
        f"{summary['subscriptions']} subscriptions, k = {summary['k']}, "
        f"overlay: {summary['overlay']}"
    )
    return "\n".join([head, *rows])


def main() -> None:
    """Entry point: user errors become one line on stderr and exit status 2."""
    try:
        app()
    except CnsimError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
