"""The Parquet dataset of a sweep: the manifest, one row file per run written
atomically, the rows themselves, reading them back, and which runs are finished.

::

    DIR/
      .cnsim.json               the marker: cnsim wrote DIR, and every file it wrote there
      _sweep.json               the sweep: name, source, seed, axes, every run's id/seed/params
      run-<run id>.parquet      that run's rows (one per approach, or one error row)
      _events/run-<id>.parquet  per-event frames (only with sweep.keep_events)

A file is written in a staging folder inside the dataset, listed in the dataset's marker
(``.cnsim.json``, :func:`cnsim.outputs.put_file`) and renamed into place, so it is whole
or absent and always recognised as cnsim's: an interrupted sweep resumes without losing
or duplicating rows, and a dataset never holds a file of cnsim's that is not listed.
"""

from __future__ import annotations

import json
import math
import os
import traceback
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cnsim.errors import CLI, Names
from cnsim.outputs import claim, mark, marker, owner, put_file, replacing
from cnsim.simulations.sweep.seeds import canonical

if TYPE_CHECKING:
    import pandas as pd

    from cnsim.simulations.sweep.spec import Sweep

MANIFEST = "_sweep.json"  # leading "_": Parquet readers skip it
EVENTS_DIR = "_events"


def run_file(out: str | Path, run_id: str) -> Path:
    """The Parquet file holding a run's rows."""
    return Path(out) / f"run-{run_id}.parquet"


def claim_dataset(
    out: str | Path,
    sweep: Sweep,
    overwrite: bool = False,
    names: Names = CLI,
    part: str | None = None,
) -> Path:
    """Check, before any work, that ``out`` is this sweep's dataset or can become it
    (:func:`cnsim.outputs.claim`); return it as an absolute path (Spark workers run in
    other directories). A dataset is this sweep's when it has the same name and every
    run it already holds is one of this sweep's runs (a sweep may be extended: more
    repeats, more axis values); anything else would mix two sweeps' rows. ``names``:
    how messages name the arguments; ``part``: the dataset is ``out/part`` (a
    reproduction's sweep), messages name ``out``."""
    path = Path(out).expanduser().absolute() / (part or "")

    def same(found: dict[str, Any]) -> str | None:
        return _other(path, sweep, names)

    return claim(out, "sweep", overwrite=overwrite, same=same, names=names, part=part)


def open_dataset(path: Path, sweep: Sweep, where: str | None = None) -> None:
    """Make ``path`` (claimed) this sweep's dataset: emptied first if it held anything
    else — another kind, another sweep, runs this sweep lacks (``--overwrite``; the
    empty folder is swapped in atomically) — then its marker and manifest. ``where``:
    how a message names the folder (:func:`cnsim.outputs.place`)."""
    found = owner(path)
    if found is not None and (found["kind"] != "sweep" or _other(path, sweep) is not None):
        with replacing(path, marker("sweep", sweep.name), where):
            pass  # the earlier contents go, whole
    path.mkdir(parents=True, exist_ok=True)
    mark(path, marker("sweep", sweep.name))  # an earlier run of it keeps its listing
    write_manifest(path, sweep)


def _other(path: Path, sweep: Sweep, names: Names = CLI) -> str | None:
    """Why the sweep dataset at ``path`` is not ``sweep``'s (None: it is)."""
    manifest = read_manifest(path) or {}
    found = owner(path) or {}
    name = manifest.get("name", found.get("name"))
    if name != sweep.name:
        return f"holds the dataset of sweep {name!r}, not of {sweep.name!r}"
    held = {r.get("run_id") for r in manifest.get("runs", []) if isinstance(r, dict)}
    foreign = sorted(held - {r.run_id for r in sweep.runs}, key=str)
    if foreign:
        return (
            f"holds {len(foreign)} runs of sweep {name!r} that this version of it does "
            f"not have (e.g. run {foreign[0]}; another {names.arg('quick')}, "
            f"{names.arg('repeat')} or axis values?)"
        )
    return None


def read_manifest(path: Path) -> dict[str, Any] | None:
    """A dataset's ``_sweep.json``, or ``None`` if it has none (or it is unreadable)."""
    try:
        data = json.loads((path / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def atomic_write(path: Path, write: Callable[[Path], Any]) -> None:
    """Call ``write(tmp)`` for a hidden temporary name in the same directory, then rename
    it to ``path``: readers see the whole file or none of it (a file outside a dataset;
    a dataset's files: :func:`cnsim.outputs.put_file`)."""
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_manifest(out: Path, sweep: Sweep) -> None:
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
    put_file(out, MANIFEST, lambda tmp: tmp.write_text(text))


def write_rows(path: Path, rows: list[dict[str, Any]]) -> None:
    """A run's rows as one Parquet file of the dataset ``path.parent``, written
    atomically and listed in its marker."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    put_file(path.parent, path.name, lambda tmp: pq.write_table(pa.Table.from_pylist(rows), tmp))


def write_events(out: str | Path, run_id: str, frame: pd.DataFrame) -> None:
    """A run's per-event frame, into ``_events/`` (``sweep.keep_events``)."""
    rel = f"{EVENTS_DIR}/run-{run_id}.parquet"
    put_file(Path(out), rel, lambda tmp: frame.to_parquet(tmp, index=False))


def ok_rows(task: dict[str, Any], summary: dict[str, Any]) -> list[dict[str, Any]]:
    """A finished run's rows: one per approach, with the scalars of the run's summary
    and of the approach's metrics."""
    top = {k: v for k, v in summary.items() if _scalar(v) and k != "source"}
    return [
        {**_head(task, "ok"), "approach": name, **top, **_scalars(metrics)}
        for name, metrics in summary["approaches"].items()
    ]


def error_row(task: dict[str, Any], exc: BaseException) -> dict[str, Any]:
    """The one row of a failed run: its error and the end of the traceback."""
    row = {**_head(task, "error"), "approach": None}
    row["error"] = f"{type(exc).__name__}: {exc}"
    row["traceback"] = traceback.format_exc(limit=-8)
    return row


def _head(task: dict[str, Any], status: str) -> dict[str, Any]:
    """Columns every row of a run starts with: identity, status and the axis values
    (lists and tables as canonical JSON, so a column keeps one type)."""
    params = {p: (v if _scalar(v) else canonical(v)) for p, v in task["params"].items()}
    return {
        "run_id": task["run_id"],
        "sweep": task["sweep"],
        "repeat": task["repeat"],
        "seed": task["seed"],
        "params": canonical(task["params"]),
        "status": status,
        "error": None,
        **params,
    }


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, bool | int | float | str)


def _scalars(metrics: dict[str, Any]) -> dict[str, Any]:
    # an approach's entries are numbers: one a run could not give (None: an interval of
    # too short a run, a ratio without a reference) is NaN, so that its column is numeric
    # in every file of the dataset, even where every run of a file lacks it
    return {k: math.nan if v is None else v for k, v in metrics.items() if _scalar(v)}


def read_results(out: str | Path) -> pd.DataFrame:
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


def finished(out: Path, run_id: str) -> bool:
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
