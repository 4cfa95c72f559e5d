"""The networks a run's messages travel: the ideal CN and the Meghdoot overlay.

A new network is one subclass of :class:`cnsim.brokers.base.Network` and one line in
:data:`NETWORKS` (the key is ``[overlay] kind``).
"""

from cnsim.brokers.base import Network
from cnsim.brokers.ideal import IdealCN
from cnsim.brokers.meghdoot import MeghdootCN

NETWORKS: dict[str, type[Network]] = {"meghdoot": MeghdootCN, "ideal": IdealCN}
