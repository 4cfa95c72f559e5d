"""numba's on-disk cache of cnsim's kernels follows their imports (cnsim/kernel_cache.py):
a change to a kernel's callee in another file compiles its cached callers anew."""

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from cnsim import kernel_cache

PACKAGE = Path(kernel_cache.__file__).parent


def test_reach_follows_imports_down_not_up():
    objects = kernel_cache.reach(PACKAGE / "server" / "object_index.py")
    assert PACKAGE / "kdtree.py" in objects and PACKAGE / "errors.py" in objects
    assert PACKAGE / "server" / "object_index.py" not in kernel_cache.reach(PACKAGE / "kdtree.py")


def test_digest_changes_with_a_file_reached(tmp_path, monkeypatch):
    pkg = tmp_path / "cnsim"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from cnsim.b import g\n")
    (pkg / "b.py").write_text("X = 1\n")
    (pkg / "c.py").write_text("Y = 1\n")
    monkeypatch.setattr(kernel_cache, "PACKAGE", pkg)
    kernel_cache._imports.cache_clear()
    before = kernel_cache.sources_digest(pkg / "a.py")
    (pkg / "c.py").write_text("Y = 2\n")  # not reached from a.py
    assert kernel_cache.sources_digest(pkg / "a.py") == before
    (pkg / "b.py").write_text("X = 2\n")
    assert kernel_cache.sources_digest(pkg / "a.py") != before
    kernel_cache._imports.cache_clear()


CALLER = """
import numba
from cnsim.callee import value

@numba.njit(cache=True)
def f():
    return value() + 1
"""
CALLEE = """
import numba

@numba.njit(cache=True)
def value():
    return {}
"""
RUN = "from cnsim.caller import f; print(f())"


def _run(root: Path, locators: str | None) -> int:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env["PYTHONPATH"] = str(root)
    if locators is not None:
        env["NUMBA_CACHE_LOCATOR_CLASSES"] = locators
    out = subprocess.run([sys.executable, "-c", RUN], env=env, cwd=root, check=True,
                         capture_output=True, text=True)  # fmt: skip
    return int(out.stdout)


@pytest.mark.parametrize("locators", [None, "InTreeCacheLocator"], ids=["cnsim", "numba"])
def test_a_callee_changed_in_another_file(tmp_path, locators):
    """A package named cnsim (this module's copy of kernel_cache installed by its
    __init__) whose cached kernel calls a kernel of another file: after the callee
    changes, cnsim's locators compile the caller anew; numba's own keep the old code
    (which shows the cache is really read)."""
    pkg = tmp_path / "cnsim"
    pkg.mkdir()
    shutil.copy(PACKAGE / "kernel_cache.py", pkg / "kernel_cache.py")
    (pkg / "__init__.py").write_text(
        "from cnsim.kernel_cache import install\ninstall()\n"
    )
    (pkg / "caller.py").write_text(textwrap.dedent(CALLER))
    (pkg / "callee.py").write_text(textwrap.dedent(CALLEE).format(1))
    assert _run(tmp_path, locators) == 2
    assert _run(tmp_path, locators) == 2  # from the cache
    (pkg / "callee.py").write_text(textwrap.dedent(CALLEE).format(10))
    assert _run(tmp_path, locators) == (11 if locators is None else 2)
