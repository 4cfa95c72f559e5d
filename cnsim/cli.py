"""The ``cnsim`` command line: ``run``, ``verify`` and ``bench``."""

from __future__ import annotations

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
    """Check every approach against the brute-force oracle after every event."""
    from cnsim.simulations import config as config_mod
    from cnsim.simulations.verify import verify as verify_scenario

    report = verify_scenario(config_mod.load(config), events)
    typer.echo(report.text())
    if not report.ok:
        raise typer.Exit(1)


@bench_app.command("paint")
def bench_paint(
    quick: Annotated[bool, typer.Option("--quick", help="small sizes, for a fast look")] = False,
    json_path: Annotated[Path | None, typer.Option("--json", help="write results here")] = None,
) -> None:
    """Per-event server and delivery cost of the Paint algorithms vs k and m."""
    from cnsim.bench.paint import run as run_bench

    results = run_bench(quick=quick)
    if json_path is not None:
        json_path.write_text(json.dumps(results, indent=2) + "\n")
    typer.echo(json.dumps(results["headline"], indent=2))


@bench_app.command("stabbing")
def bench_stabbing(
    quick: Annotated[bool, typer.Option("--quick", help="small sizes, under a minute")] = False,
    json_path: Annotated[Path | None, typer.Option("--json", help="write results here")] = None,
) -> None:
    """Top-k stabbing indexes (seeds 000 and 004): build time, memory, query time."""
    from cnsim.bench.stabbing import run as run_bench

    run_bench(quick, None if json_path is None else str(json_path))


def _summary_table(summary: dict) -> str:
    rows = [
        f"{'approach':<22}{'msgs/ev':>10}{'bytes/ev':>11}{'delivered/ev':>14}{'min_y/ev':>10}"
        f"{'snap/ev':>10}{'server µs':>11}"
    ]
    for name, s in summary["approaches"].items():
        rows.append(
            f"{name:<22}{s['mean_server_out_msgs']:>10.2f}{s['mean_server_out_bytes']:>11.1f}"
            f"{s['mean_delivered_msgs']:>14.1f}{s['mean_calls_min_y']:>10.2f}"
            f"{s['mean_calls_snap']:>10.2f}{1e6 * s['mean_server_time_s']:>11.1f}"
        )
    head = (
        f"{summary['events']} events, {summary['objects']} objects, "
        f"{summary['subscriptions']} subscriptions, k = {summary['k']}"
    )
    return "\n".join([head, *rows])


def main() -> None:
    """Entry point: user errors become one line on stderr and exit status 2."""
    try:
        app()
    except CnsimError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
