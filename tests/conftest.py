"""Shared test settings: hypothesis profiles sized for a 2-core CI machine, the example
budget of the quick run, and the folder of the bad-input tables (tests/refusals.py).

Two runs, one suite:

* the full run (``pytest``, the README's command and CI's) runs every test, the ``slow``
  ones among them, with every property test at its full example count: the ``ci``
  profile's 60 examples, or the count its own ``@settings`` asks for;
* the quick run (``pytest -m "not slow"``, the developer's loop) leaves the slow tests
  out and runs each property test on a quarter of its examples (at least
  ``QUICK_MIN_EXAMPLES``): the same properties against the same oracles, on fewer
  drawn inputs.

The quick budget applies when the ``-m`` expression deselects ``slow`` tests; the
environment variable ``CNSIM_TEST_EXAMPLES`` overrides the choice: ``full`` keeps every
count whatever ``-m`` says, ``quick`` divides them whatever it says.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("ci")

QUICK_SHARE = 0.25  # of each property test's examples, in the quick run
QUICK_MIN_EXAMPLES = 10


def _quick(config: pytest.Config) -> bool:
    """Whether this run uses the quick example budget (see the module docstring)."""
    chosen = os.environ.get("CNSIM_TEST_EXAMPLES", "").strip().lower()
    if chosen in ("full", "quick"):
        return chosen == "quick"
    if chosen:
        raise pytest.UsageError(f"CNSIM_TEST_EXAMPLES = {chosen!r}: must be 'full' or 'quick'")
    expression = config.getoption("markexpr", "")
    if not expression:
        return False
    from _pytest.mark.expression import Expression

    # Would a test marked slow, and nothing else, run under this -m expression?
    return not Expression.compile(expression).evaluate(lambda name, **_: name == "slow")


def pytest_report_header(config: pytest.Config) -> str:
    if _quick(config):
        return (
            f"hypothesis: quick budget, {QUICK_SHARE:.0%} of each test's examples "
            f"(at least {QUICK_MIN_EXAMPLES})"
        )
    return "hypothesis: full example counts"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In the quick run, every property test draws its share of examples: a test's
    settings (its own ``@settings`` or the profile) are replaced once, before it runs."""
    if not _quick(config):
        return
    for item in items:
        test = getattr(getattr(item, "obj", None), "__func__", getattr(item, "obj", None))
        if not getattr(test, "is_hypothesis_test", False):
            continue
        if getattr(test, "_cnsim_quick_budget", False):
            continue  # another parameter of the same function: already scaled
        full = test._hypothesis_internal_use_settings
        share = max(QUICK_MIN_EXAMPLES, math.ceil(full.max_examples * QUICK_SHARE))
        test._hypothesis_internal_use_settings = settings(
            full, max_examples=min(full.max_examples, share)
        )
        test._cnsim_quick_budget = True


@pytest.fixture
def bad_inputs(tmp_path: Path, monkeypatch) -> Path:
    """A folder holding the bad inputs' files (tests/refusals.py ``FILES``), the working
    directory, with the world cache inside it."""
    from refusals import make_folder  # imports cnsim.cli: only for the tests that need it

    make_folder(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CNSIM_CACHE", str(tmp_path / "cache"))
    return tmp_path
