"""Executors of a sweep: every run not yet in the dataset, serially in this process or
as one Spark task per run (biggest first), with progress over runs
(:mod:`cnsim.simulations.progress`: a bar on a terminal, plain lines elsewhere).

A run is shipped as plain data (:func:`execute_run` takes a dict), so a Spark worker
needs only an importable cnsim; one run's failure becomes an error row, not a failed
sweep.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import sys
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cnsim.errors import CLI, CnsimError, InputError, Names
from cnsim.outputs import place
from cnsim.simulations.config import from_dict
from cnsim.simulations.progress import Progress, interval_s, track
from cnsim.simulations.sizes import check_fits
from cnsim.simulations.sweep.dataset import (
    atomic_write,
    claim_dataset,
    error_row,
    finished,
    ok_rows,
    open_dataset,
    run_file,
    write_events,
    write_rows,
)
from cnsim.simulations.sweep.spec import RunSpec, Sweep


@dataclass
class SweepReport:
    """What one invocation did."""

    total: int
    skipped: int
    ran: int
    failed: list[tuple[str, str]] = field(default_factory=list)  # (run id, error)
    wall_s: float = 0.0


def run_sweep(
    sweep: Sweep,
    out: str | Path,
    master: str | None = None,
    serial: bool = False,
    progress: bool = True,
    spark: Any = None,
    overwrite: bool = False,
    verbose: bool = False,
    names: Names = CLI,
    part: str | None = None,
) -> SweepReport:
    """Run every run of ``sweep`` not yet in ``out``, serially or one Spark task per run
    (``spark``: an existing SparkSession to use, left running; ``verbose``: Spark's and
    the JVM's own messages on stderr, else in a log file). ``out`` must be new, empty or
    this sweep's dataset (``overwrite``: any folder cnsim wrote); the Spark master is
    checked before any work. ``names``: how messages name the arguments (options or
    keywords); ``part``: the dataset is ``out/part`` (a reproduction's sweep)."""
    started = time.perf_counter()
    where = place(out, names, part)
    out = claim_dataset(out, sweep, overwrite, names, part)
    if progress:
        interval_s()  # a bad $CNSIM_PROGRESS_S fails before any work
    if not serial and spark is None:
        check_master(master, names=names)
    if serial or master is None or master.startswith("local"):  # runs on this machine
        for run in sweep.runs:
            check_fits(from_dict(run.scenario, f"{sweep.name} run {run.run_id}"))
    open_dataset(out, sweep, where)
    pending = [run for run in sweep.runs if not finished(out, run.run_id)]
    tasks = [_task(sweep, run, out) for run in pending]
    if not tasks:
        results: list[list[dict[str, Any]]] = []
    elif serial:
        results = _run_serial(tasks, progress)
    else:
        results = _run_spark(tasks, master, progress, spark, verbose)
    for task, rows in zip(tasks, results, strict=True):
        if not run_file(out, task["run_id"]).exists():  # no shared filesystem with workers
            write_rows(run_file(out, task["run_id"]), rows)
    failed = [(r[0]["run_id"], r[0]["error"]) for r in results if r[0]["status"] == "error"]
    skipped = len(sweep.runs) - len(tasks)
    return SweepReport(len(sweep.runs), skipped, len(tasks), failed, time.perf_counter() - started)


def execute_run(task: dict[str, Any]) -> list[dict[str, Any]]:
    """Run one sweep run and return its rows (written to ``task["out"]`` if set);
    an exception becomes one error row instead of escaping (one bad run must not
    sink the sweep)."""
    try:
        rows = _run_rows(task)
    except Exception as exc:  # any failure of a run is recorded as data
        rows = [error_row(task, exc)]
    if task.get("out"):
        # A worker without the shared filesystem cannot write: the driver writes it.
        with contextlib.suppress(OSError):
            write_rows(run_file(task["out"], task["run_id"]), rows)
    return rows


def _run_rows(task: dict[str, Any]) -> list[dict[str, Any]]:
    from cnsim.simulations.runner import run as run_scenario  # heavy: import in the task

    scenario = from_dict(task["scenario"], f"{task['sweep']} run {task['run_id']}")
    frame, summary = run_scenario(scenario)
    if task.get("keep_events") and task.get("out"):
        write_events(task["out"], task["run_id"], frame)
    return ok_rows(task, summary)


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
    name = tasks[0]["sweep"]  # the progress names the sweep (a reproduction runs several)
    return [execute_run(t) for t in track(tasks, len(tasks), name, "run", enabled=progress)]


MASTER_FORMS = (
    "local, local[N], local[*], local[N,F], local-cluster[N,C,M], spark://HOST:PORT, yarn "
    "or k8s://URL"
)
_MASTER = re.compile(
    r"local(\[(\*|[1-9]\d*)(,\s*[1-9]\d*)?\])?|local-cluster\[\d+,\s*\d+,\s*\d+\]"
    r"|spark://[^\s:/,]+:\d{1,5}(,[^\s:/,]+:\d{1,5})*|yarn|k8s://\S+"
)


def check_master(master: str | None, timeout_s: float = 3.0, names: Names = CLI) -> None:
    """Check a Spark master URL before any work: its form, and for ``spark://`` that
    something listens there (else Spark waits a minute, then prints pages of Java);
    ``names``: how messages name ``master`` and ``serial``."""
    if master is None:
        return
    given = names.given("master", master)
    if not _MASTER.fullmatch(master):
        raise InputError(f"{given}: not a Spark master URL; allowed: {MASTER_FORMS}")
    if not master.startswith("spark://"):
        return
    errors = []
    for address in master.removeprefix("spark://").split(","):
        host, port = address.rsplit(":", 1)
        try:
            socket.create_connection((host, int(port)), timeout=timeout_s).close()
            return
        except OSError as exc:
            errors.append(exc.strerror or type(exc).__name__)
    raise InputError(
        f"{given}: cannot reach the Spark master ({errors[0]}); start one "
        f"($SPARK_HOME/sbin/start-master.sh) or use {names.given('master', 'local[*]')} "
        f"(or {names.flag('serial')})"
    )


def spark_session(
    master: str | None = None, app_name: str = "cnsim-sweep", verbose: bool = False
) -> Any:
    """A quiet SparkSession whose Python workers run this interpreter (``master`` None:
    spark-submit's ``--master``, else ``local[*]``). Quiet: Spark logs at ERROR, and the
    JVM it starts writes its own messages (warnings such as "Using incubator modules")
    and Spark's log to :func:`spark_log`, not to the user's screen; ``verbose``: Spark
    at WARN, all of it on stderr."""
    from pyspark.sql import SparkSession

    local = master is None or master.startswith("local")
    if local and "PYSPARK_GATEWAY_PORT" not in os.environ:
        os.environ["PYSPARK_PYTHON"] = sys.executable  # workers must import this cnsim
    else:
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # a cluster may set its own
    if not verbose:
        _quiet_spark_startup()
    builder = SparkSession.builder.appName(app_name)
    if master is not None:
        builder = builder.master(master)
    builder = (
        builder.config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")  # our progress counts runs
        .config("spark.python.worker.reuse", "true")  # keep numba caches warm across runs
    )
    try:
        with contextlib.nullcontext() if verbose else _stderr_to(spark_log()):
            session = builder.getOrCreate()  # a JVM started here inherits the log as stderr
    except Exception as exc:  # Java missing, master refused: one line, not pages
        raise CnsimError(
            f"cannot start Spark (master {master or 'local[*]'!r}): {_first_line(exc)}; "
            "check the master (or use --master 'local[*]' / --serial) and that Java 17 is "
            f"installed (bash scripts/setup.sh); {_log_hint(verbose)}"
        ) from None
    session.sparkContext.setLogLevel("WARN" if verbose else "ERROR")
    return session


def stop_spark(session: Any) -> None:
    """Stop a session started here, and give Ctrl-C back to Python: PySpark's handler
    (cancel the context's jobs) outlives its context, and a Ctrl-C (or a SIGINT) after
    the stop would meet a context that is gone."""
    session.stop()
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.default_int_handler)


def spark_log() -> Path:
    """Where a quiet Spark session's JVM writes its messages and Spark's log: one file
    per process in the temporary folder (named in the error of a failed Spark job)."""
    import tempfile

    return Path(tempfile.gettempdir()) / f"cnsim-spark-{os.getuid()}-{os.getpid()}.log"


def _log_hint(verbose: bool) -> str:
    return "Spark's messages are above" if verbose else f"Spark's log: {spark_log()}"


@contextlib.contextmanager
def _stderr_to(path: Path):
    """File descriptor 2 pointed at ``path`` (appended) for the block: processes started
    in it (the JVM, and the Python workers it starts) keep writing there; this
    process's stderr is restored after."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.dup2(fd, 2)
        finally:
            os.close(fd)
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)


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
    atomic_write(path, lambda tmp: tmp.write_text(text))
    os.environ["PYSPARK_SUBMIT_ARGS"] = (
        f"--driver-java-options -Dlog4j2.configurationFile=file:{path} pyspark-shell"
    )


def _run_spark(
    tasks: list[dict[str, Any]],
    master: str | None,
    progress: bool,
    spark: Any,
    verbose: bool = False,
) -> list[list[dict[str, Any]]]:
    own = spark is None
    session = spark_session(master, verbose=verbose) if own else spark
    # Biggest runs first (longest-processing-time order): fewer idle cores at the end.
    order = sorted(range(len(tasks)), key=lambda i: -_cost(tasks[i]["scenario"]))
    try:
        sc = session.sparkContext
        rdd = sc.parallelize([tasks[i] for i in order], numSlices=len(tasks))
        name = tasks[0]["sweep"]
        rows = _collect(sc, rdd.map(execute_run), len(tasks), name, progress, verbose)
    finally:
        if own:
            stop_spark(session)
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


def _collect(sc: Any, rdd: Any, total: int, name: str, progress: bool, verbose: bool) -> list[Any]:
    """A sweep's ``rdd.collect()``, its progress over the runs completed."""
    kept = "runs finished so far are kept, run the same command again to resume"
    return collect(sc, rdd, total, name, "run", progress, verbose, kept)


def collect(
    sc: Any,
    rdd: Any,
    total: int,
    name: str,
    unit: str,
    progress: bool,
    verbose: bool,
    kept: str,
    done: Callable[[], int] | None = None,
    action: Callable[[Any], Any] | None = None,
) -> Any:
    """``rdd.collect()`` (or ``action(rdd)``) in a thread while the progress follows
    ``done()`` (default: the tasks completed) of ``total`` (in ``unit``); Ctrl-C cancels
    the job; a failure is one line saying what is ``kept``."""
    group = f"cnsim-{uuid.uuid4().hex}"
    box: dict[str, Any] = {}
    done = done or (lambda: _completed_tasks(sc, group))

    def work() -> None:
        sc.setJobGroup(group, f"cnsim {name}", interruptOnCancel=True)
        try:
            box["rows"] = rdd.collect() if action is None else action(rdd)
        except Exception as exc:  # re-raised in the caller's thread
            box["error"] = exc

    thread = threading.Thread(target=work, name="cnsim-collect", daemon=True)
    thread.start()
    with Progress(total, name, unit, enabled=progress) as bar:
        try:
            while thread.is_alive():
                thread.join(0.5)
                bar.update(done() - bar.n)
        except KeyboardInterrupt:
            sc.cancelJobGroup(group)
            raise
        bar.update(total - bar.n if "rows" in box else 0)
    if "error" in box:
        raise CnsimError(
            f"the Spark job failed ({_first_line(box['error'])}); {kept}; {_log_hint(verbose)}"
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
