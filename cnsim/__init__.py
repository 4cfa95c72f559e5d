"""cnsim: a simulator of distributed content-driven notification networks.

Range top-k subscriptions kept current by the Paint algorithms over a
Meghdoot-style broker overlay (see DESIGN.md and the papers in shared/seeds).
"""

__version__ = "0.1.0"
