#!/usr/bin/env bash
# Sets up (first use) and runs the checks: ruff, then the test suite, one worker per
# core (at most 4) with pytest-xdist; a test file stays on one worker, so its module
# fixtures are built once. Arguments go to pytest (`-n 0` runs in this process).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ruff check cnsim tests benchmarks
.venv/bin/python -m pytest -n auto --maxprocesses 4 --dist loadfile "$@"
