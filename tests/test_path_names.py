"""Paths and names a user can give that the file system or the schema cannot take are
refused with one line naming the option or key, before any work: an empty ``--json``,
a name longer than the file system allows (for every output: ``run``, ``sweep`` and
``report`` folders, ``bench --json`` files, scenario files and traces) or a path longer than it
allows, and a key whose name is empty. The harness is tests/refusals.py."""

from __future__ import annotations

from refusals import Case, assert_refused, table

from cnsim.errors import InputError
from cnsim.simulations.config import from_dict, load

LONG = "a" * 300  # one name of 300 bytes: more than the 255 a file system allows
DEEP = "b/" * 3000  # a path of 6,000 bytes: more than the 4,096 it allows

CASES = [
    Case("bench-json-empty", ["bench", "layout", "--quick", "--json", ""],
         r"--json = '' is an empty path"),
    Case("bench-json-long-name", ["bench", "layout", "--quick", "--json", f"{LONG}.json"],
         r"--json = 'a+\.\.\. is in a folder that does not exist|a name of 305 bytes"),
    Case("bench-json-long-name-in-folder",
         ["bench", "layout", "--quick", "--json", "{d}/" + f"{LONG}.json"],
         r"--json .*: a name of 305 bytes; allowed: names of at most 255 bytes"),
    Case("run-out-long-name", ["run", "@", "--out", "{d}/" + LONG + "/x"],
         r"--out .*: a name of 300 bytes; allowed: names of at most 255 bytes"),
    Case("run-out-long-path", ["run", "@", "--out", "{d}/" + DEEP + "x"],
         r"--out: a path of \d+ bytes; allowed: under 4096"),
    Case("sweep-out-long-name", ["sweep", "sweep.toml", "--serial", "--out", "{d}/" + LONG],
         r"--out .*: a name of 300 bytes"),
    Case("report-out-long-name", ["report", "{d}", "--out", "{d}/" + LONG],
         r"a name of 300 bytes|is not a run or sweep"),
    Case("run-trace-long-name", ["run", f'@[events]\ntrace = "{LONG}.csv"\n', "--out", "{d}/r"],
         r"events.trace = .* cannot be read \(File name too long\)"),
    Case("run-scenario-long-name", ["run", "{d}/" + LONG + ".toml", "--out", "{d}/r"],
         r"scenario file '.*': a name of 305 bytes; allowed: names of at most 255 bytes"),
    Case("api-scenario-long-path", api=lambda d: load(f"{d}/{DEEP}x.toml"),
         message=r"^scenario file: a path of \d+ bytes; allowed: under 4096$", raises=InputError),
    Case("api-empty-top-key", api=lambda d: from_dict({"": 1}),
         message=r'^<dict>: "" = 1 is not a key; allowed: seed'),
    Case("api-empty-section-key", api=lambda d: from_dict({"subscriptions": {"": 2}}),
         message=r'^<dict>: subscriptions\."" = 2 is not a key of \[subscriptions\]'),
]  # fmt: skip


@table(CASES)
def test_a_path_or_name_the_system_cannot_take_is_refused(case, bad_inputs, capsys, monkeypatch):
    assert_refused(case, bad_inputs, capsys, monkeypatch)
