"""numba's on-disk cache of cnsim's kernels, kept fresh across files.

numba caches a compiled function beside its source file and trusts the cache while that
one file is unchanged. cnsim's kernels call kernels of other files (the object indexes'
searches are :func:`cnsim.kdtree.traversal`'s, the covering engine runs the covering
indexes' functions, the BE*-tree's builds share their helpers), and numba compiles a
callee into its caller: edit ``kdtree.py`` and every cached caller elsewhere would keep
the old machine code, silently, until its own file changed.

So for a function defined in cnsim, the cache's freshness stamp is a digest of its
file and of every cnsim module that file imports, directly or through others (read
from the source: imports inside functions count). Any change along that chain compiles
the function anew; a change elsewhere leaves its cache alone. The locators below are
numba's own (``NUMBA_CACHE_DIR`` if set, else ``__pycache__`` beside the source, else
the user's cache folder) with that stamp; :func:`install` puts them first in numba's
``NUMBA_CACHE_LOCATOR_CLASSES`` unless the user has set it. Functions outside cnsim are
cached as numba always does.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from functools import cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
_NUMBA = (
    "UserProvidedCacheLocator", "InTreeCacheLocator", "UserWideCacheLocator",
    "IPythonCacheLocator", "ZipCacheLocator",
)  # fmt: skip
#: numba's locators, each first in cnsim's version (see the classes at the end)
LOCATORS = ",".join(
    [f"{__name__}.{name}" for name in ("UserProvided", "InTree", "UserWide")] + list(_NUMBA)
)


def install() -> None:
    """Make numba cache cnsim's functions with :func:`sources_digest` as their stamp
    (before any of them is compiled; a user's own ``NUMBA_CACHE_LOCATOR_CLASSES``
    wins)."""
    if "NUMBA_CACHE_LOCATOR_CLASSES" in os.environ:
        return
    os.environ["NUMBA_CACHE_LOCATOR_CLASSES"] = LOCATORS
    config = sys.modules.get("numba.core.config")
    if config is not None:  # numba imported already: its config has read the environment
        config.CACHE_LOCATOR_CLASSES = LOCATORS


def _module_file(name: str) -> Path | None:
    """The source file of cnsim module ``name`` (or of the nearest package holding it)."""
    parts = name.split(".")[1:]
    while True:
        base = PACKAGE.joinpath(*parts)
        for path in (base.with_suffix(".py"), base / "__init__.py"):
            if parts and path.is_file():
                return path
        if not parts:
            return PACKAGE / "__init__.py"
        parts = parts[:-1]


#: ``from cnsim.x import a, b`` (parenthesised over lines too) and ``import cnsim.x``
_FROM = re.compile(rb"^[ \t]*from[ \t]+(cnsim[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)", re.M)
_IMPORT = re.compile(rb"^[ \t]*import[ \t]+([^\n]*)", re.M)
_NAME = re.compile(rb"[A-Za-z_][\w.]*")


@cache
def _imports(path: Path) -> frozenset[Path]:
    """The cnsim source files ``path`` imports (anywhere in it).

    Read with regular expressions, not :mod:`ast` (parsing every file cost about half of
    ``import cnsim``): a match inside a string or a comment can only add a file, which
    makes a cache entry stale sooner, never later."""
    src = path.read_bytes()
    names: set[str] = set()
    for module, what in _FROM.findall(src):
        names.update(f"{module.decode()}.{a.decode()}" for a in _NAME.findall(what))
    for line in _IMPORT.findall(src):
        names.update(a.decode() for a in _NAME.findall(line) if a.startswith(b"cnsim"))
    return frozenset(f for f in map(_module_file, names) if f is not None and f != path)


def reach(path: Path) -> list[Path]:
    """``path`` and every cnsim source file it imports, directly or not, in a fixed
    order."""
    seen, todo = {path}, [path]
    while todo:
        for f in _imports(todo.pop()):
            if f not in seen:
                seen.add(f)
                todo.append(f)
    return sorted(seen)


def sources_digest(path: str | Path) -> str:
    """sha256 over the names and contents of :func:`reach` of ``path``."""
    h = hashlib.sha256()
    for f in reach(Path(path).resolve()):
        st = f.stat()
        h.update(str(f.relative_to(PACKAGE)).encode())
        h.update(_file_digest(f, st.st_mtime_ns, st.st_size))
    return h.hexdigest()


@cache
def _file_digest(path: Path, mtime_ns: int, size: int) -> bytes:
    # keyed on the file's time and size too: a file changed while running is read anew
    return hashlib.sha256(path.read_bytes()).digest()


def _in_package(py_file: str) -> bool:
    try:
        Path(py_file).resolve().relative_to(PACKAGE)
    except ValueError:
        return False
    return True


def _locator(base: type) -> type:
    """numba's locator ``base``, for cnsim's files only, stamped by :func:`sources_digest`."""

    class Locator(base):
        def get_source_stamp(self):
            return sources_digest(self._py_file)

        @classmethod
        def from_function(cls, py_func, py_file):
            return super().from_function(py_func, py_file) if _in_package(py_file) else None

    Locator.__name__ = Locator.__qualname__ = base.__name__.removesuffix("CacheLocator")
    return Locator


def __getattr__(name: str):
    # the locator classes, made on first use so that importing cnsim imports no numba
    if name in ("UserProvided", "InTree", "UserWide"):
        from numba.core import caching

        cls = _locator(getattr(caching, f"{name}CacheLocator"))
        globals()[name] = cls
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
