"""The ``cnsim bench`` table: every entry is a module with ``run_bench`` taking the size
options and its named options, its --help lists --quick and --full (and its named
options), and a bad option is refused in the one error shape, before anything runs."""

from __future__ import annotations

import importlib
import inspect
import re
import subprocess

import pytest
from typer.testing import CliRunner

from cnsim.bench import provenance
from cnsim.bench.revisions import ROOT, WORKTREE, commits
from cnsim.cli import BENCHES, app
from cnsim.errors import CnsimError
from cnsim.simulations.config import BENCH_NAMED, bench_options

SHAPE = re.compile(r"^cnsim bench (?P<name>\w+): --(?P<key>[\w-]+) = .+; allowed: .+$")


@pytest.mark.parametrize("name", list(BENCHES))
def test_every_entry_has_a_run_bench_taking_its_options(name):
    run = importlib.import_module(BENCHES[name][0]).run_bench
    params = inspect.signature(run).parameters
    assert {"quick", "full", *BENCH_NAMED.get(name, {})} <= set(params), name


def test_named_options_belong_to_entries():
    assert set(BENCH_NAMED) <= set(BENCHES)


@pytest.mark.parametrize("name", list(BENCHES))
def test_help_lists_the_size_options_and_the_named_ones(name):
    result = CliRunner().invoke(app, ["bench", name, "--help"])
    assert result.exit_code == 0, result.output
    text = re.sub(r"\x1b\[[0-9;]*m", "", result.output)
    for option in ("--quick", "--full", "--json", *(f"--{k}" for k in BENCH_NAMED.get(name, {}))):
        assert option in text, (name, option)


@pytest.mark.parametrize(
    ("args", "key"),
    [
        (["paint", "--bogus", "3"], "bogus"),
        (["paint", "--quick", "--full"], "full"),
        (["betree_ranking", "--n", "many"], "n"),
        (["betree_ranking", "--n", "10"], "n"),
        (["covering_speed", "--indexes", "kdtree,btree"], "indexes"),
        (["covering_overlay", "--dims", "2,x"], "dims"),
        (["betree_insert", "--quick"], "before"),
        (["betree_build", "--quick"], "before"),
        (["betree_build", "--before", "HEAD", "--n", "1000,10"], "n"),
        (["betree_build", "--before", "HEAD", "--rounds", "0"], "rounds"),
        (["betree_build", "--before", "HEAD", "--check", "many"], "check"),
        (["betree_build", "--before", "HEAD", "--threads", "0"], "threads"),
        (["run_loop", "--rounds", "0", "--before", "HEAD"], "rounds"),
        (["betree", "--table", "2"], "table"),
    ],
)
def test_a_bad_option_is_refused_in_one_line_before_the_run(args, key):
    result = CliRunner().invoke(app, ["bench", *args])
    assert isinstance(result.exception, CnsimError), result.output
    message = str(result.exception)
    match = SHAPE.match(message)
    assert match and "\n" not in message, message
    assert (match["name"], match["key"]) == (args[0], key)


@pytest.mark.parametrize("name", ["betree_build", "betree_insert"])
def test_a_revision_git_cannot_export_is_refused_in_one_line(name):
    result = CliRunner().invoke(app, ["bench", name, "--quick", "--before", "no-such-rev"])
    assert isinstance(result.exception, CnsimError), result.output
    message = str(result.exception)
    assert "\n" not in message, message
    assert message.startswith(f"cnsim bench {name}: --before = 'no-such-rev' "), message


def test_a_side_by_side_run_records_the_commits_it_compared():
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], check=True,
                          capture_output=True, text=True).stdout.strip()  # fmt: skip
    got = commits("HEAD")
    assert got["before"] == head  # a moving name resolved
    assert got["after"] in (head, head + "+changes")
    assert commits(WORKTREE)["before"] == "working copy"


def test_command_line_text_is_read_as_the_declared_type():
    got = bench_options({"n": "300000,1000000", "rounds": "2", "before": "abc"}, "x",
                        "betree_insert")  # fmt: skip
    assert got["n"] == [300_000, 1_000_000] and got["rounds"] == 2 and got["before"] == "abc"


def test_the_recorded_command_names_the_options_given():
    p = provenance("betree_insert", False, True, {"before": "abc", "n": [1000, 2000], "x": None})
    assert p["command"] == "cnsim bench betree_insert --full --before abc --n 1000,2000"
    assert p["machine"] and p["date"]
