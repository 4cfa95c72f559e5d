"""The batch engine's numba cache is keyed on engine.py alone: engine.py carries a digest
of the index sources it compiles in, so changing them without updating the digest (and
so engine.py, which invalidates the cache) fails here instead of running stale code."""

import hashlib
from pathlib import Path

from cnsim.subscriptions.covering import engine

SOURCES = ("base.py", "kdtree.py", "naive.py", "zorder.py")


def test_engine_carries_the_digest_of_the_index_sources():
    folder = Path(engine.__file__).parent
    h = hashlib.sha256()
    for name in SOURCES:
        h.update((folder / name).read_bytes())
    assert h.hexdigest()[:16] == engine.INDEX_SOURCES, (
        "the covering index sources changed: set engine.INDEX_SOURCES to "
        f"{h.hexdigest()[:16]!r} (this also refreshes numba's cache of the engine)"
    )
