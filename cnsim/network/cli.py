"""``cnsim topology build|show``: build, cache, summarise and export IP worlds.

Mount with ``app.add_typer(topology_app, name="topology")``.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from cnsim.errors import CnsimError
from cnsim.network.cache import build_world, cache_dir, world_key
from cnsim.network.params import NetworkParams
from cnsim.network.world import export, summarize

topology_app = typer.Typer(help="Build, cache, summarise and export IP topologies.")

IpNodes = Annotated[int, typer.Option(help="Requested IP nodes (not for --generator file).")]
Brokers = Annotated[int, typer.Option(help="IP nodes picked as brokers.")]
Generator = Annotated[str, typer.Option(help="internet-as | waxman | barabasi-albert | file.")]
Seed = Annotated[int, typer.Option(help="Seed of topology, latencies and placement.")]
Latency = Annotated[str, typer.Option(help="constant | uniform | geometric | attribute.")]
LatencyMs = Annotated[float, typer.Option(help="Constant latency, or ms per unit (geometric).")]
LatencyLow = Annotated[float, typer.Option(help="Uniform latency lower bound (ms).")]
LatencyHigh = Annotated[float, typer.Option(help="Uniform latency upper bound (ms).")]
TopoPath = Annotated[
    Path | None, typer.Option("--path", help="Topology file (.graphml or edge list).")
]
CacheDir = Annotated[
    Path | None, typer.Option(help="Cache directory (default $CNSIM_CACHE or ./.cnsim-cache).")
]
AsJson = Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")]


def _params(**values: Any) -> NetworkParams:
    low, high = values.pop("latency_low"), values.pop("latency_high")
    path = values.pop("path")
    return NetworkParams(
        latency_range_ms=(low, high), path=None if path is None else str(path), **values
    )


def _print(summary: dict[str, Any], as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps(summary, indent=1))
        return
    for key, value in summary.items():
        typer.echo(f"{key:24} {value}")


@topology_app.command()
def build(
    ip_nodes: IpNodes = 20000,
    brokers: Brokers = 1000,
    generator: Generator = "internet-as",
    seed: Seed = 0,
    latency: Latency = "uniform",
    latency_ms: LatencyMs = 5.0,
    latency_low: LatencyLow = 1.0,
    latency_high: LatencyHigh = 10.0,
    path: TopoPath = None,
    cache: CacheDir = None,
    export_to: Annotated[
        Path | None, typer.Option("--export", help="Also write .graphml or an edge list.")
    ] = None,
    as_json: AsJson = False,
) -> None:
    """Build the world (or load it from the cache), store it, print its summary."""
    try:
        params = _params(
            ip_nodes=ip_nodes,
            brokers=brokers,
            generator=generator,
            seed=seed,
            latency=latency,
            latency_ms=latency_ms,
            latency_low=latency_low,
            latency_high=latency_high,
            path=path,
        )
        start = time.perf_counter()
        world = build_world(params, directory=cache)
        elapsed = time.perf_counter() - start
        if export_to is not None:
            export(world, export_to)
    except CnsimError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    summary = summarize(world)
    summary["cache_entry"] = str(cache_dir(cache) / world.key)
    summary["seconds"] = round(elapsed, 3)
    _print(summary, as_json)


@topology_app.command()
def show(
    ip_nodes: IpNodes = 20000,
    brokers: Brokers = 1000,
    generator: Generator = "internet-as",
    seed: Seed = 0,
    latency: Latency = "uniform",
    latency_ms: LatencyMs = 5.0,
    latency_low: LatencyLow = 1.0,
    latency_high: LatencyHigh = 10.0,
    path: TopoPath = None,
    cache: CacheDir = None,
    as_json: AsJson = False,
) -> None:
    """Print the summary of a cached world (error if it was never built)."""
    try:
        params = _params(
            ip_nodes=ip_nodes,
            brokers=brokers,
            generator=generator,
            seed=seed,
            latency=latency,
            latency_ms=latency_ms,
            latency_low=latency_low,
            latency_high=latency_high,
            path=path,
        )
        entry = cache_dir(cache) / world_key(params)
        if not (entry / "meta.json").is_file():
            typer.echo(
                f"error: no cached world {entry}; run `cnsim topology build` first", err=True
            )
            raise typer.Exit(1)
        world = build_world(params, directory=cache)
    except CnsimError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    summary = summarize(world)
    summary["cache_entry"] = str(entry)
    _print(summary, as_json)
