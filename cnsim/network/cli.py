"""``cnsim topology build|show``: build, cache, summarise and export IP worlds.

The options are the keys of the ``[network]`` table (defaults and help from
:data:`~cnsim.network.params.NETWORK_SCHEMA`), checked by :class:`NetworkParams`.
``show`` of a world never built, like bad options, exits 2 with one line.
Mount with ``app.add_typer(topology_app, name="topology")``.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from cnsim.errors import CnsimError, InputError
from cnsim.network.cache import build_world, cache_dir, world_key
from cnsim.network.params import GENERATORS, LATENCY_MODELS, NETWORK_SCHEMA, NetworkParams
from cnsim.network.world import World, export, summarize
from cnsim.outputs import check_file_target

topology_app = typer.Typer(help="Build, cache, summarise and export IP topologies.")


def _option(key: str, help_text: str = "") -> Any:
    """A typer option for the ``[network]`` key ``key``, documented by the schema."""
    return typer.Option(help=help_text or NETWORK_SCHEMA[key].doc)


IpNodes = Annotated[int, _option("ip_nodes")]
Brokers = Annotated[int, _option("brokers")]
Generator = Annotated[str, _option("generator", " | ".join(GENERATORS))]
Seed = Annotated[int, _option("seed")]
Latency = Annotated[
    str | None,
    _option("latency", " | ".join(LATENCY_MODELS) + " (default: the generator's own)"),
]
MapName = Annotated[str | None, typer.Option("--map", help=NETWORK_SCHEMA["map"].doc)]
LatencyMs = Annotated[float, _option("latency_ms")]
LatencyLow = Annotated[float, typer.Option(help="'uniform': lower bound of link latencies (ms)")]
LatencyHigh = Annotated[float, typer.Option(help="'uniform': upper bound of link latencies (ms)")]
TopoPath = Annotated[Path | None, typer.Option("--path", help=NETWORK_SCHEMA["path"].doc)]
CacheDir = Annotated[
    Path | None, typer.Option(help="Cache directory (default $CNSIM_CACHE or ./.cnsim-cache).")
]
AsJson = Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")]
ExportTo = Annotated[
    Path | None, typer.Option("--export", help="Also write .graphml or an edge list.")
]
DEFAULT = {key: spec.default for key, spec in NETWORK_SCHEMA.items()}
LOW, HIGH = DEFAULT["latency_range_ms"]


def _world(
    options: dict[str, Any], cache: Path | None, cached_only: bool, export_to: Path | None
) -> tuple[World, Path, float]:
    """The world of the ``[network]`` ``options`` (built or loaded; ``cached_only``: exit 2
    if it was never built), exported if asked, with its cache entry and the seconds it
    took. Errors: one line, exit 2."""
    try:
        if export_to is not None:  # a new file, or one cnsim wrote: checked before any work
            check_file_target(export_to, "--export")
        params = NetworkParams(**options)
        entry = cache_dir(cache) / world_key(params)
        if cached_only and not (entry / "meta.json").is_file():
            raise InputError(
                f"no cached world {str(entry)!r} for these options; run `cnsim topology "
                "build` with the same options first"
            )
        start = time.perf_counter()
        world = build_world(params, directory=cache)
        elapsed = time.perf_counter() - start
        if export_to is not None:
            export(world, export_to)
        return world, entry, elapsed
    except CnsimError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc


def _print(summary: dict[str, Any], as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps(summary, indent=1))
        return
    for key, value in summary.items():
        typer.echo(f"{key:24} {value}")


def _command(cached_only: bool, doc: str):
    """``topology build`` (``cached_only`` False) or ``topology show`` (True)."""

    def command(
        ip_nodes: IpNodes = DEFAULT["ip_nodes"],
        brokers: Brokers = DEFAULT["brokers"],
        generator: Generator = DEFAULT["generator"],
        seed: Seed = DEFAULT["seed"],
        latency: Latency = DEFAULT["latency"],
        latency_ms: LatencyMs = DEFAULT["latency_ms"],
        latency_low: LatencyLow = LOW,
        latency_high: LatencyHigh = HIGH,
        path: TopoPath = None,
        map_name: MapName = None,
        cache: CacheDir = None,
        export_to: ExportTo = None,
        as_json: AsJson = False,
    ) -> None:
        given = locals()  # the parameters: most are [network] keys by name
        options = {key: value for key, value in given.items() if key in NETWORK_SCHEMA}
        options["latency_range_ms"] = (latency_low, latency_high)
        options["path"] = None if path is None else str(path)
        options["map"] = map_name
        world, entry, elapsed = _world(options, cache, cached_only, export_to)
        summary = summarize(world)
        summary["cache_entry"] = str(entry)
        if not cached_only:
            summary["seconds"] = round(elapsed, 3)
        _print(summary, as_json)

    command.__doc__ = doc
    return command


topology_app.command("build")(
    _command(False, "Build the world (or load it from the cache), store it, print its summary.")
)
topology_app.command("show")(
    _command(True, "Print the summary of a cached world (error if it was never built).")
)


@topology_app.command("list")
def list_maps(as_json: AsJson = False) -> None:
    """List the generators and the measured maps of generator 'topohub' (shipped inside
    the topohub package: nothing is downloaded)."""
    from cnsim.network import measured

    rows = [measured.describe(name) for name in measured.map_names()]
    if as_json:
        typer.echo(json.dumps({"generators": list(GENERATORS), "maps": rows}, indent=1))
        return
    typer.echo(f"generators: {', '.join(GENERATORS)}")
    typer.echo(
        f"measured maps (generator 'topohub', topohub {measured.topohub_version()}; latency "
        f"= great-circle km / {measured.KM_PER_MS:g} km per ms):"
    )
    typer.echo(f"{'map':34} {'source':13} {'nodes':>6} {'links':>6} {'kept':>6} {'link ms':>8}")
    for r in rows:
        typer.echo(
            f"{r['map']:34} {r['source']:13} {r['nodes']:6d} {r['links']:6d} "
            f"{r['component_nodes']:6d} {r['link_ms_mean']:8.3f}"
        )
