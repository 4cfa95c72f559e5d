"""The networks a run's messages travel: the ideal CN, the Meghdoot overlay and the
content-based (SIENA-style) overlay with covering.

A new network is one subclass of :class:`cnsim.brokers.base.Network` and one line in
:data:`NETWORKS` (the key is ``[overlay] kind``).
"""

from cnsim.brokers.base import Network
from cnsim.brokers.content_based import ContentBasedCN
from cnsim.brokers.ideal import IdealCN
from cnsim.brokers.meghdoot import MeghdootCN

NETWORKS: dict[str, type[Network]] = {
    "meghdoot": MeghdootCN,
    "ideal": IdealCN,
    "content-based": ContentBasedCN,
}
