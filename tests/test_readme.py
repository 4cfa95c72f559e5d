"""The README shows what works: its Python code blocks run as written (in a fresh folder
holding the repository's ``examples``), and every ``cnsim`` command line it shows names
a command and options that command's ``--help`` lists."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cnsim.cli import BENCHES, app

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def blocks(language: str) -> list[str]:
    """The README's fenced code blocks in ``language``."""
    return re.findall(rf"^```{language}\n(.*?)^```", README, flags=re.MULTILINE | re.DOTALL)


def command_lines() -> list[list[str]]:
    """Each ``cnsim …`` line of the README's shell blocks, as words (comments cut)."""
    lines = []
    for block in blocks("bash"):
        for line in block.splitlines():
            words = line.split("#", 1)[0].split()
            if words[:1] == ["cnsim"]:
                lines.append(words[1:])
    return lines


def test_the_readme_has_a_python_example_and_command_lines() -> None:
    assert blocks("python") and "import cnsim" in blocks("python")[0]
    named = {words[0] for words in command_lines()}
    assert {"run", "verify", "sweep", "report", "reproduce", "topology", "bench"} <= named


@pytest.mark.parametrize("number", range(len(blocks("python"))))
def test_a_python_block_runs_as_written(number: int, tmp_path: Path) -> None:
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    env = {
        **os.environ,
        "CNSIM_CACHE": os.environ.get("CNSIM_CACHE", str(ROOT / ".cnsim-cache")),
        "PYTHONPATH": str(ROOT),
    }
    code = blocks("python")[number]
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    if "mean_ip_bytes" in code:  # over an overlay: the IP traffic it prints is not 0
        printed = proc.stdout.split()
        assert float(printed[1]) > 0, proc.stdout


def _help(words: list[str]) -> str:
    result = CliRunner().invoke(app, [*words, "--help"])
    assert result.exit_code == 0, (words, result.output)
    return result.output


@pytest.mark.parametrize("words", command_lines(), ids=lambda w: " ".join(w[:2]))
def test_a_command_line_of_the_readme_parses(words: list[str]) -> None:
    """The command (each of ``build|show|list``; ``bench NAME``: the group) shows its
    help, and every option the line shows is in it."""
    name, rest = words[0], words[1:]
    subcommands = [[]]
    if rest and re.fullmatch(r"[a-z_]+(\|[a-z_]+)+", rest[0]):
        subcommands = [[s] for s in rest[0].split("|")]
    elif rest and re.fullmatch(r"[a-z_]+", rest[0]) and name in ("bench", "topology"):
        subcommands = [[rest[0]]]
    elif rest and rest[0] == "NAME" and name == "bench":  # options every bench takes
        subcommands = [[next(iter(BENCHES))]]
    options = {w.strip("[]|()") for w in rest if w.strip("[]|()").startswith("--")}
    for sub in subcommands:
        text = _help([name, *sub])
        shown = set(re.findall(r"--[a-z][a-z-]*", text))
        if sub or name not in ("bench", "topology"):  # a group's options are its commands'
            assert options <= shown, (words, options - shown)
