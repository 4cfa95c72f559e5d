"""Benchmarks behind ``cnsim bench``: each module has ``run_bench(quick) -> dict``."""

from __future__ import annotations

import platform
from datetime import UTC, datetime


def provenance(name: str, quick: bool) -> dict[str, str]:
    """The command, machine and date every benchmark result records."""
    return {
        "command": f"cnsim bench {name}" + (" --quick" if quick else ""),
        "machine": f"{platform.node()} {platform.machine()} {platform.processor()}".strip(),
        "date": datetime.now(UTC).strftime("%Y-%m-%d"),
    }
