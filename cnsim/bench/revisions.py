"""Another revision of this repository beside the working copy, for the side-by-side
benchmarks (``betree_insert``, ``run_loop``): a revision is exported with ``git archive``
into a folder, and a child process runs with that folder first on its path."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

from cnsim.errors import InputError

#: the repository holding this package
ROOT = Path(__file__).resolve().parents[2]


#: the revision name that stands for the working copy as it is (uncommitted changes too)
WORKTREE = "WORKTREE"


def export(rev: str, into: Path, option: str = "--before", source: str = "cnsim bench") -> None:
    """``git archive rev`` of this repository, unpacked into ``into``; a revision git
    cannot export is refused in one line naming ``option``. ``rev = WORKTREE`` copies
    the working copy's files instead (tracked and untracked, not ignored)."""
    if rev == WORKTREE:
        _copy_worktree(into)
        return
    try:
        tar = subprocess.run(["git", "-C", str(ROOT), "archive", rev], check=True,
                             capture_output=True).stdout  # fmt: skip
    except subprocess.CalledProcessError as e:
        raise InputError(f"{source}: {option} = {rev!r} is not a revision git can export: "
                         f"{e.stderr.decode().strip()}") from None  # fmt: skip
    subprocess.run(["tar", "-x", "-C", str(into)], input=tar, check=True)


def commits(rev: str) -> dict[str, str]:
    """The commits a side-by-side run compared, for its record: ``rev`` resolved (a name
    such as ``HEAD`` moves on) and the working copy's ``HEAD``, marked ``+changes``
    when files differ from it."""

    def git(*argv: str) -> str:
        return subprocess.run(["git", "-C", str(ROOT), *argv], check=True,
                              capture_output=True, text=True).stdout.strip()  # fmt: skip

    if rev == WORKTREE:
        before = "working copy"
    else:
        before = git("rev-parse", "--verify", f"{rev}^{{commit}}")
    after = git("rev-parse", "HEAD") + ("+changes" if git("status", "--porcelain", "-uno") else "")
    return {"before": before, "after": after}


def _copy_worktree(into: Path) -> None:
    argv = ["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"]
    listed = subprocess.run(argv, check=True, capture_output=True).stdout
    for name in sorted(set(listed.decode().split("\0")) - {""}):
        src = ROOT / name
        if src.is_file():  # a tracked file deleted in the working copy is left out
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, into / name)


def side_by_side(runs: dict[str, list[dict]], **point) -> dict:
    """One point of a build timed by two revisions in turn (``runs``: ``"before"`` and
    ``"after"``, each build a ``{build_s, digest, stats, rss_mb}``) with ``point``'s
    fields: whether every build gave the same tree, every time, the peak memory, the
    ratio per round and best over best."""
    times = {k: [b["build_s"] for b in v] for k, v in runs.items()}
    return {
        **point,
        "same_tree": len({b["digest"] for v in runs.values() for b in v}) == 1,
        "stats": runs["after"][0]["stats"],
        "build_s": times,
        "rss_mb": {k: max(b["rss_mb"] for b in v) for k, v in runs.items()},
        "speedup_per_round": [b / a for b, a in zip(times["before"], times["after"],
                                                    strict=True)],
        "speedup": min(times["before"]) / min(times["after"]),
    }  # fmt: skip


def alternating(rounds: int, build: Callable[[str], list[dict]], what: str) -> dict:
    """``rounds`` rounds of builds by the two revisions, ``"before"`` first in even
    rounds and ``"after"`` first in odd ones, so both see the same machine load
    (``build(label)``: that revision's builds of the round, each ``{build_s, ...}``;
    each build's time printed after ``what``)."""
    runs: dict[str, list[dict]] = {"before": [], "after": []}
    for r in range(rounds):
        for label in ("before", "after")[:: 1 if r % 2 == 0 else -1]:
            runs[label] += build(label)
            print(f"  {what} {label}: {runs[label][-1]['build_s']:.2f} s", flush=True)
    return runs
