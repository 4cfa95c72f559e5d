"""On-disk cache of worlds: one directory of ``.npy`` arrays plus ``meta.json`` per key.

The key is a SHA-256 of the canonical JSON of the parameters that shape the world
(irrelevant ones, e.g. Waxman settings of an internet-as world, are left out; a
topology file enters by the SHA-256 of its bytes, not its path). Arrays are
loaded memory-mapped and read-only, without pickle, so a 20,000-node world with
1,000 brokers opens in milliseconds and is shared through the page cache by
every process of a sweep. Entries are written to a temporary directory and
renamed into place, so concurrent builders never see a half-written entry.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from cnsim.errors import InputError
from cnsim.network.params import NetworkParams
from cnsim.network.topology import Topology, file_digest
from cnsim.network.world import World, compute_world
from cnsim.outputs import check_names

CACHE_VERSION = 1  # bump when the stored arrays or their meaning change
ENV_VAR = "CNSIM_CACHE"
DEFAULT_DIR = ".cnsim-cache"
ARRAYS = (
    "indptr",
    "indices",
    "latency",
    "pos",
    "broker_nodes",
    "node_hops",
    "node_latency",
    "broker_hops",
    "broker_latency",
)


def cache_dir(override: str | Path | None = None) -> Path:
    """The cache directory: ``override``, else ``$CNSIM_CACHE``, else ``./.cnsim-cache``
    (an InputError naming where it came from if it holds a name or is a path longer
    than the file system allows, or if it, or a folder above it, is a file — the rules
    of every output path, :func:`cnsim.outputs.check_names`)."""
    if override is not None:
        path, named = Path(override), "--cache"
    elif os.environ.get(ENV_VAR):
        path, named = Path(os.environ[ENV_VAR]), f"${ENV_VAR}"
    else:
        path, named = Path.cwd() / DEFAULT_DIR, "the world cache"
    shown = repr(str(path))
    shown = shown if len(shown) <= 60 else shown[:60] + "..."
    check_names(path.absolute(), named, f"{named} {shown}")
    probe = path
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir():
        raise InputError(
            f"{named} {str(path)!r}: {str(probe)!r} is a file, not a folder; give a folder "
            f"for the world cache (--cache or ${ENV_VAR})"
        )
    return path


def canonical_params(params: NetworkParams) -> dict[str, Any]:
    """The parameters that determine the world, as JSON-able values."""
    out = params.to_dict()
    if params.generator == "file":
        out.pop("ip_nodes")
        out["path"] = {"sha256": file_digest(str(params.path))}
    if params.generator == "topohub":  # a map enters by its name and its file's bytes
        from cnsim.network.measured import map_digest

        out.pop("ip_nodes")
        out["map"] = {"name": params.map, "sha256": map_digest(str(params.map))}
    else:
        out.pop("map")  # absent, so the keys of other worlds stay as they were
    if params.generator != "waxman":
        out.pop("waxman_alpha")
        out.pop("waxman_beta")
    if params.generator != "barabasi-albert":
        out.pop("ba_m")
    if params.latency not in ("constant", "geometric"):
        out.pop("latency_ms")
    if params.latency != "uniform":
        out.pop("latency_range_ms")
    return out


def world_key(params: NetworkParams) -> str:
    """Stable cache key: readable prefix plus SHA-256 of the canonical parameter JSON."""
    body = {"version": CACHE_VERSION, "params": canonical_params(params)}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"))
    digest = hashlib.sha256(text.encode()).hexdigest()[:20]
    size = "file" if params.generator == "file" else f"n{params.ip_nodes}"
    if params.generator == "topohub":
        size = str(params.map).replace("/", "-")
    return f"{params.generator}-{size}-b{params.brokers}-s{params.seed}-{digest}"


def build_world(
    params: NetworkParams, cache: bool = True, directory: str | Path | None = None
) -> World:
    """The world of ``params``: loaded from the cache when present, else built (and stored)."""
    key = world_key(params)
    if not cache:
        return compute_world(params, key)
    entry = cache_dir(directory) / key
    if (entry / "meta.json").is_file():
        return load_world(entry, params)
    _check_writable(cache_dir(directory))  # before the world is computed
    world = compute_world(params, key)
    save_world(world, cache_dir(directory))
    return world


def _check_writable(root: Path) -> None:
    """A new entry can be stored under ``root``: its nearest existing folder is writable."""
    probe = root
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if not os.access(probe, os.W_OK | os.X_OK):
        raise InputError(
            f"world cache {str(root)!r}: {str(probe)!r} is not writable; give a writable "
            f"folder (--cache or ${ENV_VAR})"
        )


def save_world(world: World, directory: str | Path) -> Path:
    """Store ``world`` under ``directory/<key>`` atomically; return the entry's path."""
    root = Path(directory)
    try:
        root.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".tmp-{world.key}-", dir=root))
    except OSError as exc:
        raise InputError(
            f"world cache {str(root)!r}: cannot write ({exc.strerror or exc}); give a "
            f"writable folder (--cache or ${ENV_VAR})"
        ) from None
    final = root / world.key
    try:
        for name, array in _arrays(world).items():
            if array is not None:
                np.save(tmp / f"{name}.npy", np.ascontiguousarray(array), allow_pickle=False)
        meta = {"version": CACHE_VERSION, "key": world.key}
        meta["params"] = canonical_params(world.params)
        (tmp / "meta.json").write_text(json.dumps(meta, sort_keys=True, indent=1))
        try:
            tmp.rename(final)
        except OSError:
            if not (final / "meta.json").is_file():  # not a lost race: a real failure
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return final


def load_world(entry: str | Path, params: NetworkParams) -> World:
    """Open a cache entry written by :func:`save_world` (memory-mapped, read-only)."""
    entry = Path(entry)
    try:
        meta = json.loads((entry / "meta.json").read_text())
        if meta.get("version") != CACHE_VERSION:
            raise InputError(f"cache entry {str(entry)!r} has version {meta.get('version')!r}")
        a = {
            name: np.load(entry / f"{name}.npy", mmap_mode="r", allow_pickle=False)
            for name in ARRAYS
            if (entry / f"{name}.npy").is_file()
        }
        topo = Topology(a["indptr"], a["indices"], a["latency"], a.get("pos"))
        return World(
            params,
            str(meta["key"]),
            topo,
            *(a[name] for name in ARRAYS[4:]),
        )
    except (OSError, ValueError, KeyError) as exc:
        raise InputError(f"cache entry {str(entry)!r} is unreadable ({exc}); delete it") from exc


def _arrays(world: World) -> dict[str, np.ndarray | None]:
    topo = world.topology
    return {
        "indptr": topo.indptr,
        "indices": topo.indices,
        "latency": topo.latency,
        "pos": topo.pos,
        "broker_nodes": world.broker_nodes,
        "node_hops": world.node_hops,
        "node_latency": world.node_latency,
        "broker_hops": world.broker_hops,
        "broker_latency": world.broker_latency,
    }
