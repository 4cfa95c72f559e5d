"""Output folders and files: every command that writes (``run``, ``sweep``, ``report``,
``reproduce``, ``bench --json``) checks its target before any work, writes whole
results, and never removes or changes anything it did not write.

* **Ownership.** A folder cnsim wrote holds a marker, ``.cnsim.json``: what wrote it
  (``{"kind": "run" | "sweep" | "report" | "reproduction", "name": …}``) and every entry
  it wrote — ``"files"``: each file's relative path with its signature (its size and
  the SHA-256 of its contents: all of them up to 64 KiB, else the first and last 64
  KiB; never its times, so a copy or a fresh clone of a cnsim folder is still cnsim's),
  each folder it made as ``"path/"``;
  ``"parts"``: sub-folders that are cnsim folders with markers of their own (a
  reproduction's sweeps and report). A folder is **cnsim's** only if every entry in it
  is the marker, a listed file whose signature still matches, a listed folder whose
  entries are all cnsim's, a part that is cnsim's by its own marker, or a staging folder
  of cnsim's. Anything else — a user's file, a listed file changed since, a marker
  without a listing — makes the folder **foreign**, and :func:`claim` refuses it, with or
  without ``overwrite``, naming the first such entry.
* **Kinds.** :func:`claim` accepts a new or empty folder, or a cnsim folder of the same
  kind (a run replaces an earlier run, a sweep resumes or extends the same sweep — see
  its ``same``); a cnsim folder of another kind, or of another sweep, only with
  ``overwrite=True`` (``--overwrite``).
* **Whole results.** A run's or a report's files are written into a staging folder
  beside the target, listed in its marker, then exchanged with the target in one atomic
  ``renameat2(RENAME_EXCHANGE)`` (Linux; elsewhere two renames): the folder shows the
  earlier result or the new one, never a mix, even under SIGKILL. The target is checked
  again just before the exchange; the earlier result is then deleted. A sweep's dataset
  grows one file at a time (:func:`put_file`): each written in a staging folder inside
  the dataset, listed in the marker, then renamed into place.
* **Staging folders** hold a marker of their own, ``.cnsim-staging.json`` (the process
  and host that made them); they are recognised by it, never by their name alone. The
  next command that claims or replaces the same target removes those whose process is
  gone, and also (a kill in the instant before it is marked, or around the exchange)
  one so named that is empty or entirely cnsim's by its own ``.cnsim.json``.
* **Single files** (``bench --json``): :func:`write_file` stamps a JSON object with the
  SHA-256 of the rest of its text; :func:`check_file_target` lets an existing file be
  replaced only if its stamp still matches.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import hashlib
import json
import os
import re
import shutil
import socket
import stat
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from cnsim.errors import CLI, InputError, Names

MARKER = ".cnsim.json"
STAGING = ".cnsim-staging.json"
KINDS = ("run", "sweep", "report", "reproduction")
HASHED = 1 << 16  # a signature hashes a file whole up to this size, else its two ends
STAMP = "cnsim_output"  # the key of a single JSON file's stamp (write_file)
CHANGED = "which cnsim did not write (or which changed since)"
ALLOWED = (
    "cnsim writes only into a new or empty folder or one holding nothing but what cnsim "
    f"wrote there (listed in its {MARKER})"
)


# -- signatures and markers ---------------------------------------------------------


def signature(path: str | Path) -> list[Any]:
    """How a file cnsim wrote is recognised as unchanged: ``[size, sha256]`` of its
    contents — all of them up to :data:`HASHED` bytes, else the first and the last
    :data:`HASHED` bytes (what a large output's header and footer hold), so reading it
    costs at most 128 KiB. Contents, not times: a rename, a copy or a fresh checkout
    keeps it. Anything but a regular file has no digest (and so matches no listing)."""
    st = os.lstat(path)
    if not stat.S_ISREG(st.st_mode):
        return [st.st_size, None]
    h = hashlib.sha256()
    with open(path, "rb") as f:
        if st.st_size <= HASHED:
            h.update(f.read())
        else:
            h.update(f.read(HASHED))
            f.seek(-HASHED, os.SEEK_END)
            h.update(f.read(HASHED))
    return [st.st_size, h.hexdigest()]


def listing(folder: Path) -> dict[str, list[Any]]:
    """Every entry under ``folder`` as a marker lists it: files with their signature
    (in a list: a file may be listed with more than one), folders as ``"path/"``; the
    marker itself and staging folders left out."""
    out: dict[str, list[Any]] = {}

    def walk(d: Path, rel: str) -> None:
        for e in sorted(os.scandir(d), key=lambda e: e.name):
            r = rel + e.name
            if r in (MARKER, STAGING):
                continue
            if e.is_dir(follow_symlinks=False):
                if staging_info(Path(e.path)) is None:
                    out[r + "/"] = []
                    walk(Path(e.path), r + "/")
            else:
                out[r] = [signature(e.path)]

    walk(folder, "")
    return out


def read_marker(folder: Path) -> tuple[bool, dict[str, Any] | None]:
    """``(present, content)`` of ``folder``'s marker: content ``None`` when it is
    absent, unreadable or not a cnsim marker."""
    path = folder / MARKER
    if not os.path.lexists(path):
        return False, None
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return True, None
    if isinstance(found, dict) and found.get("kind") in KINDS:
        return True, found
    return True, None


def marker(kind: str, name: str | None = None, **extra: Any) -> dict[str, Any]:
    """The contents of a folder's ``.cnsim.json`` (its listing is added when written)."""
    from cnsim import __version__

    return {"kind": kind, "name": name, "cnsim": __version__, **extra}


def write_marker(folder: Path, content: dict[str, Any]) -> None:
    """``folder/.cnsim.json``, written in a staging folder and renamed into place."""
    text = json.dumps(content, indent=1) + "\n"
    with _scratch(folder) as scratch:
        (scratch / MARKER).write_text(text, encoding="utf-8")
        os.replace(scratch / MARKER, folder / MARKER)


def mark(folder: Path, content: dict[str, Any]) -> None:
    """Make ``folder`` (claimed) carry ``content``'s marker, keeping the listing of an
    earlier marker of the same kind and name (a resumed sweep's files stay listed)."""
    _, found = read_marker(folder)
    files, parts = {}, list(content.get("parts", []))
    if found is not None and (found.get("kind"), found.get("name")) == (
        content.get("kind"),
        content.get("name"),
    ):
        files = found.get("files") if isinstance(found.get("files"), dict) else {}
    write_marker(folder, {**content, "files": files, "parts": parts})


# -- ownership ---------------------------------------------------------------------


def staging_info(path: Path) -> dict[str, Any] | None:
    """The inner marker of a staging folder of cnsim's; ``None`` if ``path`` is none."""
    try:
        info = json.loads((path / STAGING).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if isinstance(info, dict) and isinstance(info.get("pid"), int):
        return info
    return None


def foreign_entry(folder: Path) -> str | None:
    """The first entry of ``folder`` (a relative path) that cnsim did not write, by the
    rule of this module's doc; ``None`` if ``folder`` is cnsim's, empty or missing."""
    if not folder.is_dir():
        return None
    present, found = read_marker(folder)
    if present and found is None:
        return MARKER
    return _foreign(folder, found or {})


def _foreign(folder: Path, found: dict[str, Any]) -> str | None:
    files = found.get("files") if isinstance(found.get("files"), dict) else {}
    parts = {p for p in found.get("parts", []) if isinstance(p, str)}
    above = {k.rsplit("/", 1)[0] for k in [*files, *parts] if "/" in k.rstrip("/")}
    above = {"/".join(a.split("/")[: i + 1]) for a in above for i in range(a.count("/") + 1)}

    def walk(d: Path, rel: str) -> str | None:
        for e in sorted(os.scandir(d), key=lambda e: e.name):
            r = rel + e.name
            if r == MARKER:
                continue
            if e.is_dir(follow_symlinks=False):
                if staging_info(Path(e.path)) is not None:
                    continue
                if r in parts:
                    inner = foreign_entry(Path(e.path))
                    if inner is not None:
                        return f"{r}/{inner}"
                    continue
                if r + "/" in files or r in above:
                    inner = walk(Path(e.path), r + "/")
                    if inner is not None:
                        return inner
                    continue
                return r
            sigs = files.get(r)
            if not (isinstance(sigs, list) and signature(e.path) in sigs):
                return r
        return None

    return walk(folder, "")


def owner(path: Path) -> dict[str, Any] | None:
    """What wrote folder ``path``: its marker's contents; ``None`` for a missing or
    empty folder (staging folders aside); ``{"kind": "foreign", "file": ENTRY}`` for
    one that is not cnsim's (ENTRY: the first entry cnsim did not write)."""
    if not path.is_dir():
        return None
    first = foreign_entry(path)
    if first is not None:
        return {"kind": "foreign", "file": first}
    _, found = read_marker(path)
    if found is not None:
        return found
    return None  # empty, or nothing but staging folders


def claim(
    out: str | Path,
    kind: str,
    *,
    overwrite: bool = False,
    same: Callable[[dict[str, Any]], str | None] | None = None,
    names: Names = CLI,
    part: str | None = None,
) -> Path:
    """Check, before any work, that ``out`` can hold this ``kind`` of result; return it
    as an absolute path. ``same(marker)`` decides whether a folder of the same kind is
    this command's (``None``) or names why not (a sweep: another sweep's dataset);
    ``overwrite`` lets a cnsim folder of another kind or another sweep be replaced. A
    folder that is not cnsim's is refused either way. Staging folders of processes
    that are gone, beside ``out`` or inside it, are removed. ``part``: the folder
    checked is ``out/part`` (a reproduction's ``sweeps/NAME``, ``report``), a message
    still names ``out``, the argument the caller gave. Raises :class:`InputError`
    naming the argument (``names``: the caller's name for it), the path and what is
    allowed."""
    assert kind in KINDS
    if str(out).strip() == "":
        raise InputError(
            f"{names.given('out', str(out))}: an empty path; give the folder to write into"
        )
    where = place(out, names, part)
    path = Path(out).expanduser().absolute()
    if part is not None:
        path = path / part
    check_names(path, names.arg("out"), names.given("out", str(out), most=60))
    if path.exists() and not path.is_dir():
        raise InputError(f"{where}: is a file, not a folder; give a folder to write into")
    found = owner(path)
    if found is not None:
        held = found["kind"]
        if held == "foreign":
            raise InputError(f"{where}: holds {found['file']!r}, {CHANGED}; {ALLOWED}")
        why = None
        if held != kind:
            why = f"holds a cnsim {held} ({MARKER})"
        elif same is not None:
            why = same(found)
        if why is not None and not overwrite:
            raise InputError(
                f"{where}: {why}; write the {kind} elsewhere, or pass "
                f"{names.flag('overwrite')} to replace it"
            )
    _check_writable(path, where)
    remove_dead_staging(path)
    return path


def place(out: str | Path, names: Names = CLI, part: str | None = None) -> str:
    """How a message names the output folder ``out`` as the caller gave it (``--out
    'x'``, ``out='x'``), or its sub-folder ``part``."""
    head = names.given("out", str(out))
    return head if part is None else f"{head}, its sub-folder {part!r}"


# -- writing -----------------------------------------------------------------------


@contextlib.contextmanager
def replacing(path: Path, content: dict[str, Any], where: str | None = None) -> Iterator[Path]:
    """Yield an empty staging folder beside ``path``; when the block ends without an
    error, the marker ``content`` listing everything written is added and the staging
    folder atomically takes ``path``'s place, which must still be cnsim's (else an
    InputError naming the first foreign entry, and ``path`` untouched); the earlier
    contents are then deleted. On an error ``path`` is untouched and the staging
    folder is removed. ``where``: how a message names the folder (:func:`place`;
    by default ``--out`` and ``path``)."""
    where = place(path) if where is None else where
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        remove_dead_staging(path)
        staging = _make_staging(path.parent, f".{path.name}.cnsim-", path.name)
    except OSError as exc:
        raise InputError(f"{where}: cannot write there ({exc.strerror or exc})") from None
    keep = False  # after the exchange: the earlier contents, kept if not all cnsim's
    try:
        yield staging
        write_marker(staging, {**content, "files": listing(staging)})
        first = foreign_entry(path)
        if first is not None:
            raise InputError(f"{where}: holds {first!r}, {CHANGED}; {ALLOWED}")
        (staging / STAGING).unlink()
        if _swap_in(staging, path):
            # ``staging`` holds the earlier result: delete it only if it is all cnsim's
            # (a file added meanwhile keeps the folder, under its hidden name).
            keep = foreign_entry(staging) is not None
            if not keep:
                _write_staging_marker(staging, path.name)
    except OSError as exc:
        raise InputError(f"{where}: cannot write there ({exc.strerror or exc})") from None
    finally:
        if not keep and staging.is_dir():
            _remove_staging(staging)


def put_file(root: Path, rel: str, write: Callable[[Path], Any]) -> Path:
    """Add (or replace) the file ``root/rel`` of the cnsim folder ``root``: ``write(tmp)``
    writes it in a staging folder inside ``root``, it is listed in ``root``'s marker,
    then renamed into place — whole or absent, and always listed. Several processes may
    add files at once (the marker is updated under a lock)."""
    target = root / rel
    with _scratch(root) as scratch:
        tmp = scratch / "file"
        write(tmp)
        made = [p for p in Path(rel).parents if str(p) != "."]
        _record(root, {f"{p.as_posix()}/": None for p in made} | {rel: signature(tmp)}, target)
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(tmp, target)
    return target


def _record(root: Path, entries: dict[str, list[Any] | None], target: Path) -> None:
    """List ``entries`` in ``root``'s marker (a folder: ``None``). A file already at
    ``target`` must be one the marker lists, unchanged (else an InputError naming it:
    it is not replaced); its signature stays listed while it is still in place (a kill
    before the rename leaves both listed)."""
    import fcntl

    fd = os.open(root, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        _, found = read_marker(root)
        files = (found or {}).get("files")
        files = files if isinstance(files, dict) else {}
        for rel, sig in entries.items():
            if sig is None:
                files[rel] = []
                continue
            current = signature(target) if os.path.lexists(target) else None
            old = [s for s in files.get(rel, []) if s == current]
            if current is not None and not old:
                raise InputError(f"{str(target)!r}: {CHANGED}; cnsim replaces only its own files")
            files[rel] = [sig, *old]
        if found is not None:  # a folder without a marker: nothing to list
            write_marker(root, {**found, "files": files})
    finally:
        os.close(fd)


def _make_staging(parent: Path, prefix: str, target: str | None) -> Path:
    staging = parent / f"{prefix}{os.getpid()}-{uuid.uuid4().hex[:8]}"
    staging.mkdir()
    _write_staging_marker(staging, target)
    return staging


def _write_staging_marker(staging: Path, target: str | None) -> None:
    info = {"pid": os.getpid(), "host": socket.gethostname(), "for": target}
    (staging / STAGING).write_text(json.dumps(info) + "\n", encoding="utf-8")


@contextlib.contextmanager
def _scratch(folder: Path) -> Iterator[Path]:
    """A staging folder inside ``folder`` for one file, removed afterwards."""
    scratch = _make_staging(folder, ".cnsim-tmp-", None)
    try:
        yield scratch
    finally:
        _remove_staging(scratch)


def _swap_in(staging: Path, path: Path) -> bool:
    """Put ``staging`` at ``path``; True if ``staging`` then holds what was there."""
    if not path.exists():
        os.rename(staging, path)
        return False
    if _exchange(staging, path):
        return True
    # No atomic exchange here: two renames (a kill between them leaves ``path`` absent
    # and the earlier result in the hidden folder beside it).
    old = path.parent / f".{path.name}.cnsim-{os.getpid()}-old-{uuid.uuid4().hex[:8]}"
    os.rename(path, old)
    os.rename(staging, path)
    os.rename(old, staging)
    return True


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


def check_names(path: Path, arg: str, shown: str) -> None:
    """A path the file system can hold: no name in it longer than its folder allows, the
    whole no longer than the system's limit (checked before any other test, which would
    fail with a bare OSError). ``arg``: the argument's name, ``shown``: it with its value."""
    folder = next((p for p in path.parents if _is_dir(p)), Path("/"))
    most = os.pathconf(folder, "PC_NAME_MAX")
    longest = max(path.parts, key=len)
    if len(longest.encode()) > most:
        raise InputError(
            f"{shown}: a name of {len(longest.encode())} bytes; allowed: names of at most "
            f"{most} bytes"
        )
    if len(str(path).encode()) >= (whole := os.pathconf(folder, "PC_PATH_MAX")):
        raise InputError(f"{arg}: a path of {len(str(path).encode())} bytes; allowed: "
                         f"under {whole}")  # fmt: skip


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:  # a name too long to look up is no folder
        return False


def _check_writable(path: Path, where: str) -> None:
    """The nearest existing ancestor of ``path`` is a folder we may write into."""
    probe = path if path.exists() else path.parent
    while not probe.exists():
        probe = probe.parent
    if not probe.is_dir():
        raise InputError(f"{where}: {str(probe)!r} is a file, not a folder")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise InputError(f"{where}: {str(probe)!r} is not writable")


def remove_dead_staging(path: Path) -> None:
    """Remove the staging folders for ``path`` (beside it) and inside it whose process
    is gone (one made on another host is left alone). A folder is one if it holds a
    staging marker; its name only narrows the search. Beside ``path``, a folder so
    named whose process is gone also goes if it is entirely cnsim's by its own marker
    (a kill just before or after the exchange leaves it so), and an empty one too
    (made, not yet marked) — neither holds anything cnsim did not write."""
    candidates = []
    if path.parent.is_dir():
        prefix = f".{path.name}.cnsim-"
        candidates += [(p, path.name) for p in path.parent.iterdir() if p.name.startswith(prefix)]
    if path.is_dir():
        candidates += [(p, None) for p in path.iterdir() if p.name.startswith(".cnsim-tmp-")]
    for p, target in candidates:
        if p.is_symlink() or not p.is_dir():
            continue
        info = staging_info(p)
        if info is not None:
            if (target is None or info.get("for") == target) and _gone(info):
                _remove_staging(p)
            continue
        pid = p.name.split(".cnsim-", 1)[1].removeprefix("tmp-").split("-", 1)[0]
        if not pid.isdigit() or _alive(int(pid)):
            continue
        if not any(p.iterdir()):
            with contextlib.suppress(OSError):
                p.rmdir()
        elif target is not None and read_marker(p)[1] is not None and foreign_entry(p) is None:
            shutil.rmtree(p, ignore_errors=True)


def _gone(info: dict[str, Any]) -> bool:
    """Whether the process a staging marker names has ended (on this host)."""
    return info.get("host") == socket.gethostname() and not _alive(info["pid"])


def _remove_staging(folder: Path) -> None:
    """Remove a staging folder, its marker last: a kill half-way leaves it recognised."""
    for p in folder.iterdir():
        if p.name != STAGING:
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    p.unlink()
    with contextlib.suppress(OSError):
        (folder / STAGING).unlink()
        folder.rmdir()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


# -- single files (bench --json) ---------------------------------------------------

_STAMP_LINE = re.compile(rb'^ *"' + STAMP.encode() + rb'": "sha256:([0-9a-f]{64})",\n')


def check_file_target(path: str | Path, option: str, keep: bool = False) -> Path:
    """Check, before any work, that a single output file can be written at ``path``:
    not empty, not a folder, its folder exists and is writable, and a file already
    there is one cnsim wrote and nobody changed since (its stamp matches, see
    :func:`write_file`) — or ``keep``: the command reads it and writes it back
    (``--resume``)."""
    if str(path).strip() == "":
        raise InputError(f"{option} '': an empty path; give the file to write")
    target = Path(path).expanduser().absolute()
    shown = repr(str(path))
    check_names(target, option, f"{option} {shown[:60] + '...' if len(shown) > 60 else shown}")
    if target.is_dir():
        raise InputError(f"{option} {shown}: is a folder; give a file name")
    folder = target.parent
    if not folder.is_dir():
        what = "is a file" if folder.exists() else "does not exist"
        raise InputError(f"{option} {shown}: its folder {str(folder)!r} {what}; make it first")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InputError(f"{option} {shown}: its folder {str(folder)!r} is not writable")
    if os.path.lexists(target) and not keep and not stamped(target):
        raise InputError(
            f"{option} {shown}: a file cnsim did not write (or one changed since); cnsim "
            "replaces only a file it wrote and nobody changed, so give a new file name"
        )
    return target


def stamped(path: Path) -> bool:
    """Whether ``path`` is a file :func:`write_file` wrote, unchanged since."""
    try:
        if not path.is_file() or path.is_symlink():
            return False
        data = path.read_bytes()
    except OSError:
        return False
    head, _, rest = data.partition(b"\n")
    found = _STAMP_LINE.match(rest)
    if head != b"{" or found is None:
        return False
    body = head + b"\n" + rest[found.end() :]
    return hashlib.sha256(body).hexdigest() == found.group(1).decode()


def write_file(path: Path, text: str, option: str) -> None:
    """Write ``text`` to ``path`` atomically (aside, then renamed). A JSON object's text
    (``{`` on a line of its own first) gets a stamp, its first key, holding the SHA-256
    of the rest: the mark by which :func:`check_file_target` recognises it later."""
    if text.startswith("{\n") and not text.startswith("{\n}"):
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        text = f'{{\n  "{STAMP}": "sha256:{digest}",\n' + text[2:]
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        raise InputError(f"{option} {str(path)!r}: cannot write ({exc.strerror or exc})") from None
    finally:
        tmp.unlink(missing_ok=True)
