"""Event sources read from a user's file: a CSV or Parquet table of object events.

One row per object event, in time order, with the columns

``time``    seconds (finite, >= 0, non-decreasing down the file);
``object``  the user's integer id of the object;
``op``      ``initial`` (present before the first event: every such row comes first),
            ``insert`` (a new object, or an id deleted earlier coming back), ``update``
            (new ``y``; a new ``x`` too makes it a move: delete at the old x, insert at
            the new one, as seed 003 identifies objects by x) or ``delete``;
``x``, ``y`` the object's position and value, numbers in [0, 1) (ignored, and may be
            empty, for ``delete``).

Other columns are ignored. The rows other than ``initial`` are the events, taken in
order; :func:`read_event_trace` checks every row and names the first bad one (row N
counts data rows from 1; a CSV's line N + 1). The file becomes the same columnar
:class:`~cnsim.subscriptions.workload.Events` the generator makes; internal object ids
are ``0 .. n-1`` for the initial objects in file order, then one new id per insert
(and per move), as generated events number them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from cnsim.subscriptions.workload import EVENT_KINDS, Events

TABLE_SUFFIXES = (".csv", ".parquet")
COLUMNS = ("time", "object", "op", "x", "y")
OPS = ("initial", "insert", "update", "delete")
RAISE, LOWER, INSERT, DELETE, MOVE = (EVENT_KINDS.index(k) for k in EVENT_KINDS)


def describe_format(n_events: int) -> str:
    """What an event file must hold, in words (the ``allowed`` of its errors)."""
    return (
        f"a .csv or .parquet table with columns {', '.join(COLUMNS)}: 'initial' rows first, "
        f"then at least {n_events} events (op insert/update/delete), times finite, >= 0 and "
        "non-decreasing, integer object ids, x and y numbers in [0, 1)"
    )


@dataclass(frozen=True)
class EventTrace:
    """A file's initial objects (``x``, ``y``; ids 0..n-1), its events and their times."""

    x: np.ndarray
    y: np.ndarray
    events: Events
    time: np.ndarray  # per event: publication time (s)
    object_ids: np.ndarray  # per internal id: the file's object id


class TraceError(ValueError):
    """What is wrong with an event file (a phrase naming the row)."""


def read_event_trace(path: str | Path, n_events: int) -> tuple[EventTrace | None, str | None]:
    """The first ``n_events`` events of a CSV/Parquet file and the objects present
    before them, or ``(None, what is wrong)``; every row of the file is checked."""
    path = Path(path)
    try:
        frame, csv = _read(path)
        return _parse(frame, csv, n_events), None
    except TraceError as exc:
        return None, str(exc)


def _read(path: Path) -> tuple[pd.DataFrame, bool]:
    suffix = path.suffix.lower()
    if suffix not in TABLE_SUFFIXES:
        raise TraceError(f"has suffix {path.suffix!r}, not .csv or .parquet")
    try:
        found, is_file = path.exists(), path.is_file()
    except OSError as exc:  # e.g. a name longer than the file system allows
        raise TraceError(f"cannot be read ({exc.strerror or _first_line(exc)})") from None
    if not is_file:
        raise TraceError("is not a file" if found else "does not exist")
    try:
        if suffix == ".csv":
            # every cell as text: types are checked here, naming the row
            frame = pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8")
            header = pd.read_csv(path, header=None, nrows=1, dtype=str, encoding="utf-8")
            _unique_columns([str(c).strip() for c in header.iloc[0]] if len(header) else [])
            return frame.rename(columns=lambda c: str(c).strip()), True
        import pyarrow.parquet as pq

        _unique_columns(pq.read_schema(path).names)
        return pq.read_table(path).to_pandas(), False
    except TraceError:
        raise
    except UnicodeDecodeError:
        raise TraceError("is not a UTF-8 text (CSV) file") from None
    except pd.errors.EmptyDataError:
        raise TraceError("is empty (no header line with the columns)") from None
    except pd.errors.ParserError as exc:
        raise TraceError(f"cannot be read as CSV ({_first_line(exc)})") from None
    except OSError as exc:
        raise TraceError(f"cannot be read ({_first_line(exc)})") from None
    except Exception as exc:  # pyarrow's errors (ArrowInvalid, …) for a spoilt Parquet file
        raise TraceError(f"cannot be read as Parquet ({_first_line(exc)})") from None


def _unique_columns(names: list[str]) -> None:
    """A header naming a column twice is refused: which of the two is meant is unknown."""
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise TraceError(f"names column {name!r} twice in its header")
        seen.add(name)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:120]


def _where(i: int, csv: bool) -> str:
    return f"row {i + 1} (line {i + 2})" if csv else f"row {i + 1}"


def _numbers(frame: pd.DataFrame, column: str, csv: bool, skip: np.ndarray) -> np.ndarray:
    """A column as float64; a TraceError names the first row that is empty, NaN or not a
    number (rows in ``skip`` may be anything: they are ignored)."""
    series = frame[column]
    if series.dtype == bool:
        raise TraceError(f"column {column!r} holds true/false values, not numbers")
    if pd.api.types.is_numeric_dtype(series.dtype):
        values = series.to_numpy(dtype=np.float64, na_value=np.nan)
        bad_text = np.zeros(len(values), bool)
    else:
        text = series.astype(object).where(series.notna(), "").astype(str).str.strip()
        values = pd.to_numeric(text, errors="coerce").to_numpy(dtype=np.float64)
        bad_text = np.isnan(values) & (text != "").to_numpy() & (text.str.lower() != "nan")
        if (bad_text & ~skip).any():
            i = int(np.flatnonzero(bad_text & ~skip)[0])
            raise TraceError(f"{_where(i, csv)}: {column} = {text.iloc[i][:40]!r} is not a number")
    bad = ~np.isfinite(values) & ~skip
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise TraceError(f"{_where(i, csv)}: {column} is {_missing(values[i])}")
    return values


def _missing(value: float) -> str:
    return "empty or NaN" if np.isnan(value) else f"{value!r}, not finite"


def _parse(frame: pd.DataFrame, csv: bool, n_events: int) -> EventTrace:
    missing = [c for c in COLUMNS if c not in frame.columns]
    if missing:
        have = ", ".join(map(repr, map(str, frame.columns))) or "none"
        raise TraceError(f"has no column {', '.join(map(repr, missing))} (its columns: {have})")
    n = len(frame)
    ops = frame["op"].astype(object).where(frame["op"].notna(), "").astype(str).str.strip()
    op = np.full(n, -1, np.int64)
    for code, name in enumerate(OPS):
        op[(ops.str.lower() == name).to_numpy()] = code
    if (op < 0).any():
        i = int(np.flatnonzero(op < 0)[0])
        raise TraceError(
            f"{_where(i, csv)}: op = {ops.iloc[i][:40]!r} is not one of {', '.join(OPS)}"
        )
    none = np.zeros(n, bool)
    time = _numbers(frame, "time", csv, none)
    obj_float = _numbers(frame, "object", csv, none)
    deletes = op == OPS.index("delete")
    x = _numbers(frame, "x", csv, deletes)
    y = _numbers(frame, "y", csv, deletes)
    fraction = obj_float != np.round(obj_float)
    if fraction.any() or (np.abs(obj_float) > 2**53).any():
        i = int(np.flatnonzero(fraction | (np.abs(obj_float) > 2**53))[0])
        raise TraceError(f"{_where(i, csv)}: object = {float(obj_float[i])!r} is not an integer id")
    if (time < 0).any():
        i = int(np.flatnonzero(time < 0)[0])
        raise TraceError(f"{_where(i, csv)}: time = {float(time[i])!r} is negative")
    down = np.flatnonzero(time[1:] < time[:-1])
    if len(down):
        i = int(down[0]) + 1
        raise TraceError(
            f"{_where(i, csv)}: time = {float(time[i])!r} is before the time above it "
            f"({float(time[i - 1])!r}); sort the rows by time"
        )
    for name, values in (("x", x), ("y", y)):
        outside = ~deletes & ((values < 0) | (values >= 1))
        if outside.any():
            i = int(np.flatnonzero(outside)[0])
            raise TraceError(
                f"{_where(i, csv)}: {name} = {float(values[i])!r} is outside [0, 1); scale the "
                "values into [0, 1)"
            )
    initial = op == 0
    n_initial = int(np.argmin(initial)) if not initial.all() else n
    late = np.flatnonzero(initial[n_initial:])
    if len(late):
        i = n_initial + int(late[0])
        raise TraceError(
            f"{_where(i, csv)}: op = 'initial' after the first event ({_where(n_initial, csv)}); "
            "'initial' rows come before every other"
        )
    if n_initial == 0:
        raise TraceError("has no 'initial' rows (the objects present before the first event)")
    if n - n_initial < n_events:
        raise TraceError(
            f"holds {n - n_initial} events (rows other than 'initial'), fewer than the "
            f"{n_events} asked (events.count, or --events)"
        )
    obj = obj_float.astype(np.int64)
    return _walk(csv, obj, op, x, y, time, n_initial, n_events)


def _walk(
    csv: bool,
    obj: np.ndarray,
    op: np.ndarray,
    x: np.ndarray,
    y: np.ndarray,
    time: np.ndarray,
    n_initial: int,
    n_events: int,
) -> EventTrace:
    """Follow every row's object (live, deleted, never seen) and build the events."""
    current: dict[int, int] = {}  # file id -> internal id of the live object
    gone: dict[int, int] = {}  # file id -> row that deleted it
    since: dict[int, int] = {}  # file id -> row that made it present
    at_x: dict[float, int] = {}  # x -> file id of the present object there
    at_y: dict[float, int] = {}  # y -> file id of the present object with it
    xs: list[float] = []
    ys: list[float] = []
    owners: list[int] = []
    kinds: list[int] = []
    start = [0]
    u_obj: list[int] = []
    u_x: list[float] = []
    u_old: list[float] = []
    u_new: list[float] = []
    ol, opl, xl, yl = obj.tolist(), op.tolist(), x.tolist(), y.tolist()
    inf = float("inf")

    def place(row: int, o: int, xv: float, yv: float) -> None:
        """Present object ``o`` takes ``xv`` and ``yv``, unless another holds one of them."""
        for name, value, table, why in (
            ("x", xv, at_x, "objects are identified by x (seed 003)"),
            ("y", yv, at_y, "the top-k lists break no ties"),
        ):
            other = table.get(value)
            if other is not None and other != o:
                raise TraceError(
                    f"{_where(row, csv)}: object {o} takes {name} = {value!r}, the {name} of "
                    f"object {other} (present since {_where(since[other], csv)}); {why}: give "
                    f"every present object its own {name}"
                )
        at_x[xv], at_y[yv] = o, o

    def leave(o: int, i: int) -> None:
        at_x.pop(xs[i], None)
        at_y.pop(ys[i], None)

    def new_id(o: int, xv: float, yv: float) -> int:
        current[o] = len(xs)
        gone.pop(o, None)
        xs.append(xv)
        ys.append(yv)
        owners.append(o)
        return current[o]

    def emit(i: int, xv: float, old: float, new: float) -> None:
        u_obj.append(i)
        u_x.append(xv)
        u_old.append(old)
        u_new.append(new)

    for row in range(len(ol)):
        o, code = ol[row], opl[row]
        if code in (0, 1):  # initial, insert
            if o in current:
                raise TraceError(
                    f"{_where(row, csv)}: object {o} is inserted but is already present "
                    f"(since {_where(since[o], csv)}); update or delete it instead"
                )
            since[o] = row
            place(row, o, xl[row], yl[row])
            i = new_id(o, xl[row], yl[row])
            if code == 1 and row - n_initial < n_events:
                kinds.append(INSERT)
                emit(i, xl[row], inf, yl[row])
                start.append(len(u_obj))
            continue
        if o not in current:
            what = "is unknown (neither initial nor inserted)"
            if o in gone:
                what = f"was deleted at {_where(gone[o], csv)} and not inserted again"
            verb = "updated" if code == 2 else "deleted"
            raise TraceError(f"{_where(row, csv)}: object {o} is {verb} but it {what}")
        i = current[o]
        counted = row - n_initial < n_events
        leave(o, i)
        if code != 3:
            place(row, o, xl[row], yl[row])
        if code == 3:  # delete
            del current[o]
            gone[o] = row
            if counted:
                kinds.append(DELETE)
                emit(i, xs[i], ys[i], inf)
            ys[i] = inf
        elif xl[row] == xs[i]:  # a y-update
            if counted:
                kinds.append(RAISE if yl[row] < ys[i] else LOWER)
                emit(i, xs[i], ys[i], yl[row])
            ys[i] = yl[row]
        else:  # a move: the object leaves its old x and enters at the new one
            old_y = ys[i]
            ys[i] = inf
            j = new_id(o, xl[row], yl[row])
            if counted:
                kinds.append(MOVE)
                emit(i, xs[i], old_y, inf)
                emit(j, xl[row], inf, yl[row])
        if counted:
            start.append(len(u_obj))
    events = Events(
        np.asarray(kinds, np.int64),
        np.asarray(start, np.int64),
        np.asarray(u_obj, np.int64),
        np.asarray(u_x, np.float64),
        np.asarray(u_old, np.float64),
        np.asarray(u_new, np.float64),
    )
    return EventTrace(
        x[:n_initial].copy(),  # the initial rows are ids 0 .. n_initial - 1, in order
        y[:n_initial].copy(),
        events,
        np.asarray(time[n_initial : n_initial + n_events], np.float64),
        np.asarray(owners, np.int64),
    )


def load_event_trace(path: str | Path, n_events: int) -> EventTrace:
    """:func:`read_event_trace`, raising :class:`~cnsim.errors.InputError` naming the file."""
    from cnsim.errors import InputError

    trace, problem = read_event_trace(path, n_events)
    if trace is None:
        raise InputError(
            f"event file {str(path)!r} {problem}; allowed: {describe_format(n_events)}"
        )
    return trace
