"""The sweep file: reading, validation, axes, and their expansion into runs.

A sweep file is a scenario file (or ``base = "scenario.toml"`` plus inline overrides)
with a ``[sweep]`` table of axes (keys: :data:`cnsim.simulations.config.SWEEP_SCHEMA`;
format: ``cnsim/simulations/SWEEPS.md``). The whole file, both variants of a ``[quick]``
table, and every run's scenario are validated before anything runs.
"""

from __future__ import annotations

import copy
import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cnsim.errors import CLI, Names
from cnsim.schema import check_table, check_value, config_error
from cnsim.simulations.config import SWEEP_FILE, SWEEP_SCHEMA, from_dict, read_toml
from cnsim.simulations.sweep.seeds import derive_seed, describe, run_id_of

RESERVED = tuple(SWEEP_FILE)  # top-level keys of a sweep file that are not scenario
PLAIN = "numbers (no NaN or infinity), strings, booleans, and arrays and tables of them"


@dataclass(frozen=True)
class RunSpec:
    """One run of a sweep: its id, repeat index, derived seed, axis values and scenario."""

    run_id: str
    repeat: int
    seed: int
    params: dict[str, Any]
    scenario: dict[str, Any]


@dataclass(frozen=True)
class Sweep:
    """A validated, expanded sweep."""

    name: str
    source: str
    seed: int
    repeat: int
    axes: list[list[str]]  # groups of axis paths varied together (a grid axis alone)
    seed_ignore: list[str]
    keep_events: bool
    runs: list[RunSpec]


def load_sweep(
    path: str | Path, quick: bool = False, repeat: int | None = None, names: Names = CLI
) -> Sweep:
    """Read, validate and expand a sweep TOML file (``quick``: apply its ``[quick]`` table;
    ``names``: how messages name ``quick`` and ``repeat``, options or keywords)."""
    path = Path(path)
    doc = read_toml(path, "sweep file")
    return expand(doc, str(path), path.parent, quick=quick, repeat=repeat, names=names)


def expand(
    doc: dict[str, Any],
    source: str = "<sweep>",
    base_dir: str | Path = ".",
    quick: bool = False,
    repeat: int | None = None,
    names: Names = CLI,
) -> Sweep:
    """Validate a sweep document fully and expand it into its runs (also checks the
    variant not asked for, so a broken ``[quick]`` table is caught either way;
    ``repeat``: the ``--repeat`` override of ``sweep.repeat``; ``names``: how messages
    name ``quick`` and ``repeat``)."""
    overrides = check_value(SWEEP_FILE["quick"], doc.get("quick"), "quick", source)
    if quick and overrides is None:
        raise config_error(
            source, names.flag("quick"), problem="is given but the file has no [quick] table"
        )
    if repeat is not None:
        check_value(SWEEP_SCHEMA["repeat"], repeat, names.arg("repeat"), source)
    plain = {k: v for k, v in doc.items() if k != "quick"}
    with_quick = _merge(plain, overrides) if overrides is not None else None
    if overrides is not None and "quick" in overrides:
        raise config_error(
            source, "quick.quick", overrides["quick"], "is not allowed", "overrides of the file"
        )
    where = (Path(base_dir), repeat, Path(source).stem)  # the default name: the file's
    chosen = _expand(with_quick if quick else plain, _label(source, quick), *where)
    if with_quick is not None:
        _expand(plain if quick else with_quick, _label(source, not quick), *where)
    return chosen


def _label(source: str, quick: bool) -> str:
    return f"{source} (with [quick])" if quick else source


def _expand(
    doc: dict[str, Any], source: str, base_dir: Path, repeat: int | None, name: str
) -> Sweep:
    raw = _base_scenario(doc, source, base_dir)
    table = check_value(SWEEP_FILE["sweep"], doc.get("sweep", {}), "sweep", source)
    table = check_table(SWEEP_SCHEMA, table, source, "sweep.", "[sweep]")
    scenario = from_dict(raw, source)  # the scenario is valid before any axis is applied
    groups = _axis_groups(table, source)
    paths = [p for group, _ in groups for p in group]
    seed_ignore = _seed_ignore(table["seed_ignore"], paths, source)
    sweep_seed = scenario.seed if table["seed"] is None else table["seed"]
    repeats = table["repeat"] if repeat is None else repeat
    runs = []
    for combo in _combinations(groups):
        runs.extend(_runs_of(raw, combo, sweep_seed, seed_ignore, repeats, source))
    _check_unique(runs, source)
    axes = [paths for paths, _ in groups]
    name = name if table["name"] is None else table["name"]
    return Sweep(name, source, sweep_seed, repeats, axes, seed_ignore, table["keep_events"], runs)


def _base_scenario(doc: dict[str, Any], source: str, base_dir: Path) -> dict[str, Any]:
    """The scenario document: the ``base`` file (if any) overlaid with the inline tables."""
    inline = {k: v for k, v in doc.items() if k not in RESERVED}
    base = check_value(SWEEP_FILE["base"], doc.get("base"), "base", source)
    if base is None:
        return inline
    base_doc = read_toml(base_dir / base, "base scenario")
    if any(k in base_doc for k in RESERVED):
        raise config_error(
            source,
            "base",
            base,
            f"is a sweep file (it has one of {', '.join(RESERVED)})",
            "a scenario file",
        )
    return _merge(base_doc, inline)


def _merge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """``b`` laid over ``a``: tables merged key by key, other values replaced."""
    out = copy.deepcopy(a)
    for key, value in b.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _axis_groups(table: dict[str, Any], source: str) -> list[tuple[list[str], list[tuple]]]:
    """Axes grouped as they vary together, each as ``(paths, rows of values)``: every grid
    axis alone, every zip table as one group."""
    zips = [table["zip"]] if isinstance(table["zip"], dict) else table["zip"]
    seen: dict[str, str] = {}
    groups = [
        ([_axis(p, v, "sweep.grid", seen, source)], [(x,) for x in v])
        for p, v in table["grid"].items()
    ]
    for i, z in enumerate(zips):
        where = "sweep.zip" if len(zips) == 1 else f"sweep.zip[{i}]"
        paths = [_axis(p, v, where, seen, source) for p, v in z.items()]
        lengths = {len(z[p]) for p in paths}
        if len(lengths) > 1:
            sizes = ", ".join(f"{p}: {len(z[p])}" for p in paths)
            problem = f"has arrays of different lengths ({sizes})"
            raise config_error(
                source, where, z, problem, "arrays of the same length, read row by row"
            )
        if paths:
            groups.append((paths, list(zip(*(z[p] for p in paths), strict=True))))
    return groups


def _axis(path: str, values: Any, where: str, seen: dict[str, str], source: str) -> str:
    """Check one axis: a ``section.key`` path, a non-empty array of plain data, named once."""
    label = f"{where}.{path!r}"
    if path == "seed":
        raise config_error(
            source,
            label,
            values,
            "cannot be an axis (every run's seed is derived from sweep.seed and its parameters)",
            "sweep.repeat for replicates",
        )
    section, dot, key = path.partition(".")
    if not dot or not section or not key:
        raise config_error(
            source, label, values, "is not a dotted path", "'section.key', e.g. 'subscriptions.k'"
        )
    if not isinstance(values, list) or not values:
        problem = "is empty" if isinstance(values, list) else "is not an array"
        raise config_error(source, label, values, problem, "a non-empty array of values")
    if path in seen:
        problem = f"is also an axis in {seen[path]}"
        raise config_error(source, label, values, problem, "each axis in one place")
    seen[path] = where
    for value in values:
        problem = next(filter(None, map(_not_plain, _leaves(value))), None)
        if problem:
            raise config_error(source, label, values, problem, PLAIN)
    return path


def _leaves(value: Any) -> Iterator[Any]:
    """The scalars inside a value (arrays and tables opened)."""
    if isinstance(value, list | dict):
        for item in value.values() if isinstance(value, dict) else value:
            yield from _leaves(item)
    else:
        yield value


def _not_plain(leaf: Any) -> str | None:
    """Why a scalar cannot be an axis value (None if it can): seeds and ids hash values
    as canonical JSON, which has no NaN, infinity, dates or times."""
    if isinstance(leaf, float) and math.isnan(leaf):
        return "holds NaN, which is not allowed"
    if isinstance(leaf, float) and math.isinf(leaf):
        return f"holds {leaf!r}, which is not allowed"
    if not isinstance(leaf, bool | int | float | str):
        return f"holds a {type(leaf).__name__} ({leaf!r}), which is not allowed"
    return None


def _seed_ignore(ignore: list[str], paths: list[str], source: str) -> list[str]:
    for p in ignore:
        if p not in paths:
            allowed = ", ".join(paths) or "none (there are no axes)"
            raise config_error(source, "sweep.seed_ignore", p, "is not an axis", allowed)
    return ignore


def _combinations(groups: list[tuple[list[str], list[tuple]]]) -> list[dict[str, Any]]:
    """Grid axes and zip groups crossed, in file order (the first axis varies slowest)."""
    combos = []
    for picks in itertools.product(*(rows for _, rows in groups)):
        combo: dict[str, Any] = {}
        for (paths, _), row in zip(groups, picks, strict=True):
            combo.update(zip(paths, row, strict=True))
        combos.append(combo)
    return combos


def _runs_of(
    raw: dict[str, Any],
    combo: dict[str, Any],
    sweep_seed: int,
    seed_ignore: list[str],
    repeats: int,
    source: str,
) -> list[RunSpec]:
    """The runs of one combination of axis values, one per repeat index."""
    label = f"{source} (run {describe(combo)})"
    doc = copy.deepcopy(raw)
    for path, value in combo.items():
        section, _, key = path.partition(".")
        if not isinstance(doc.setdefault(section, {}), dict):
            raise config_error(label, f"axis {path!r}", problem=f"{section!r} is not a table")
        doc[section][key] = copy.deepcopy(value)
    validated = from_dict(doc, label)  # every section (as_dict leaves some out at defaults)
    if validated["run"]["partitions"] > 1:  # a sweep spreads runs, not one run's subscriptions
        raise config_error(
            label, "run.partitions", validated["run"]["partitions"],
            "does not apply to a sweep (its runs are spread over Spark tasks, one a run)",
            "1 (cnsim run spreads one run's subscriptions)",
        )  # fmt: skip
    # Seeds and columns use the validated values (e.g. 1 -> 1.0 for a float key), so
    # writing an axis value differently does not change a run.
    params = {p: validated[p.partition(".")[0]][p.partition(".")[2]] for p in combo}
    seed_params = {p: v for p, v in params.items() if p not in seed_ignore}
    runs = []
    for r in range(repeats):
        seed = derive_seed(sweep_seed, seed_params, r)
        run_table = {**doc.get("run", {}), "progress": False}  # no bars inside workers
        validated_run = from_dict({**doc, "seed": seed, "run": run_table}, label)
        run_id = run_id_of(validated_run.id_record(), r)
        runs.append(RunSpec(run_id, r, seed, params, validated_run.as_dict()))
    return runs


def _check_unique(runs: list[RunSpec], source: str) -> None:
    seen: dict[str, RunSpec] = {}
    for run in runs:
        if run.run_id in seen:
            first, again = describe(seen[run.run_id].params), describe(run.params)
            raise config_error(
                source,
                "sweep",
                problem=f"has two runs with identical scenarios ({first} and {again})",
                allowed="every value once per axis",
            )
        seen[run.run_id] = run
