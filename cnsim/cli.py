"""The ``cnsim`` command line: ``run``, ``verify``, ``sweep``, ``report``, ``reproduce``,
``topology`` and ``bench``."""

from __future__ import annotations

import importlib
import inspect
import json
import re
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
    rich_markup_mode=None,  # plain help: "[quick]" and line breaks kept as written
)
bench_app = typer.Typer(
    help="Reproducible performance measurements.",
    no_args_is_help=True,
    add_completion=False,
)
app.add_typer(bench_app, name="bench")
app.add_typer(topology_app, name="topology")


class _Command(typer.core.TyperCommand):
    """A command's plain help: arguments by their metavar alone (``CONFIG``, not ``CONFIG
    <path>``), in the usage line too; options with the kind of value they take
    (``PATH``, ``INTEGER``, ``FLOAT``, ``URL``, ``TEXT``), flags without; in a group's
    list, the first sentence of its help whole (not cut at 45 characters)."""

    def get_short_help_str(self, limit: int = 45) -> str:
        if self.short_help:
            return super().get_short_help_str(limit)
        text = " ".join(inspect.cleandoc(self.help or "").split("\n\n")[0].split())
        for end in re.finditer(r"\.\s", text):  # not "(seed 003 App. C)"
            if text.count("(", 0, end.start()) == text.count(")", 0, end.start()):
                return text[: end.start() + 1]
        return text

    def collect_usage_pieces(self, ctx) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if param.param_type_name == "argument":
                name = param.metavar or param.name.upper()
                pieces.append(name if param.required else f"[{name}]")
        return pieces

    def format_options(self, ctx, formatter) -> None:
        rows: dict[str, list[tuple[str, str]]] = {"argument": [], "option": []}
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            if param.param_type_name == "argument":
                record = (param.metavar or param.name.upper(), param.help or "")
            elif not param.is_flag:
                kind = param.type_descriptor.annotation
                value = param.metavar or _METAVARS.get(kind, "TEXT")
                record = (f"{', '.join(param.opts)} {value}", record[1])
            rows[param.param_type_name].append(record)
        for title, kind in (("Arguments", "argument"), ("Options", "option")):
            if rows[kind]:
                with formatter.section(title):
                    formatter.write_dl(rows[kind])


_METAVARS = {int: "INTEGER", float: "FLOAT", Path: "PATH", str: "TEXT"}
for _info in topology_app.registered_commands:  # the same help for cnsim topology
    if _info.cls in (None, typer.core.TyperCommand):
        _info.cls = _Command


def _out(help_: str) -> object:
    """``--out PATH``: optional with ``--dry-run``, required otherwise (:func:`_need_out`)."""
    return Annotated[
        str | None,
        typer.Option("--out", metavar="PATH", help=help_ + "; needed unless --dry-run"),
    ]


def _dry_run(help_: str) -> object:
    return Annotated[bool, typer.Option("--dry-run", help=help_)]


ConfigArg = Annotated[Path, typer.Argument(metavar="CONFIG", help="scenario TOML file")]
EventsOpt = Annotated[
    str | None,
    typer.Option(
        "--events", metavar="INTEGER", help="override events.count of the scenario",
        show_default=False,
    ),
]  # fmt: skip
OverwriteOpt = Annotated[
    bool,
    typer.Option(
        "--overwrite",
        help="replace a folder cnsim wrote for something else; a folder holding any file "
        "cnsim did not write is refused, with or without it",
    ),
]
MasterOpt = Annotated[
    str | None,
    typer.Option(
        "--master", metavar="URL", help="Spark master URL [default: local[*], or spark-submit's]"
    ),
]
SerialOpt = Annotated[bool, typer.Option("--serial", help="run in this process, no Spark")]
QuickOpt = Annotated[
    bool, typer.Option("--quick", help="the sweep file's [quick] table: small sizes, minutes")
]
VerboseOpt = Annotated[
    bool,
    typer.Option(
        "--verbose",
        help="show Spark's and the JVM's own messages (else kept in a log file, named if "
        "Spark fails)",
    ),
]
RUN_OUT = "folder for events.parquet, summary.json (brokers.parquet, servers.parquet): new, "
RUN_OUT += "empty, or holding only what cnsim wrote there (listed in its .cnsim.json)"


def _need_out(ctx: typer.Context, out: str | None) -> str:
    """``--out``, which every command but a dry run needs."""
    if out is None:
        from typer._click.exceptions import MissingParameter

        param = next(p for p in ctx.command.params if p.name == "out")
        raise MissingParameter(ctx=ctx, param=param, param_hint="'--out' (needed unless --dry-run)")
    return out


@app.command(cls=_Command)
def run(
    ctx: typer.Context,
    config: ConfigArg,
    out: _out(RUN_OUT) = None,
    events: EventsOpt = None,
    overwrite: OverwriteOpt = False,
    dry_run: _dry_run("validate, print the memory estimate, run nothing") = False,
    master: MasterOpt = None,
) -> None:
    """Run a scenario (counting or timed mode) and write its per-event metrics and summary.
    On a terminal a bar follows the events; elsewhere (a file, a pipe) a line every few
    seconds gives the events done, the rate and the time left. With run.partitions > 1
    (or --master) the subscriptions are spread over Spark tasks: the same results."""
    from cnsim.simulations import config as config_mod
    from cnsim.simulations.launch import run_result, spread
    from cnsim.simulations.runner import claim_out_dir
    from cnsim.simulations.sizes import check_fits

    scenario = config_mod.load(config)
    n_events = config_mod.events_override(events)
    if out is not None:  # checked by a dry run too, when given
        claim_out_dir(out, overwrite)
    estimate = check_fits(scenario, n_events, spread=spread(scenario, master))
    if dry_run:
        typer.echo(estimate.text())
        typer.echo("nothing run: --dry-run")
        return
    out = _need_out(ctx, out)
    summary = run_result(scenario, out, n_events, overwrite, master=master).summary
    typer.echo(_summary_table(summary))
    if summary["forced_inserts"]:
        typer.echo(
            f"note: {summary['forced_inserts']} events drawn as deletes, moves or updates "
            "became inserts: no object was left (lower events.deletes)"
        )
    typer.echo(f"wrote {_listing(Path(out), _written(Path(out)))}")


def _written(folder: Path) -> list[str]:
    """The files a command wrote into ``folder``, as its marker lists them."""
    from cnsim.outputs import read_marker

    _, found = read_marker(folder)
    files = (found or {}).get("files") or {}
    return sorted(name for name in files if not name.endswith("/"))


def _listing(folder: Path, names: list[str]) -> str:
    paths = [str(folder / name) for name in names]
    if len(paths) < 2:
        return paths[0] if paths else f"nothing into {folder}"
    return ", ".join(paths[:-1]) + f" and {paths[-1]}"


@app.command(cls=_Command)
def verify(config: ConfigArg, events: EventsOpt = None, master: MasterOpt = None) -> None:
    """Check every approach against the brute-force oracle after every event (batch); a
    run spread over Spark tasks (run.partitions > 1, or --master) partition by partition."""
    from cnsim.simulations import config as config_mod
    from cnsim.simulations.launch import spread
    from cnsim.simulations.launch import verify as verify_scenario
    from cnsim.simulations.progress import interval_s
    from cnsim.simulations.sizes import check_fits

    scenario = config_mod.load(config)
    n_events = config_mod.events_override(events)
    check_fits(scenario, n_events, oracle=True, spread=spread(scenario, master))
    if scenario["run"]["progress"]:
        interval_s()  # a bad $CNSIM_PROGRESS_S fails before any work
    report = verify_scenario(scenario, n_events, master)
    typer.echo(report.text())
    if not report.ok:
        raise typer.Exit(1)


@app.command(cls=_Command)
def sweep(
    ctx: typer.Context,
    sweep_file: Annotated[Path, typer.Argument(metavar="SWEEP", help="sweep TOML file")],
    out: _out("folder of the results dataset (new, empty or this sweep's)") = None,
    master: MasterOpt = None,
    repeat: Annotated[
        int | None,
        typer.Option(
            "--repeat", metavar="INTEGER", help="runs per combination [default: the file's]"
        ),
    ] = None,
    serial: SerialOpt = False,
    quick: QuickOpt = False,
    dry_run: _dry_run("validate and list the runs, run nothing") = False,
    overwrite: OverwriteOpt = False,
    verbose: VerboseOpt = False,
) -> None:
    """Run a parameter sweep on Spark (one task per run), resuming an interrupted one.
    Exits 1 if runs failed (their error rows are in the dataset; the next invocation
    retries them), 130 on Ctrl-C (finished runs are kept: run it again to resume)."""
    from cnsim.simulations.sweep import describe, load_sweep, run_sweep

    spec = load_sweep(sweep_file, quick=quick, repeat=repeat)  # --repeat checked there
    if dry_run:
        for r in spec.runs:
            typer.echo(f"{r.run_id}  repeat={r.repeat}  seed={r.seed}  {describe(r.params)}")
        typer.echo(f"{len(spec.runs)} runs (nothing run: --dry-run)")
        return
    out = _need_out(ctx, out)
    # run_sweep checks the folder, the master and the runs' sizes before any work
    done = _resumable(out, lambda: run_sweep(
        spec, out, master=master, serial=serial, overwrite=overwrite, verbose=verbose,
    ))  # fmt: skip
    typer.echo(
        f"{spec.name}: {done.total} runs — {done.skipped} already in {out}, "
        f"{done.ran} run now, {len(done.failed)} failed; {done.wall_s:.1f} s"
    )
    for run_id, error in done.failed[:10]:
        typer.echo(f"  failed {run_id}: {error}", err=True)
    _fail_if(
        len(done.failed), f"{len(done.failed)} of {done.total} runs failed",
        f"in {out} (run-<id>.parquet, columns error and traceback)",
    )  # fmt: skip


@app.command(cls=_Command)
def report(
    src: Annotated[
        Path,
        typer.Argument(metavar="SRC", help="run directory (cnsim run --out) or sweep dataset"),
    ],
    out: Annotated[
        str,
        typer.Option(
            "--out",
            metavar="PATH",
            help="folder for index.html, figures, CSV (new, empty or cnsim's)",
        ),
    ],
    overwrite: OverwriteOpt = False,
) -> None:
    """Write an HTML report (figures and tables of seed 003 §V) of a run or a sweep."""
    from cnsim.simulations.report import build_report

    typer.echo(f"wrote {build_report(src, out, overwrite)}")


@app.command(cls=_Command)
def reproduce(
    ctx: typer.Context,
    paper: Annotated[str, typer.Argument(metavar="PAPER", help="the paper to re-run: seed003")],
    out: _out("folder of the sweeps and the report (new, empty or cnsim's)") = None,
    quick: QuickOpt = False,
    master: MasterOpt = None,
    serial: SerialOpt = False,
    dry_run: _dry_run("validate and list the sweeps, run nothing") = False,
    overwrite: OverwriteOpt = False,
    verbose: VerboseOpt = False,
) -> None:
    """Re-run a paper's whole evaluation (every sweep, resumably) and write one report:
    OUT/report/index.html with every table and figure beside the paper's values,
    comparison.csv and claims.csv. Exits 1 if runs failed (run it again to retry them),
    130 on Ctrl-C (finished runs are kept: run it again to resume)."""
    from cnsim.simulations.reproduce import plan, reproduce

    if dry_run:
        for line in plan(paper, quick):
            typer.echo(line)
        return
    out = _need_out(ctx, out)
    done = _resumable(out, lambda: reproduce(
        paper, out, quick=quick, master=master, serial=serial, overwrite=overwrite,
        echo=typer.echo, verbose=verbose,
    ))  # fmt: skip
    typer.echo(f"wrote {done.report}")
    _fail_if(done.failed, f"{done.failed} runs failed", f"in {out}/sweeps")


def _resumable(out: str, work):
    """``work()``; Ctrl-C exits 130 saying that the finished runs are kept in ``out``."""
    try:
        return work()
    except KeyboardInterrupt:
        typer.echo(
            f"interrupted: the runs finished so far are kept in {out}; run the same command "
            "again to resume",
            err=True,
        )
        raise typer.Exit(130) from None


def _fail_if(failed: int, what: str, where: str) -> None:
    """Exit 1 if runs ``failed``, saying where their error rows are and how to retry."""
    if failed:
        typer.echo(
            f"error: {what}; their errors are the rows with status 'error' {where}; run "
            "the same command again to retry them",
            err=True,
        )
        raise typer.Exit(1)


BENCHES = {  # name -> (module with run_bench(quick, full, **named) -> dict, what it measures)
    "paint": ("cnsim.bench.paint", "Per-event cost of the Paint algorithms vs k and m."),
    "overlay": ("cnsim.bench.overlay", "The overlay: world build, routing, cost, traffic."),
    "batch": ("cnsim.bench.batch", "Paint-Batch, Coalesce, Online on one long batch."),
    "timed": ("cnsim.bench.timed", "Timed (SimPy) mode against counting mode."),
    "sweep": ("cnsim.bench.sweep", "A 16-run sweep serially and on Spark local[2]."),
    "stabbing": ("cnsim.bench.stabbing", "Top-k stabbing indexes: build, memory, queries."),
    "covering": ("cnsim.bench.covering", "Covering detection: relation graphs and indexes."),
    "covering_overlay": (
        "cnsim.bench.covering.overlay_probe",
        "The content-based overlay at one size: coverings' messages, entries, peak memory.",
    ),
    "covering_speed": (
        "cnsim.bench.covering.speed_ab",
        "G_1's command loop over the k-d tree and Z-order (seed 001 §V-C), least CPU.",
    ),
    "betree": ("cnsim.bench.betree", "BE*-tree vs BE-tree, k-index, scan (seed 002 Figs 6-9)."),
    "betree_insert": (
        "cnsim.bench.betree.insert_ab",
        "The one-by-one BE*-tree build of this checkout against an earlier revision.",
    ),
    "betree_build": (
        "cnsim.bench.betree.build_ab",
        "BE*-B, the BE*-tree's bulk load, of this checkout against an earlier revision.",
    ),
    "betree_ranking": (
        "cnsim.bench.betree.ranking",
        "BE*-tree attribute rankings: popularity against selectivity (seed 002 §V-B).",
    ),
    "kindex": (
        "cnsim.bench.betree.kindex",
        "The k-index: build time and peak memory, partitions visited by bound or by size.",
    ),
    "ranked_delivery": ("cnsim.bench.ranked_delivery", "Top-k delivery over zones: pruned vs all."),
    "ranked_content": (
        "cnsim.bench.ranked_content",
        "Top-k delivery over the content-based tree: bound-pruned search vs the flood.",
    ),
    "ranked_churn": (
        "cnsim.bench.ranked_churn",
        "Ranked delivery runs with joins and leaves, both score models, then verify.",
    ),
    "churn": (
        "cnsim.bench.churn",
        "Subscribers joining and leaving, brokers failing, against neither, per event.",
    ),
    "partitions": (
        "cnsim.bench.partitions",
        "One run spread over Spark tasks against one process: same outputs, wall, memory.",
    ),
    "layout": ("cnsim.bench.layout", "Subscriber lists in delivery order: cost per delivery."),
    "fidelity": ("cnsim.bench.fidelity", "Seed 003 Tables I-III: Paint-Sparse's calls, readings."),
    "redundancy": (
        "cnsim.bench.redundancy",
        "Seed 003 Table II: Paint-Sparse(eps)'s redundancy by region kind and reading.",
    ),
    "table2_spread": (
        "cnsim.bench.table2_spread",
        "Seed 003 Table II on long drawn runs: Paint-Sparse(eps)'s redundancy and its spread.",
    ),
    "memory": ("cnsim.bench.memory", "The memory estimate against measured peaks, refitted."),
    "distributed": (
        "cnsim.bench.distributed",
        "Distributed object database: servers traversed vs k (seed 003 App. C, Fig. 20).",
    ),
    "distributed_network": (
        "cnsim.bench.distributed_network",
        "The database's servers as brokers: IP bytes of messages, publishing, walks.",
    ),
    "multidim": (
        "cnsim.bench.multidim",
        "1.5-d range subscriptions: Paint calls and traffic (seed 003 App. D, Tables VII-VIII).",
    ),
    "boxes": (
        "cnsim.bench.boxes",
        "d-dim box subscriptions: Paint messages vs k and d beside Theorem 8 (seed 003 §IV-C).",
    ),
    "run_loop": (
        "cnsim.bench.run_loop",
        "One run of each subscription kind by this checkout and an earlier revision.",
    ),
}


def _bench_command(name: str, module: str, doc: str):
    """The ``cnsim bench NAME`` command: its options (``config.BENCH_OPTIONS`` and the
    bench's own in ``config.BENCH_NAMED``, declared there and listed by --help) are checked
    before the benchmark runs, an unknown one too; it prints the headline and writes
    everything to --json."""
    import inspect

    from cnsim.simulations.config import BENCH_NAMED

    named = BENCH_NAMED.get(name, {})

    def command(ctx: typer.Context, **given: object) -> None:
        from cnsim.outputs import check_file_target, write_file
        from cnsim.simulations.config import bench_options

        values = {k: v for k, v in given.items() if v is not None and (v is not False
                  or k in ("quick", "full"))}  # fmt: skip
        values.update(_extra_options(ctx.args))  # unknown: rejected in the one shape
        options = bench_options(values, f"cnsim bench {name}", name)
        if options["json"] is not None:
            resume = bool(options.get("resume"))  # --resume reads the file and writes it back
            check_file_target(options["json"], "--json", keep=resume)  # before the bench runs
        run = importlib.import_module(module).run_bench
        kwargs = {k: options[k] for k in named}
        if "json" in inspect.signature(run).parameters:  # writes partial results itself
            kwargs["json"] = options["json"]
        results = run(quick=options["quick"], full=options["full"], **kwargs)
        if options["json"] is not None and not results.get("written"):
            text = json.dumps(results, indent=2, default=_json_scalar)
            write_file(Path(options["json"]), text + "\n", "--json")
        if "text" in results:  # a bench that prints a report instead of running
            typer.echo(results["text"])
        else:
            typer.echo(json.dumps(results["headline"], indent=1, default=_json_scalar))

    params = [
        inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=typer.Context)
    ]
    options = {
        "quick": (None, "small sizes, a fast look (CI-size)"),
        "full": (None, "the long form the published figures came from"),
        "json": ("PATH", "file to write the full results to (JSON)"),
    }
    options |= {key: (_metavar(spec), spec.doc) for key, spec in named.items()}
    for key, (metavar, help_) in options.items():
        flag = "--" + key.replace("_", "-")
        option = typer.Option(flag, metavar=metavar, help=help_, show_default=False)
        kind = bool if metavar is None else str
        annotation = Annotated[bool, option] if kind is bool else Annotated[str | None, option]
        params.append(inspect.Parameter(key, inspect.Parameter.KEYWORD_ONLY,
                                        default=False if kind is bool else None,
                                        annotation=annotation))  # fmt: skip

    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    command.__doc__ = doc
    return command


def _metavar(key) -> str | None:
    """What a bench option's value is, for --help (None: a flag)."""
    if key.kind is bool:
        return None
    if key.kind is list:
        return f"{_metavar_of(key.items or str)},.."
    return _metavar_of(key.kind)


def _metavar_of(kind: type) -> str:
    return {int: "INTEGER", float: "FLOAT"}.get(kind, "TEXT")


def _extra_options(args: list[str]) -> dict[str, object]:
    """The options a bench command does not declare, as ``--name value`` or
    ``--name=value`` pairs (a flag without a value reads as true), for the one error."""
    out: dict[str, object] = {}
    i = 0
    while i < len(args):
        word = args[i]
        key, eq, value = word.lstrip("-").partition("=")
        if eq:
            out[key.replace("-", "_")] = value
        elif i + 1 < len(args) and not args[i + 1].startswith("--"):
            out[key.replace("-", "_")] = args[i + 1]
            i += 1
        else:
            out[key.replace("-", "_")] = True
        i += 1
    return out


def _json_scalar(value: object) -> object:
    """JSON for the numpy scalars in benchmark results."""
    import numpy as np

    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


class _BenchGroup(typer.core.TyperGroup):
    """``cnsim bench``: its commands are made when asked for (their named options come
    from the configuration layer, which every other command would otherwise import)."""

    def list_commands(self, ctx) -> list[str]:
        return list(BENCHES)

    def get_command(self, ctx, name: str):
        if name not in BENCHES:
            return None
        one = typer.Typer(add_completion=False, rich_markup_mode=None)
        settings = {"allow_extra_args": True, "ignore_unknown_options": True}
        command = _bench_command(name, *BENCHES[name])
        one.command(name, context_settings=settings, cls=_Command)(command)
        return typer.main.get_command(one)


bench_app.info.cls = _BenchGroup


def _summary_table(summary: dict) -> str:
    from cnsim.simulations.metrics import CATALOG

    columns = CATALOG.cli_columns()
    per = "event" if summary["batch_size"] == 1 else f"batch of {summary['batch_size']}"
    rows = [f"{'per ' + per:<28}" + "".join(f"{h:>11}" for h, *_ in columns)]
    for name, s in summary["approaches"].items():
        cells = []
        for _, key, scale, fmt in columns:
            value = s.get(key)
            cells.append(f"{'-':>11}" if value is None else f"{scale * value:>11{fmt}}")
        rows.append(f"{name:<28}" + "".join(cells))
    if "commands" in summary:  # seed 001's command stream (runner.StreamSimulation)
        workload = f"{summary['commands']} commands on {summary['attributes']} attributes"
    else:
        workload = (
            f"{summary['objects']} objects, {summary['subscriptions']} subscriptions, "
            f"k = {summary['k']}"
        )
    head = f"{summary['events']} events, {workload}, overlay: {summary['overlay']}"
    return "\n".join([head, *rows])


def main() -> None:
    """Entry point: user errors (bad options, bad input) become one line on stderr and
    exit status 2; Ctrl-C says what was kept and exits 130."""
    try:
        code = app(standalone_mode=False)
    except typer.Abort:
        _interrupted()
    except typer.TyperException as exc:  # click's usage errors, vendored by typer
        if type(exc).__name__ == "NoArgsIsHelpError":
            print(exc.format_message(), file=sys.stderr)  # the help text
            sys.exit(2)
        ctx = getattr(exc, "ctx", None)
        where = f" (see {ctx.command_path} --help)" if ctx is not None else ""
        print(f"error: {exc.format_message()}{where}", file=sys.stderr)
        sys.exit(getattr(exc, "exit_code", 2))
    except CnsimError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        _interrupted()
    sys.exit(code or 0)


def _interrupted() -> None:
    print("interrupted (Ctrl-C): nothing of this command was written", file=sys.stderr)
    sys.exit(130)
