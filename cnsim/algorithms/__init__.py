"""Message generation: the approaches of seed 003 and their catalog.

Importing the package loads :mod:`cnsim.algorithms.registry`, whose catalog of approach
classes by (family, subscription kind) every :class:`~cnsim.algorithms.base.ApproachSpec`
resolves its class in.
"""

from cnsim.algorithms import registry  # noqa: F401  (fills the specs' catalog)
