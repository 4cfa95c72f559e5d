"""Output folders: every command that writes (``run``, ``sweep``, ``report``) owns its
folder, checks it before any work, and never leaves a half-written or mixed result.

* **Ownership.** A folder cnsim wrote holds a marker, ``.cnsim.json``, saying what wrote
  it (``{"kind": "run" | "sweep" | "report" | "reproduction", "name": …}``).
  :func:`claim` accepts a new
  or empty folder, or one of the same kind (a run replaces an earlier run, a sweep
  resumes or extends the same sweep — see :func:`claim`'s ``same``); a folder of another
  kind, or of another sweep, only with ``overwrite=True`` (``--overwrite``); a folder
  holding anything cnsim did not write, never: cnsim deletes only what it wrote.
* **Whole results.** A run's or a report's files are written into a hidden staging
  folder beside the target, which is then exchanged with the target in one atomic
  ``renameat2(RENAME_EXCHANGE)`` (Linux; elsewhere two renames): the folder shows the
  earlier result or the new one, never a mix, even under SIGKILL. The earlier result
  is then deleted. A sweep's dataset is written in place one run file at a time, each
  file written aside and renamed (see :mod:`cnsim.simulations.sweep.dataset`).
* **Checks before work**: the path is not empty, not a file, its parent can be made,
  and it is writable.

Staging folders of killed processes (``.NAME.cnsim-PID-…``) are removed by the next
command that claims the same target.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import json
import os
import shutil
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from cnsim.errors import InputError

MARKER = ".cnsim.json"
KINDS = ("run", "sweep", "report", "reproduction")

# Files a folder of each kind held before markers existed (read as that kind).
_LEGACY = {
    "run": {"events.parquet", "summary.json", "brokers.parquet", "servers.parquet"},
    "sweep": {"_sweep.json"},  # a folder with a manifest is a sweep dataset
    "report": {"index.html"},
}


def owner(path: Path) -> dict[str, Any] | None:
    """What wrote folder ``path``: its marker's contents; ``None`` for a missing or
    empty folder; ``{"kind": "foreign", "file": NAME}`` for one holding files that no
    cnsim command wrote."""
    if not path.is_dir():
        return None
    names = sorted(p.name for p in path.iterdir() if not _is_staging(p.name))
    if not names:
        return None
    if MARKER in names:
        try:
            marker = json.loads((path / MARKER).read_text(encoding="utf-8"))
            if isinstance(marker, dict) and marker.get("kind") in KINDS:
                return marker
        except (OSError, ValueError):
            pass
        return {"kind": "foreign", "file": MARKER}
    if "_sweep.json" in names:
        return {"kind": "sweep", "name": _manifest_name(path)}
    for kind in ("run", "report"):
        if set(names) & _LEGACY[kind] and all(_legacy_file(kind, n) for n in names):
            return {"kind": kind}
    return {"kind": "foreign", "file": names[0]}


def claim(
    out: str | Path,
    kind: str,
    *,
    overwrite: bool = False,
    same: Callable[[dict[str, Any]], str | None] | None = None,
    option: str = "--out",
) -> Path:
    """Check, before any work, that ``out`` can hold this ``kind`` of result; return it
    as an absolute path (nothing is written). ``same(marker)`` decides whether a folder
    of the same kind is this command's (``None``) or names why not (a sweep: another
    sweep's dataset); ``overwrite`` lets a cnsim folder of another kind or another
    sweep be replaced. Raises :class:`InputError` naming ``option``, the path and what
    to do."""
    assert kind in KINDS
    if str(out).strip() == "":
        raise InputError(f"{option} '': an empty path; give the folder to write into")
    path = Path(out).expanduser().absolute()
    shown = repr(str(out))
    if path.exists() and not path.is_dir():
        raise InputError(f"{option} {shown}: is a file, not a folder; give a folder to write into")
    found = owner(path)
    if found is not None:
        held = found["kind"]
        if held == "foreign":
            raise InputError(
                f"{option} {shown}: holds {found['file']!r}, which cnsim did not write; "
                f"cnsim writes only into a new or empty folder or one it wrote"
            )
        why = None
        if held != kind:
            why = f"holds a cnsim {held} ({MARKER})"
        elif same is not None:
            why = same(found)
        if why is not None and not overwrite:
            raise InputError(
                f"{option} {shown}: {why}; write the {kind} elsewhere, or pass "
                f"--overwrite to replace it"
            )
    _check_writable(path, option, shown)
    _remove_dead_staging(path)
    return path


def marker(kind: str, name: str | None = None, **extra: Any) -> dict[str, Any]:
    """The contents of a folder's ``.cnsim.json``."""
    from cnsim import __version__

    return {"kind": kind, "name": name, "cnsim": __version__, **extra}


def write_marker(folder: Path, content: dict[str, Any]) -> None:
    """``folder/.cnsim.json``, written aside and renamed."""
    text = json.dumps(content, indent=1) + "\n"
    tmp = folder / f".{MARKER}.{uuid.uuid4().hex}.tmp"
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, folder / MARKER)


@contextlib.contextmanager
def replacing(path: Path, content: dict[str, Any]) -> Iterator[Path]:
    """Yield an empty staging folder beside ``path``; when the block ends without an
    error, the marker ``content`` is added and the staging folder atomically takes
    ``path``'s place (the earlier contents are then deleted). On an error ``path`` is
    untouched and the staging folder is removed."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        staging = path.parent / f".{path.name}.cnsim-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        staging.mkdir()
    except OSError as exc:
        raise InputError(f"cannot write into {str(path)!r}: {exc.strerror or exc}") from None
    try:
        yield staging
        write_marker(staging, content)
        _swap_in(staging, path)
    except OSError as exc:
        raise InputError(f"cannot write into {str(path)!r}: {exc.strerror or exc}") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _swap_in(staging: Path, path: Path) -> None:
    """Put ``staging`` at ``path``; afterwards ``staging`` holds what was there."""
    if not path.exists():
        os.rename(staging, path)
        return
    if _exchange(staging, path):
        return
    # No atomic exchange here: two renames (a kill between them leaves ``path`` absent
    # and the earlier result in the hidden folder beside it).
    old = path.parent / f".{path.name}.cnsim-{os.getpid()}-old-{uuid.uuid4().hex[:8]}"
    os.rename(path, old)
    os.rename(staging, path)
    os.rename(old, staging)


def _exchange(a: Path, b: Path) -> bool:
    """Atomically exchange two folders (Linux ``renameat2``); False if unsupported."""
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def _check_writable(path: Path, option: str, shown: str) -> None:
    """The nearest existing ancestor of ``path`` is a folder we may write into."""
    probe = path if path.exists() else path.parent
    while not probe.exists():
        probe = probe.parent
    if not probe.is_dir():
        raise InputError(f"{option} {shown}: {str(probe)!r} is a file, not a folder")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise InputError(f"{option} {shown}: {str(probe)!r} is not writable")


def _is_staging(name: str) -> bool:
    return name.startswith(".") and ".cnsim-" in name


def _remove_dead_staging(path: Path) -> None:
    """Remove staging folders beside ``path`` left by processes no longer running."""
    parent = path.parent
    if not parent.is_dir():
        return
    for p in parent.glob(f".{path.name}.cnsim-*"):
        pid = p.name.removeprefix(f".{path.name}.cnsim-").split("-", 1)[0]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(p, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _legacy_file(kind: str, name: str) -> bool:
    if kind == "report":
        return name.endswith((".html", ".png", ".csv"))
    return name in _LEGACY[kind] or name.startswith(".")


def _manifest_name(path: Path) -> str | None:
    try:
        return json.loads((path / "_sweep.json").read_text(encoding="utf-8")).get("name")
    except (OSError, ValueError, AttributeError):
        return None


def check_file_target(path: str | Path, option: str) -> Path:
    """Check, before any work, that a single output file can be written at ``path``:
    not empty, not a folder, its folder exists and is writable."""
    if str(path).strip() == "":
        raise InputError(f"{option} '': an empty path; give the file to write")
    target = Path(path).expanduser().absolute()
    shown = repr(str(path))
    if target.is_dir():
        raise InputError(f"{option} {shown}: is a folder; give a file name")
    folder = target.parent
    if not folder.is_dir():
        what = "is a file" if folder.exists() else "does not exist"
        raise InputError(f"{option} {shown}: its folder {str(folder)!r} {what}; make it first")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InputError(f"{option} {shown}: its folder {str(folder)!r} is not writable")
    return target


def write_file(path: Path, text: str, option: str) -> None:
    """Write ``text`` to ``path`` atomically (aside, then renamed)."""
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        raise InputError(f"{option} {str(path)!r}: cannot write ({exc.strerror or exc})") from None
    finally:
        tmp.unlink(missing_ok=True)
