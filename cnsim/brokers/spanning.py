"""The acyclic overlay of the content-based network: a degree-bounded spanning tree of
the brokers, weighted by IP latency (seed 001 §I: SIENA-style routers in an acyclic
topology, which seed 001 assumes and does not build).

The broker graph is complete (any two brokers can talk over their IP route) with
weight ``broker_latency[u, v]``.  The tree is grown by Prim's algorithm with a degree
bound ``D``: from broker 0, repeatedly attach the broker outside the tree that is
nearest to a tree broker with fewer than ``D`` neighbours (ties: the lowest broker
numbers), so it is deterministic and ``O(B^2)``.  With ``D >= B - 1`` it is the
minimum spanning tree; a bound keeps brokers from becoming hubs of the overlay.

A tree is stored as CSR adjacency whose positions are the *directed edges* (links):
link ``j`` in ``ptr[u] .. ptr[u + 1] - 1`` goes ``u -> nbr[j]``, and ``rev[j]`` is the
link back.  Per-link state of the overlay (what was forwarded over it) is indexed by
link.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Tree:
    """A spanning tree of ``n`` brokers: CSR adjacency ``ptr``/``nbr``, ``src[j]`` the
    broker link ``j`` leaves from, ``rev[j]`` the opposite link."""

    n: int
    ptr: np.ndarray
    nbr: np.ndarray
    src: np.ndarray
    rev: np.ndarray

    @property
    def n_links(self) -> int:
        """Directed edges: ``2 (n - 1)``."""
        return len(self.nbr)

    def links(self, u: int) -> range:
        """The links leaving broker ``u``."""
        return range(int(self.ptr[u]), int(self.ptr[u + 1]))

    def degree(self) -> np.ndarray:
        """Neighbours of every broker."""
        return np.diff(self.ptr)

    def edges(self) -> np.ndarray:
        """The ``n - 1`` undirected edges ``(u, v)``, ``u < v``, sorted."""
        keep = self.src < self.nbr
        e = np.stack([self.src[keep], self.nbr[keep]], axis=1)
        return e[np.lexsort((e[:, 1], e[:, 0]))]


def degree_bounded_tree(latency: np.ndarray, max_degree: int) -> np.ndarray:
    """The ``(B - 1, 2)`` edges of the degree-bounded Prim tree over ``latency`` (B × B)."""
    w = np.asarray(latency, dtype=np.float64)
    n = w.shape[0]
    assert w.shape == (n, n)
    assert max_degree >= 2 or n <= 2
    edges = np.empty((max(n - 1, 0), 2), np.int64)
    if n <= 1:
        return edges
    in_tree = np.zeros(n, bool)
    in_tree[0] = True
    degree = np.zeros(n, np.int64)
    best = w[0].copy()  # distance of every broker to its best open tree broker
    best_from = np.zeros(n, np.int64)
    best[0] = np.inf
    for i in range(n - 1):
        cand = np.where(in_tree, np.inf, best)
        v = int(np.argmin(cand))  # lowest number among ties
        u = int(best_from[v])
        edges[i] = (u, v)
        in_tree[v] = True
        degree[u] += 1
        degree[v] += 1
        # v joins: it is a new open tree broker (degree 1 < max_degree)
        closer = (w[v] < best) | ((w[v] == best) & (v < best_from))
        closer &= ~in_tree
        best[closer] = w[v][closer]
        best_from[closer] = v
        if degree[u] >= max_degree:  # u is full: who pointed at u looks again
            again = np.flatnonzero(~in_tree & (best_from == u))
            open_ = np.flatnonzero(in_tree & (degree < max_degree))
            if len(again):
                sub = w[np.ix_(open_, again)]
                k = np.argmin(sub, axis=0)  # first minimum: the lowest open broker
                best[again] = sub[k, np.arange(len(again))]
                best_from[again] = open_[k]
    return edges


def tree_of(edges: np.ndarray, n: int) -> Tree:
    """The :class:`Tree` of ``n`` brokers with undirected ``edges``."""
    e = np.asarray(edges, np.int64).reshape(-1, 2)
    src = np.concatenate([e[:, 0], e[:, 1]])
    dst = np.concatenate([e[:, 1], e[:, 0]])
    order = np.lexsort((dst, src))
    src, dst = src[order], dst[order]
    ptr = np.concatenate([[0], np.cumsum(np.bincount(src, minlength=n))]).astype(np.int64)
    key = src * n + dst
    rev = np.searchsorted(key, dst * n + src).astype(np.int64)
    return Tree(n, ptr, dst, src, rev)


_CACHE: dict[tuple[str, int], Tree] = {}


def overlay_tree(world, max_degree: int) -> Tree:
    """The run's overlay tree over ``world``'s brokers (kept per world and bound: a
    sweep's runs over one world build it once per process)."""
    key = (world.key, int(max_degree))
    tree = _CACHE.get(key) if world.key else None
    if tree is None:
        edges = degree_bounded_tree(world.broker_latency, max_degree)
        tree = tree_of(edges, world.n_brokers)
        if world.key:
            _CACHE[key] = tree
    return tree
