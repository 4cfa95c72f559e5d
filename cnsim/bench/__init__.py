"""Benchmarks behind ``cnsim bench``: each entry of the CLI's table is a module (or a
package) with ``run_bench(quick, full, **named options) -> dict``; the results hold the
command, the machine and the date (:func:`provenance`)."""

from __future__ import annotations

import platform
from datetime import UTC, datetime


def provenance(
    name: str, quick: bool, full: bool = False, options: dict | None = None
) -> dict[str, str]:
    """The command, machine and date every benchmark result records; ``options`` are the
    named options given (None values left out, lists comma-joined)."""
    words = [f"cnsim bench {name}", *(["--quick"] if quick else []), *(["--full"] if full else [])]
    for key, value in (options or {}).items():
        if value is None or value is False:
            continue
        flag = "--" + key.replace("_", "-")
        if value is True:
            words.append(flag)
        else:
            text = ",".join(map(str, value)) if isinstance(value, list | tuple) else str(value)
            words.append(f"{flag} {text}")
    return {
        "command": " ".join(words),
        "machine": f"{platform.node()} {platform.machine()} {platform.processor()}".strip(),
        "date": datetime.now(UTC).strftime("%Y-%m-%d"),
    }
