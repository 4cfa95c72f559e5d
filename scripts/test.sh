#!/usr/bin/env bash
# Sets up (first use) and runs the checks: ruff, then the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ruff check cnsim tests benchmarks
.venv/bin/python -m pytest "$@"
