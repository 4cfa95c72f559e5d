#!/usr/bin/env bash
# Sets up (first use) and runs the default scenario, writing results to out/default.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/cnsim run examples/default.toml --out out/default "$@"
