"""Parameter sweeps: one scenario run per combination of axis values × repeat, serially
or as one Spark task per run, results appended to a Parquet dataset.

A sweep file is a scenario file (or ``base = "scenario.toml"`` plus inline overrides)
with a ``[sweep]`` table of axes; see ``cnsim/simulations/SWEEPS.md`` for the format.

* Every run gets its own seed from ``numpy.random.SeedSequence`` over the sweep seed
  and the SHA-256 of the canonical JSON of the run's axis values and repeat index, so
  adding values to an axis never changes the seeds of the other runs.
* A run's id is the SHA-256 of its full validated scenario and repeat index: a run
  already present in the output directory is skipped, so an interrupted sweep resumes
  without losing or duplicating rows; runs that failed are retried.
* Each run writes its rows (one per approach, or one error row) to its own Parquet
  file, under a temporary name first and then renamed, so a file is all or nothing.

Usable as a script under ``spark-submit`` (``spark-submit cnsim/simulations/sweep.py
SWEEP.toml --out DIR``) or ``python -m cnsim.simulations.sweep``.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import itertools
import json
import os
import sys
import threading
import time
import tomllib
import traceback
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer

from cnsim.errors import CnsimError, ConfigError, InputError
from cnsim.simulations.config import from_dict

SWEEP_KEYS = ("name", "seed", "repeat", "grid", "zip", "seed_ignore", "keep_events")
RESERVED = ("base", "sweep", "quick")  # top-level keys of a sweep file that are not scenario
MANIFEST = "_sweep.json"  # leading "_": Parquet readers skip it
EVENTS_DIR = "_events"


@dataclass(frozen=True)
class RunSpec:
    """One run of a sweep: its id, repeat index, derived seed, axis values and scenario."""

    run_id: str
    repeat: int
    seed: int
    params: dict[str, Any]
    scenario: dict[str, Any]


@dataclass(frozen=True)
class Sweep:
    """A validated, expanded sweep."""

    name: str
    source: str
    seed: int
    repeat: int
    axes: list[list[str]]  # groups of axis paths varied together (a grid axis alone)
    seed_ignore: list[str]
    keep_events: bool
    runs: list[RunSpec]


@dataclass
class SweepReport:
    """What one invocation did."""

    total: int
    skipped: int
    ran: int
    failed: list[tuple[str, str]] = field(default_factory=list)  # (run id, error)
    wall_s: float = 0.0


# --------------------------------------------------------------------- loading


def load_sweep(path: str | Path, quick: bool = False, repeat: int | None = None) -> Sweep:
    """Read, validate and expand a sweep TOML file (``quick``: apply its ``[quick]`` table)."""
    path = Path(path)
    doc = _read_toml(path, "sweep file")
    return expand(doc, str(path), path.parent, quick=quick, repeat=repeat)


def expand(
    doc: dict[str, Any],
    source: str = "<sweep>",
    base_dir: str | Path = ".",
    quick: bool = False,
    repeat: int | None = None,
) -> Sweep:
    """Validate a sweep document fully and expand it into its runs (also checks the
    variant not asked for, so a broken ``[quick]`` table is caught either way)."""
    if "quick" in doc and not isinstance(doc["quick"], dict):
        raise ConfigError(f"{source}: quick = {doc['quick']!r} must be a table of overrides")
    if quick and "quick" not in doc:
        raise ConfigError(f"{source}: --quick given but the file has no [quick] table")
    plain = {k: v for k, v in doc.items() if k != "quick"}
    with_quick = _merge(plain, doc["quick"]) if "quick" in doc else None
    if with_quick is not None and "quick" in doc["quick"]:
        raise ConfigError(f"{source}: [quick] cannot contain another [quick] table")
    where = (Path(base_dir), repeat, Path(source).stem)  # the default name: the file's
    chosen = _expand(with_quick if quick else plain, _label(source, quick), *where)
    if with_quick is not None:
        _expand(plain if quick else with_quick, _label(source, not quick), *where)
    return chosen


def _label(source: str, quick: bool) -> str:
    return f"{source} (with [quick])" if quick else source


def _expand(
    doc: dict[str, Any], source: str, base_dir: Path, repeat: int | None, name: str
) -> Sweep:
    raw = _base_scenario(doc, source, base_dir)
    table = _sweep_table(doc.get("sweep", {}), source)
    _check_scenario(raw, source)
    groups = _axis_groups(table, source)
    paths = [p for group, _ in groups for p in group]
    seed_ignore = _seed_ignore(table, paths, source)
    sweep_seed = table.get("seed", raw.get("seed", 0))
    repeats = repeat if repeat is not None else table.get("repeat", 1)
    if not isinstance(repeats, int) or isinstance(repeats, bool) or repeats < 1:
        raise ConfigError(f"{source}: repeat = {repeats!r} must be an integer >= 1")
    runs = []
    for combo in _combinations(groups):
        runs.extend(_runs_of(raw, combo, sweep_seed, seed_ignore, repeats, source))
    _check_unique(runs, source)
    axes = [paths for paths, _ in groups]
    keep = table.get("keep_events", False)
    name = table.get("name", name)
    return Sweep(name, source, sweep_seed, repeats, axes, seed_ignore, keep, runs)


def _read_toml(path: Path, what: str) -> dict[str, Any]:
    try:
        text = path.read_text()
    except OSError as exc:
        raise ConfigError(f"cannot read {what} {str(path)!r}: {exc.strerror}") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None


def _base_scenario(doc: dict[str, Any], source: str, base_dir: Path) -> dict[str, Any]:
    """The scenario document: the ``base`` file (if any) overlaid with the inline tables."""
    inline = {k: v for k, v in doc.items() if k not in RESERVED}
    if "base" not in doc:
        return inline
    base = doc["base"]
    if not isinstance(base, str):
        raise ConfigError(f"{source}: base = {base!r} must be a path (string) to a scenario file")
    base_doc = _read_toml(base_dir / base, "base scenario")
    if any(k in base_doc for k in RESERVED):
        raise ConfigError(
            f"{source}: base = {base!r} must be a scenario file, not a sweep file "
            f"(it has one of {', '.join(RESERVED)})"
        )
    return _merge(base_doc, inline)


def _merge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """``b`` laid over ``a``: tables merged key by key, other values replaced."""
    out = copy.deepcopy(a)
    for key, value in b.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _sweep_table(table: Any, source: str) -> dict[str, Any]:
    if not isinstance(table, dict):
        raise ConfigError(f"{source}: sweep = {table!r} must be a table")
    for key in table:
        if key not in SWEEP_KEYS:
            raise ConfigError(
                f"{source}: unknown key 'sweep.{key}'; allowed: {', '.join(SWEEP_KEYS)}"
            )
    checks = {
        "name": (str, "a string"),
        "seed": (int, "an integer >= 0"),
        "keep_events": (bool, "true or false"),
    }
    for key, (kind, what) in checks.items():
        value = table.get(key)
        bad_int = kind is int and (
            isinstance(value, bool) or (isinstance(value, int) and value < 0)
        )
        if key in table and (not isinstance(value, kind) or bad_int):
            raise ConfigError(f"{source}: sweep.{key} = {value!r} must be {what}")
    return table


def _check_scenario(raw: dict[str, Any], source: str) -> None:
    if "seed" in raw and (not isinstance(raw["seed"], int) or raw["seed"] < 0):
        raise ConfigError(f"{source}: seed = {raw['seed']!r} must be an integer >= 0")
    from_dict(raw, source)


def _axis_groups(table: dict[str, Any], source: str) -> list[tuple[list[str], list[tuple]]]:
    """Axes grouped as they vary together, each as ``(paths, rows of values)``: every grid
    axis alone, every zip table as one group."""
    grid = table.get("grid", {})
    if not isinstance(grid, dict):
        raise ConfigError(f"{source}: sweep.grid = {grid!r} must be a table of axis = [values]")
    zips = table.get("zip", [])
    zips = [zips] if isinstance(zips, dict) else zips
    if not isinstance(zips, list) or not all(isinstance(z, dict) for z in zips):
        raise ConfigError(
            f"{source}: sweep.zip = {table.get('zip')!r} must be a table (or an array of "
            "tables) of axis = [values]"
        )
    seen: dict[str, str] = {}
    groups = [
        ([_axis(p, v, "sweep.grid", seen, source)], [(x,) for x in v]) for p, v in grid.items()
    ]
    for i, z in enumerate(zips):
        where = "sweep.zip" if len(zips) == 1 else f"sweep.zip[{i}]"
        paths = [_axis(p, v, where, seen, source) for p, v in z.items()]
        lengths = {p: len(z[p]) for p in paths}
        if len(set(lengths.values())) > 1:
            raise ConfigError(
                f"{source}: {where} lists must all have the same length; got {lengths}"
            )
        if paths:
            groups.append((paths, list(zip(*(z[p] for p in paths), strict=True))))
    return groups


def _axis(path: str, values: Any, where: str, seen: dict[str, str], source: str) -> str:
    """Check one axis: a ``section.key`` path, a non-empty list of values, named once."""
    if path == "seed":
        raise ConfigError(
            f"{source}: {where}.seed: the seed cannot be an axis (every run's seed is "
            "derived from sweep.seed and its parameters); use sweep.repeat for replicates"
        )
    section, dot, key = path.partition(".")
    if not dot or not section or not key:
        raise ConfigError(
            f"{source}: {where} axis {path!r} must be a dotted 'section.key' path, "
            "e.g. 'subscriptions.k'"
        )
    if not isinstance(values, list) or not values:
        raise ConfigError(
            f"{source}: {where}.{path!r} = {values!r} must be a non-empty array of values"
        )
    if path in seen:
        raise ConfigError(f"{source}: axis {path!r} appears in both {seen[path]} and {where}")
    seen[path] = where
    for value in values:
        _canonical(value, f"{source}: {where}.{path!r} value")  # plain data only
    return path


def _seed_ignore(table: dict[str, Any], paths: list[str], source: str) -> list[str]:
    ignore = table.get("seed_ignore", [])
    if not isinstance(ignore, list) or not all(isinstance(p, str) for p in ignore):
        raise ConfigError(f"{source}: sweep.seed_ignore = {ignore!r} must be an array of axes")
    for p in ignore:
        if p not in paths:
            raise ConfigError(
                f"{source}: sweep.seed_ignore names {p!r}, which is not an axis; "
                f"axes: {', '.join(paths) or 'none'}"
            )
    return ignore


def _combinations(groups: list[tuple[list[str], list[tuple]]]) -> list[dict[str, Any]]:
    """Grid axes and zip groups crossed, in file order (the first axis varies slowest)."""
    combos = []
    for picks in itertools.product(*(rows for _, rows in groups)):
        combo: dict[str, Any] = {}
        for (paths, _), row in zip(groups, picks, strict=True):
            combo.update(zip(paths, row, strict=True))
        combos.append(combo)
    return combos


def _runs_of(
    raw: dict[str, Any],
    combo: dict[str, Any],
    sweep_seed: int,
    seed_ignore: list[str],
    repeats: int,
    source: str,
) -> list[RunSpec]:
    """The runs of one combination of axis values, one per repeat index."""
    label = f"{source} (run {_describe(combo)})"
    doc = copy.deepcopy(raw)
    for path, value in combo.items():
        section, _, key = path.partition(".")
        if not isinstance(doc.setdefault(section, {}), dict):
            raise ConfigError(f"{label}: axis {path!r}: {section!r} is not a table")
        doc[section][key] = copy.deepcopy(value)
    validated = from_dict(doc, label).as_dict()
    # Seeds and columns use the validated values (e.g. 1 -> 1.0 for a float key), so
    # writing an axis value differently does not change a run.
    params = {p: validated[p.partition(".")[0]][p.partition(".")[2]] for p in combo}
    seed_params = {p: v for p, v in params.items() if p not in seed_ignore}
    runs = []
    for r in range(repeats):
        seed = derive_seed(sweep_seed, seed_params, r)
        run_table = {**doc.get("run", {}), "progress": False}  # no bars inside workers
        scenario = from_dict({**doc, "seed": seed, "run": run_table}, label).as_dict()
        runs.append(RunSpec(run_id_of(scenario, r), r, seed, params, scenario))
    return runs


def _check_unique(runs: list[RunSpec], source: str) -> None:
    seen: dict[str, RunSpec] = {}
    for run in runs:
        if run.run_id in seen:
            raise ConfigError(
                f"{source}: two runs have identical scenarios ({_describe(seen[run.run_id].params)}"
                f" and {_describe(run.params)}); an axis lists a value twice"
            )
        seen[run.run_id] = run


# ------------------------------------------------------------------ seeds and ids


def _canonical(value: Any, what: str = "value") -> str:
    """Canonical JSON: sorted keys, no spaces, no NaN — the same text on every machine."""
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError):
        raise ConfigError(f"{what} {value!r} is not plain data (number, string, list)") from None


def _digest(value: Any) -> bytes:
    return hashlib.sha256(_canonical(value).encode()).digest()


def derive_seed(sweep_seed: int, params: dict[str, Any], repeat: int) -> int:
    """A run's seed (0 .. 2^63 − 1) from the sweep seed, its axis values and repeat index."""
    digest = _digest({"params": params, "repeat": repeat})
    entropy = [sweep_seed, *np.frombuffer(digest, dtype="<u4").tolist()]
    hi, lo = np.random.SeedSequence(entropy).generate_state(2, np.uint32).tolist()
    return ((hi << 32) | lo) >> 1  # 63 bits: fits Parquet int64 and NetworkParams.seed


def run_id_of(scenario: dict[str, Any], repeat: int) -> str:
    """A run's id: SHA-256 (16 hex digits) of its full validated scenario and repeat."""
    return _digest({"scenario": scenario, "repeat": repeat}).hex()[:16]


def _describe(params: dict[str, Any]) -> str:
    return ", ".join(f"{p}={_canonical(v)}" for p, v in params.items()) or "no axes"


# ----------------------------------------------------------------- one run (a task)


def run_file(out: str | Path, run_id: str) -> Path:
    """The Parquet file holding a run's rows."""
    return Path(out) / f"run-{run_id}.parquet"


def execute_run(task: dict[str, Any]) -> list[dict[str, Any]]:
    """Run one sweep run and return its rows (written to ``task["out"]`` if set);
    an exception becomes one error row instead of escaping (one bad run must not
    sink the sweep)."""
    try:
        rows = _run_rows(task)
    except Exception as exc:  # any failure of a run is recorded as data
        rows = [_error_row(task, exc)]
    if task.get("out"):
        # A worker without the shared filesystem cannot write: the driver writes it.
        with contextlib.suppress(OSError):
            _write_rows(run_file(task["out"], task["run_id"]), rows)
    return rows


def _run_rows(task: dict[str, Any]) -> list[dict[str, Any]]:
    from cnsim.simulations.runner import run as run_scenario  # heavy: import in the task

    scenario = from_dict(task["scenario"], f"{task['sweep']} run {task['run_id']}")
    frame, summary = run_scenario(scenario)
    if task.get("keep_events") and task.get("out"):
        path = Path(task["out"]) / EVENTS_DIR / f"run-{task['run_id']}.parquet"
        path.parent.mkdir(parents=True, exist_ok=True)
        _atomic(path, lambda tmp: frame.to_parquet(tmp, index=False))
    top = {k: v for k, v in summary.items() if _scalar(v) and k != "source"}
    return [
        {**_head(task, "ok"), "approach": name, **top, **_scalars(metrics)}
        for name, metrics in summary["approaches"].items()
    ]


def _head(task: dict[str, Any], status: str) -> dict[str, Any]:
    """Columns every row of a run starts with: identity, status and the axis values
    (lists and tables as canonical JSON, so a column keeps one type)."""
    params = {p: (v if _scalar(v) else _canonical(v)) for p, v in task["params"].items()}
    return {
        "run_id": task["run_id"],
        "sweep": task["sweep"],
        "repeat": task["repeat"],
        "seed": task["seed"],
        "params": _canonical(task["params"]),
        "status": status,
        "error": None,
        **params,
    }


def _error_row(task: dict[str, Any], exc: BaseException) -> dict[str, Any]:
    row = {**_head(task, "error"), "approach": None}
    row["error"] = f"{type(exc).__name__}: {exc}"
    row["traceback"] = traceback.format_exc(limit=-8)
    return row


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, bool | int | float | str)


def _scalars(metrics: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in metrics.items() if _scalar(v)}


def _atomic(path: Path, write) -> None:
    """Write via a hidden temporary name in the same directory, then rename: readers
    (and a resumed sweep) see the whole file or none of it."""
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _write_rows(path: Path, rows: list[dict[str, Any]]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    _atomic(path, lambda tmp: pq.write_table(pa.Table.from_pylist(rows), tmp))


# -------------------------------------------------------------------- results


def read_results(out: str | Path) -> Any:
    """All rows of a sweep directory as one pandas DataFrame (column types unified
    across runs, error rows included), sorted by run id and approach."""
    import pandas as pd
    import pyarrow as pa
    import pyarrow.dataset as ds
    import pyarrow.parquet as pq

    files = sorted(str(p) for p in Path(out).glob("run-*.parquet"))
    if not files:
        return pd.DataFrame()
    # Error rows lack the metric columns and may come first: unify every file's schema
    # instead of trusting the first one, as pd.read_parquet(dir) would.
    schema = pa.unify_schemas([pq.read_schema(f) for f in files], promote_options="permissive")
    frame = ds.dataset(files, schema=schema, format="parquet").to_table().to_pandas()
    return frame.sort_values(["run_id", "approach"], na_position="first", ignore_index=True)


def _finished(out: Path, run_id: str) -> bool:
    """Whether a run's rows are present and it did not fail (failed runs are retried)."""
    import pyarrow.parquet as pq

    path = run_file(out, run_id)
    if not path.exists():
        return False
    try:
        status = pq.read_table(path, columns=["status"]).column("status").to_pylist()
    except Exception:  # an unreadable file is rerun and replaced
        return False
    return "error" not in status


# ------------------------------------------------------------------- executors


def run_sweep(
    sweep: Sweep,
    out: str | Path,
    master: str | None = None,
    serial: bool = False,
    progress: bool = True,
    spark: Any = None,
) -> SweepReport:
    """Run every run of ``sweep`` not yet in ``out``, serially or one Spark task per run
    (``spark``: an existing SparkSession to use, left running)."""
    started = time.perf_counter()
    out = _prepare_out(out)
    _write_manifest(out, sweep)
    pending = [run for run in sweep.runs if not _finished(out, run.run_id)]
    tasks = [_task(sweep, run, out) for run in pending]
    if not tasks:
        results: list[list[dict[str, Any]]] = []
    elif serial:
        results = _run_serial(tasks, progress)
    else:
        results = _run_spark(tasks, master, progress, spark)
    for task, rows in zip(tasks, results, strict=True):
        if not run_file(out, task["run_id"]).exists():  # no shared filesystem with workers
            _write_rows(run_file(out, task["run_id"]), rows)
    failed = [(r[0]["run_id"], r[0]["error"]) for r in results if r[0]["status"] == "error"]
    skipped = len(sweep.runs) - len(tasks)
    return SweepReport(len(sweep.runs), skipped, len(tasks), failed, time.perf_counter() - started)


def _prepare_out(out: str | Path) -> Path:
    path = Path(out).resolve()  # absolute: Spark workers run in other directories
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"--out {str(out)!r}: cannot create directory ({exc.strerror})") from None
    return path


def _write_manifest(out: Path, sweep: Sweep) -> None:
    """``_sweep.json``: the sweep's definition and every run's id, seed and axis values."""
    manifest = {
        "name": sweep.name,
        "source": sweep.source,
        "seed": sweep.seed,
        "repeat": sweep.repeat,
        "axes": sweep.axes,
        "seed_ignore": sweep.seed_ignore,
        "runs": [
            {"run_id": r.run_id, "repeat": r.repeat, "seed": r.seed, "params": r.params}
            for r in sweep.runs
        ],
    }
    text = json.dumps(manifest, indent=1) + "\n"
    _atomic(out / MANIFEST, lambda tmp: tmp.write_text(text))


def _task(sweep: Sweep, run: RunSpec, out: Path) -> dict[str, Any]:
    """A run as plain data, cheap to ship to a Spark worker."""
    return {
        "run_id": run.run_id,
        "sweep": sweep.name,
        "repeat": run.repeat,
        "seed": run.seed,
        "params": run.params,
        "scenario": run.scenario,
        "out": str(out),
        "keep_events": sweep.keep_events,
    }


def _run_serial(tasks: list[dict[str, Any]], progress: bool) -> list[list[dict[str, Any]]]:
    from tqdm import tqdm

    return [execute_run(t) for t in tqdm(tasks, desc="runs", unit="run", disable=not progress)]


def spark_session(master: str | None = None, app_name: str = "cnsim-sweep") -> Any:
    """A quiet SparkSession whose Python workers run this interpreter (``master`` None:
    spark-submit's ``--master``, else ``local[*]``)."""
    from pyspark.sql import SparkSession

    local = master is None or master.startswith("local")
    if local and "PYSPARK_GATEWAY_PORT" not in os.environ:
        os.environ["PYSPARK_PYTHON"] = sys.executable  # workers must import this cnsim
    else:
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # a cluster may set its own
    _quiet_spark_startup()
    builder = SparkSession.builder.appName(app_name)
    if master is not None:
        builder = builder.master(master)
    builder = (
        builder.config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")  # our tqdm bar counts runs
        .config("spark.python.worker.reuse", "true")  # keep numba caches warm across runs
    )
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session


def _quiet_spark_startup() -> None:
    """Point the driver JVM (launched by PySpark, not spark-submit) at a log4j2 config
    at ERROR, so starting Spark prints no banner or warnings."""
    if "PYSPARK_GATEWAY_PORT" in os.environ or "PYSPARK_SUBMIT_ARGS" in os.environ:
        return  # spark-submit (or the user) already decided
    import tempfile

    # The repl logger at the root's level too: else the shell banner reports its level.
    text = (
        "rootLogger.level = error\nrootLogger.appenderRef.stderr.ref = console\n"
        "logger.repl.name = org.apache.spark.repl.Main\nlogger.repl.level = error\n"
        "logger.py.name = org.apache.spark.api.python.PythonGatewayServer\n"
        "logger.py.level = error\n"
        "appender.console.type = Console\nappender.console.name = console\n"
        "appender.console.target = SYSTEM_ERR\nappender.console.layout.type = PatternLayout\n"
        "appender.console.layout.pattern = %d{yy/MM/dd HH:mm:ss} %p %c{1}: %m%n\n"
    )
    path = Path(tempfile.gettempdir()) / f"cnsim-log4j2-{os.getuid()}.properties"
    _atomic(path, lambda tmp: tmp.write_text(text))
    os.environ["PYSPARK_SUBMIT_ARGS"] = (
        f"--driver-java-options -Dlog4j2.configurationFile=file:{path} pyspark-shell"
    )


def _run_spark(
    tasks: list[dict[str, Any]], master: str | None, progress: bool, spark: Any
) -> list[list[dict[str, Any]]]:
    own = spark is None
    session = spark_session(master) if own else spark
    # Biggest runs first (longest-processing-time order): fewer idle cores at the end.
    order = sorted(range(len(tasks)), key=lambda i: -_cost(tasks[i]["scenario"]))
    try:
        sc = session.sparkContext
        rdd = sc.parallelize([tasks[i] for i in order], numSlices=len(tasks))
        rows = _collect(sc, rdd.map(execute_run), len(tasks), progress)
    finally:
        if own:
            session.stop()
    results: list[list[dict[str, Any]]] = [[] for _ in tasks]
    for i, run_rows in zip(order, rows, strict=True):
        results[i] = run_rows
    return results


def _cost(scenario: dict[str, Any]) -> float:
    """A rough relative cost of a run, only to order the Spark tasks."""
    events = scenario.get("events", {}).get("count", 1)
    subs = scenario.get("subscriptions", {}).get("count", 1)
    approaches = len(scenario.get("algorithm", {}).get("approaches", [1]))
    return events * approaches * (1 + subs / 10_000)


def _collect(sc: Any, rdd: Any, total: int, progress: bool) -> list[Any]:
    """``rdd.collect()`` in a thread while a tqdm bar follows the tasks completed."""
    from tqdm import tqdm

    group = f"cnsim-sweep-{uuid.uuid4().hex}"
    box: dict[str, Any] = {}

    def work() -> None:
        sc.setJobGroup(group, "cnsim sweep", interruptOnCancel=True)
        try:
            box["rows"] = rdd.collect()
        except Exception as exc:  # re-raised in the caller's thread
            box["error"] = exc

    thread = threading.Thread(target=work, name="cnsim-sweep-collect", daemon=True)
    thread.start()
    with tqdm(total=total, desc="runs", unit="run", disable=not progress) as bar:
        try:
            while thread.is_alive():
                thread.join(0.5)
                bar.update(_completed_tasks(sc, group) - bar.n)
        except KeyboardInterrupt:
            sc.cancelJobGroup(group)  # finished runs are on disk already: rerun to resume
            raise
        bar.update(total - bar.n if "rows" in box else 0)
    if "error" in box:
        raise CnsimError(
            f"the Spark job failed ({_first_line(box['error'])}); runs finished so far are "
            "kept, run the same command again to resume"
        )
    return box["rows"]


def _completed_tasks(sc: Any, group: str) -> int:
    tracker = sc.statusTracker()
    done = 0
    for job_id in tracker.getJobIdsForGroup(group):
        job = tracker.getJobInfo(job_id)
        for stage_id in job.stageIds if job else []:
            stage = tracker.getStageInfo(stage_id)
            done += stage.numCompletedTasks if stage else 0
    return done


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"


# ------------------------------------------------------------------------ CLI


def sweep_command(
    sweep: Annotated[Path, typer.Argument(help="sweep TOML file (see SWEEPS.md)")],
    out: Annotated[Path, typer.Option("--out", help="directory of the Parquet dataset")],
    master: Annotated[
        str | None,
        typer.Option("--master", help="Spark master URL [default: local[*], or spark-submit's]"),
    ] = None,
    repeat: Annotated[
        int | None, typer.Option("--repeat", min=1, help="runs per combination [default: file's]")
    ] = None,
    serial: Annotated[bool, typer.Option("--serial", help="run here, one after another")] = False,
    quick: Annotated[bool, typer.Option("--quick", help="apply the file's [quick] table")] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="validate and list the runs, run nothing")
    ] = False,
) -> None:
    """Run a parameter sweep (one Spark task per run), appending rows to Parquet in --out."""
    spec = load_sweep(sweep, quick=quick, repeat=repeat)
    if dry_run:
        for run in spec.runs:
            typer.echo(
                f"{run.run_id}  repeat={run.repeat}  seed={run.seed}  {_describe(run.params)}"
            )
        typer.echo(f"{len(spec.runs)} runs (nothing run: --dry-run)")
        return
    report = run_sweep(spec, out, master=master, serial=serial)
    typer.echo(
        f"{spec.name}: {report.total} runs — {report.skipped} already in {out}, "
        f"{report.ran} run now, {len(report.failed)} failed; {report.wall_s:.1f} s"
    )
    for run_id, error in report.failed[:10]:
        typer.echo(f"  failed {run_id}: {error}", err=True)
    if report.failed:
        typer.echo("  (failed runs have an error row; they are retried on the next invocation)")


def main(argv: list[str] | None = None) -> None:
    """Script entry (``spark-submit sweep.py ...``): user errors become one line, exit 2."""
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    app.command()(sweep_command)
    try:
        app(args=argv, prog_name="cnsim sweep")
    except CnsimError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    # Import by module name, so Spark pickles execute_run by reference, not by value.
    from cnsim.simulations.sweep import main as _main

    _main()
