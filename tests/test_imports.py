"""The package's import graph, read from the source: no cycle among cnsim's modules, and
no module importing from a sub-package above its own in the layering of
docs/ARCHITECTURE.md (each arrow is "is used by"):

    network -> subscriptions -> server -> algorithms -> brokers -> simulations -> bench,
    api, cli

(the top-level helpers ``errors``, ``schema``, ``outputs``, ``kdtree`` sit below all;
the package itself and every ``__main__`` entry point at the top).
Imports inside functions count; imports under ``if TYPE_CHECKING:`` count for the
layering (they are a dependency of what the code means) but not for cycles (they never
run)."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

PACKAGE = Path(__file__).resolve().parents[1] / "cnsim"
LAYERS = ("network", "subscriptions", "server", "algorithms", "brokers", "simulations")
TOP = ("bench", "api", "cli", "__main__")
# Upward references allowed: none (a network is built from typed parameters of its
# own, cnsim.brokers.base.NetworkSetup, not from the Scenario).
KNOWN_UPWARD: set[tuple[str, str]] = set()


def _module(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(tree: ast.AST) -> list[tuple[str, bool]]:
    """Every ``cnsim`` import in ``tree``: (dotted name, under TYPE_CHECKING)."""
    found: list[tuple[str, bool]] = []

    def visit(node: ast.AST, typing_only: bool) -> None:
        for child in ast.iter_child_nodes(node):
            guarded = typing_only or (
                isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test)
            )
            if isinstance(child, ast.ImportFrom) and (child.module or "").startswith("cnsim"):
                found.extend((f"{child.module}.{a.name}", guarded) for a in child.names)
            elif isinstance(child, ast.Import):
                found.extend((a.name, guarded) for a in child.names if a.name.startswith("cnsim"))
            visit(child, guarded)

    visit(tree, False)
    return found


def _graph() -> tuple[nx.DiGraph, set[tuple[str, str]]]:
    """The runtime import graph between modules, and every (importer, imported) pair."""
    modules = {_module(p): p for p in PACKAGE.rglob("*.py")}

    def resolve(name: str) -> str:
        while name not in modules and "." in name:
            name = name.rsplit(".", 1)[0]
        return name

    runtime, every = nx.DiGraph(), set()
    runtime.add_nodes_from(modules)
    for module, path in modules.items():
        for name, typing_only in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            target = resolve(name)
            if target == module or module.startswith(target + "."):
                continue  # itself, or its own package (imported first anyway)
            every.add((module, target))
            if not typing_only:
                runtime.add_edge(module, target)
    return runtime, every


def _layer(module: str) -> int:
    if module == "cnsim" or module.endswith(".__main__"):  # the public face, entry points
        return 1 + len(LAYERS)
    part = module.split(".")[1]
    if part in LAYERS:
        return 1 + LAYERS.index(part)
    return 1 + len(LAYERS) if part in TOP else 0


def test_no_import_cycle():
    runtime, _ = _graph()
    cycles = [sorted(c) for c in nx.strongly_connected_components(runtime) if len(c) > 1]
    assert not cycles, f"import cycles: {cycles}"


def test_no_upward_import():
    _, every = _graph()
    upward = {(a, b) for a, b in every if _layer(b) > _layer(a)}
    assert upward - KNOWN_UPWARD == set(), f"upward imports: {sorted(upward - KNOWN_UPWARD)}"
    assert upward >= KNOWN_UPWARD, f"gone, drop from KNOWN_UPWARD: {KNOWN_UPWARD - upward}"


def test_the_graph_sees_imports_inside_functions_and_type_checking_blocks():
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from cnsim.a import b\n"
        "def f():\n    import cnsim.c\n"
    )
    assert _imports(tree) == [("cnsim.a.b", True), ("cnsim.c", False)]
