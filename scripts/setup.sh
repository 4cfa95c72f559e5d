#!/usr/bin/env bash
# Creates .venv (first use only) and installs cnsim with its dependencies.
# Java 17 is needed by PySpark, Chromium by the test that renders the reports in a
# browser; where one is missing and we are root, it comes from Debian.
set -euo pipefail
cd "$(dirname "$0")/.."
missing=()
command -v java >/dev/null 2>&1 || missing+=(openjdk-17-jre-headless)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "warning: ${missing[*]} not found: Spark sweeps need Java 17, the report test Chromium (apt-get install ${missing[*]})" >&2
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
