"""Another revision of this repository beside the working copy, for the side-by-side
benchmarks (``betree_insert``, ``run_loop``): a revision is exported with ``git archive``
into a folder, and a child process runs with that folder first on its path."""

from __future__ import annotations

import subprocess
from pathlib import Path

from cnsim.errors import InputError

#: the repository holding this package
ROOT = Path(__file__).resolve().parents[2]


def export(rev: str, into: Path, option: str = "--before", source: str = "cnsim bench") -> None:
    """``git archive rev`` of this repository, unpacked into ``into``; a revision git
    cannot export is refused in one line naming ``option``."""
    try:
        tar = subprocess.run(["git", "-C", str(ROOT), "archive", rev], check=True,
                             capture_output=True).stdout  # fmt: skip
    except subprocess.CalledProcessError as e:
        raise InputError(f"{source}: {option} = {rev!r} is not a revision git can export: "
                         f"{e.stderr.decode().strip()}") from None  # fmt: skip
    subprocess.run(["tar", "-x", "-C", str(into)], input=tar, check=True)
