#!/usr/bin/env bash
# Creates .venv (first use only) and installs cnsim with its dependencies.
# Java 17 is needed by PySpark; where it is missing and we are root, it comes from Debian.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v java >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless >/dev/null
  else
    echo "warning: no java found; Spark sweeps need Java 17 (apt-get install openjdk-17-jre-headless)" >&2
  fi
fi
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
stamp=.venv/.cnsim-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  .venv/bin/python -m pip install -q -e '.[dev]'
  touch "$stamp"
fi
