"""Subscription kinds: one module each, one interface (:mod:`.base`), one catalog.

A new kind is one module here (copy :mod:`.range15d`: a subclass of
:class:`~cnsim.subscriptions.kinds.base.SubscriptionKind`), one line in :data:`KINDS`
(the key is ``[subscriptions] kind``), and its approaches' lines in
:data:`cnsim.algorithms.registry.APPROACHES`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cnsim.subscriptions.kinds.base import Restriction, SubscriptionKind
from cnsim.subscriptions.kinds.box import BoxKind
from cnsim.subscriptions.kinds.range import RangeKind
from cnsim.subscriptions.kinds.range15d import Range15dKind

KINDS: dict[str, type[SubscriptionKind]] = {
    "range": RangeKind,
    "range-1.5d": Range15dKind,
    "box": BoxKind,
}


def kind_of(section: Mapping[str, Any]) -> SubscriptionKind:
    """The kind of a scenario's ``[subscriptions]`` section."""
    return KINDS[section["kind"]](section)


__all__ = ["KINDS", "Restriction", "SubscriptionKind", "kind_of"]
