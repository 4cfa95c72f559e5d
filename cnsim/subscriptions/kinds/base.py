"""The interface every subscription kind provides (seed 003 §II-A, §IV-C, appendix D).

A subscription kind says what a subscription is, in two views:

* **a point of the subscription space S** in D dimensions, where the CN routes and
  delivers: a 1-d range ``[l, r]`` is the point ``(l, r)`` (D = 2), a 1.5-d range
  ``[l1, r1] × (−∞, r2]`` the point ``(l1, r1, r2)`` (D = 3), a box over d attributes
  the point ``(l_1, r_1, …, l_d, r_d)`` (D = 2d). Each dimension is a subscription's
  *lower* bound (a message holds ``lO < p <= lI`` there: :attr:`lower_open`) or an
  upper one (``rI <= p < rO``); the (lower, upper) pairs that always satisfy lower <=
  upper are :attr:`ordered` (joining brokers draw their points there).
* **a box over the objects' attributes** A, in a dimensions, where the oracle decides
  what matches: object ``o`` is inside subscription ``j`` iff
  ``lo[j] <= point[o] <= hi[j]`` in every attribute (:meth:`bounds`,
  :meth:`object_points`). 1-d: ``[l, r]`` over x; 1.5-d: ``[l1, r1] × [−inf, r2]``
  over (x1, x2); a box: its sides over (x_1, …, x_d). One brute-force oracle over these
  boxes serves every kind.

A subclass declares its ``name`` (``[subscriptions] kind``), a ``label`` for messages,
the scenario keys only it reads (``owns``) and what it does not support
(``restrictions``), and provides the methods marked abstract: drawing its part of the
workload (the attributes beyond x from :func:`attributes`), its index, its boxes over
the attributes (which give the subscribers' initial lists and the oracle's truth), and
its region messages' size.
Which approaches it supports is declared in the approach registry, keyed by
(family, kind) (:mod:`cnsim.algorithms.registry`). Everything else — zones, gateways,
routing, verify, the drivers — reads these declarations and never asks which kind it
holds.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

import numpy as np

from cnsim.subscriptions.lists import TopKLists

if TYPE_CHECKING:
    from cnsim.subscriptions.lists import Layout
    from cnsim.subscriptions.workload import Events


class Streams(Protocol):
    """The run's named random streams (``cnsim.simulations.seeds.Seeds``)."""

    def rng(self, name: str) -> np.random.Generator: ...


def attributes(rng: np.random.Generator, x: np.ndarray, events: Events, a: int) -> np.ndarray:
    """The (ids, 1 + a) attributes of every id the run uses (the initial objects, then
    the ids inserts and moves create, in id order): its x (a new id's from its event),
    then a uniform draws in [0, 1) from ``rng``, one row per id in id order, so that a
    row depends on the seed and the id only and x and y stay those of the 1-d run."""
    n = len(x)
    ids = max(n, int(events.obj.max()) + 1 if len(events.obj) else 0)
    out = np.full((ids, 1 + a), np.nan)
    out[:n, 0] = x
    created = events.obj >= n
    out[events.obj[created], 0] = events.x[created]
    assert not np.isnan(out[:, 0]).any()  # events create ids in order, each with its x
    out[:, 1:] = rng.random((ids, a))
    return out


DEFAULT = ("<the key's default>",)  # Restriction.allowed: the key's default value only


@dataclass(frozen=True)
class Restriction:
    """A scenario key a kind allows only some values of: ``key`` (``section.key``)
    must be one of ``allowed`` (:data:`DEFAULT`: its default); ``problem`` says why,
    ``shown`` what is allowed (in words, e.g. "'random'" or "no events.trace")."""

    key: str
    allowed: tuple
    problem: str
    shown: str


class SubscriptionKind(ABC):
    """What one kind of subscription is; built from the scenario's ``[subscriptions]``
    section (:func:`cnsim.subscriptions.kinds.kind_of`)."""

    name: ClassVar[str]  # [subscriptions] kind
    label: ClassVar[str]  # in messages: "1.5-d" in "has no 1.5-d version"
    # scenario keys ("section.key") only this kind reads: at their default otherwise
    owns: ClassVar[tuple[str, ...]] = ()
    # scenario keys this kind allows only some values of
    restrictions: ClassVar[tuple[Restriction, ...]] = ()
    # whether an exact approach's region messages about one object are disjoint, so that
    # no subscription hears of one object twice in an event (verify checks it)
    one_message_per_object: ClassVar[bool] = False
    # the workload fields holding one row per subscription (joining subscriptions are
    # appended to them: cnsim/subscriptions/churn.py)
    subscription_fields: ClassVar[tuple[str, ...]] = ("l", "r")

    def __init__(self, section: Mapping[str, Any]):
        self.section = section

    @property
    @abstractmethod
    def lower_open(self) -> tuple[bool, ...]:
        """Per dimension of S: whether it is a lower bound (``lO < p <= lI``)."""

    @property
    @abstractmethod
    def ordered(self) -> tuple[tuple[int, int], ...]:
        """The (lower, upper) dimension pairs of S with lower <= upper."""

    @property
    def space_dims(self) -> int:
        """D, the dimensions of the subscription space S."""
        return len(self.lower_open)

    @abstractmethod
    def draw(self, streams: Streams, x: np.ndarray, events: Events) -> dict[str, np.ndarray]:
        """The kind's part of the workload, as :class:`cnsim.simulations.world.Workload`
        fields: the subscriptions (``l``, ``r`` and what else the kind has) and the
        objects' attributes beyond x, for the initial objects ``x`` and every id the
        ``events`` create. Each part comes from a named stream of its own."""

    @abstractmethod
    def index(self, w) -> Any:
        """The index over the subscriptions' points of S that the networks deliver from
        (``report``, ``report_positions``, ``snap``, ``points``, ``order``)."""

    @abstractmethod
    def space_points(self, w) -> np.ndarray:
        """Every subscription's point of S, (m, D), as :meth:`index` holds them (where a
        partitioned run's plan finds each one's gateway zone without building the
        index)."""

    def initial_lists(self, w, layout: Layout | None, max_id: int) -> TopKLists:
        """Every subscriber's true initial top-k, stored in ``layout``: the top k of the
        initial objects inside its box (:meth:`TopKLists.initial`)."""
        lo, hi = self.bounds(w)
        return TopKLists.initial(self.object_points(w, w.x), w.y, lo, hi, w.k, layout, max_id)

    @abstractmethod
    def bounds(self, w) -> tuple[np.ndarray, np.ndarray]:
        """Every subscription as a closed box over the objects' attributes: ``(lo,
        hi)``, each (m, a)."""

    @abstractmethod
    def object_points(self, w, x: np.ndarray) -> np.ndarray:
        """The (n, a) attributes of every object id, given every id's current x."""

    @abstractmethod
    def region_bytes(self, w, sizes: Mapping[str, int]) -> int:
        """Bytes of one region message (``sizes``: the ``[messages]`` section)."""

    def server_view(self, w, algorithm: Mapping[str, Any]) -> dict[str, Any]:
        """What the kind's approaches read beyond the objects and subscriptions, as
        :class:`cnsim.algorithms.base.ServerView` fields (``algorithm``: the
        ``[algorithm]`` section)."""
        return {}

    def describe(self, w, j: int) -> str:
        """Subscription ``j`` in words, e.g. ``[0.1, 0.4]`` (one side per attribute)."""
        lo, hi = self.bounds(w)
        return " x ".join(f"[{a:.6g}, {b:.6g}]" for a, b in zip(lo[j], hi[j], strict=True))
