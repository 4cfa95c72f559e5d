"""Measured IP topologies shipped inside the ``topohub`` package (``generator = "topohub"``).

topohub (MIT licence, https://github.com/piotrjurkiewicz/topohub) ships its maps as
NetworkX node-link JSON files *inside the wheel* (``topohub/data/<group>/…json``);
nothing is fetched from the Internet, here or in topohub. Offered are its measured
groups: CAIDA router-level ISP maps (``caida/2024-08/<AS number>``), the Internet
Topology Zoo (``topozoo/<Name>``) and SNDlib (``sndlib/<name>``), each node at a
(longitude, latitude) position. Left out: topohub's synthetic groups (``gabriel``,
``backbone``) and the SNDlib maps whose positions are drawing coordinates rather than
longitude/latitude (e.g. ``sndlib/ta2``); a map enters by its topohub key.

A link's latency is its great-circle length (haversine, mean Earth radius) divided by
the speed of light in optical fibre, taken as 200 km per ms (c / 1.5 = 199,862 km/s,
i.e. 5 µs per km).
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

MEASURED_GROUPS = ("caida", "topozoo", "sndlib")
KM_PER_MS = 200.0  # propagation speed in fibre: c / 1.5, rounded (5 µs per km)
EARTH_RADIUS_KM = 6371.0088  # mean radius (IUGG); topohub's own link lengths agree to 0.1%


def _data_root() -> Path:
    import topohub  # imported late: only worlds built from a measured map need it

    return Path(topohub.__file__).parent / "data"


def topohub_version() -> str:
    """The installed topohub's version."""
    import topohub

    return str(topohub.__version__)


def _path(name: str) -> Path | None:
    """The JSON file of map ``name``, if ``name`` is a key of a measured group."""
    parts = name.split("/")
    if parts[0] not in MEASURED_GROUPS or any(p in ("", ".", "..") for p in parts):
        return None
    path = _data_root().joinpath(*parts[:-1], parts[-1] + ".json")
    return path if path.is_file() else None


@functools.cache
def _load(name: str) -> dict[str, Any] | None:
    """The node-link document of a measured map with geographic positions, else None."""
    path = _path(name)
    if path is None:
        return None
    doc = json.loads(path.read_text(encoding="utf-8"))
    for node in doc["nodes"]:
        lon, lat = node.get("pos") or (None, None)
        if lon is None or not (-180 <= lon <= 180 and -90 <= lat <= 90):
            return None  # drawing coordinates, not longitude/latitude
    return doc


def map_problem(name: str) -> str | None:
    """Why ``name`` is not an offered map (None if it is)."""
    if is_map(name):
        return None
    if _path(name) is not None:
        return "is shipped by topohub with drawing coordinates, not longitude/latitude"
    return "is not a measured map that topohub ships"


def is_map(name: str) -> bool:
    """Whether ``name`` is an offered map (a measured group's key with lon/lat positions)."""
    return _load(name) is not None


@functools.cache
def map_names() -> tuple[str, ...]:
    """Every offered map, sorted by group then name."""
    root = _data_root()
    names = []
    for group in MEASURED_GROUPS:
        for path in sorted((root / group).rglob("*.json")):
            name = path.relative_to(root).with_suffix("").as_posix()
            if is_map(name):
                names.append(name)
    return tuple(names)


def allowed_maps(name: str = "") -> str:
    """What ``network.map`` allows, in words (with the nearest names to ``name``)."""
    names = map_names()
    counts = ", ".join(
        f"{sum(n.startswith(g + '/') for n in names)} '{g}/…'" for g in MEASURED_GROUPS
    )
    close = difflib.get_close_matches(name, names, n=3, cutoff=0.6) if name else []
    near = f"; nearest: {', '.join(map(repr, close))}" if close else ""
    return (
        f"one of the {len(names)} measured maps topohub {topohub_version()} ships ({counts}; "
        f"e.g. 'caida/2024-08/3356', 'topozoo/Abilene', 'sndlib/polska'){near}; "
        "`cnsim topology list` names them all"
    )


def map_digest(name: str) -> str:
    """SHA-256 of the map's JSON file (part of the world's cache key)."""
    path = _path(name)
    assert path is not None, name
    return hashlib.sha256(path.read_bytes()).hexdigest()


@functools.cache
def read_map(name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Links ``(u, v)`` (``u < v``, each once, no loops, sorted) and node positions
    ``pos[i] = (longitude, latitude)`` in degrees; nodes numbered in file order."""
    doc = _load(name)
    assert doc is not None, name
    index = {node["id"]: i for i, node in enumerate(doc["nodes"])}
    pos = np.array([node["pos"] for node in doc["nodes"]], dtype=np.float64).reshape(-1, 2)
    ends = np.array(
        [(index[e["source"]], index[e["target"]]) for e in doc["edges"]], dtype=np.int64
    ).reshape(-1, 2)
    u, v = ends.min(axis=1), ends.max(axis=1)
    keep = u != v
    pairs = np.unique(np.stack([u[keep], v[keep]], axis=1), axis=0)  # sorted, no repeats
    for a in (pairs, pos):
        a.setflags(write=False)
    return pairs[:, 0], pairs[:, 1], pos


@functools.cache
def component_nodes(name: str) -> int:
    """Nodes of the map's largest connected component (the part a world keeps)."""
    from scipy.sparse import coo_array
    from scipy.sparse.csgraph import connected_components

    u, v, pos = read_map(name)
    n = len(pos)
    graph = coo_array((np.ones(len(u)), (u, v)), shape=(n, n)).tocsr()
    _, labels = connected_components(graph, directed=False)
    return int(np.bincount(labels).max(initial=0))


def great_circle_km(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Great-circle distance in km between (longitude, latitude) rows of ``a`` and ``b``
    (haversine on a sphere of the mean Earth radius)."""
    lon1, lat1 = np.radians(np.asarray(a, np.float64)).T
    lon2, lat2 = np.radians(np.asarray(b, np.float64)).T
    h = (
        np.sin((lat2 - lat1) / 2) ** 2
        + np.cos(lat1) * np.cos(lat2) * np.sin((lon2 - lon1) / 2) ** 2
    )
    return 2 * EARTH_RADIUS_KM * np.arcsin(np.sqrt(np.clip(h, 0.0, 1.0)))


def describe(name: str) -> dict[str, Any]:
    """One row of ``cnsim topology list``: the map's size and link lengths."""
    doc = _load(name)
    assert doc is not None, name
    u, v, pos = read_map(name)
    km = great_circle_km(pos[u], pos[v])
    return {
        "map": name,
        "source": {"caida": "CAIDA ITDK", "topozoo": "Topology Zoo", "sndlib": "SNDlib"}[
            name.split("/")[0]
        ],
        "nodes": len(pos),
        "links": len(u),
        "component_nodes": component_nodes(name),
        "link_km_mean": round(float(km.mean()), 1) if len(km) else 0.0,
        "link_ms_mean": round(float(km.mean() / KM_PER_MS), 3) if len(km) else 0.0,
    }
