"""IP network: topology generators, node placement, broker routing matrices, on-disk cache."""

from cnsim.network.cache import build_world, cache_dir, load_world, save_world, world_key
from cnsim.network.params import GENERATORS, LATENCY_MODELS, NetworkParams
from cnsim.network.topology import Topology, build_topology
from cnsim.network.world import World, compute_world, export, summarize

__all__ = [
    "GENERATORS",
    "LATENCY_MODELS",
    "NetworkParams",
    "Topology",
    "World",
    "build_topology",
    "build_world",
    "cache_dir",
    "compute_world",
    "export",
    "load_world",
    "save_world",
    "summarize",
    "world_key",
]
