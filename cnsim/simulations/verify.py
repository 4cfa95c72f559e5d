"""``cnsim verify``: run the configured approaches against the brute-force oracle.

After every event it checks, per approach (seed 003 §III, §IV-B):

* ``lists``: every subscriber list equals the oracle's top-k;
* ``exact-notifies-affected-only``: an exact approach notifies no subscription
  whose top-k list did not change (membership or a member's y);
* ``sparse-same-notifications``: Paint-Sparse delivers the same (subscription,
  object, y) notifications as Paint-Dense, in the same order per subscription;
* ``sparse-no-empty-message`` and ``sparse-not-more-than-dense``;
* ``eps-theorem-7``: an ε variant delivers object o to subscription S only if o
  ranks in [k − ⌈εk⌉, k + ⌈εk⌉] in S before or after the event, or o is the
  updated object and ranks within k + ⌈εk⌉ (Theorem 7, with εk rounded up to the
  whole rectangles the variants group);
* ``eps-raising-messages``: a rank-raising update sends at most 1/ε messages.

The reference Paint-Dense runs for the comparisons even when not configured.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from cnsim.algorithms.registry import make_approach, parse_approach
from cnsim.brokers.ideal import Delivery
from cnsim.simulations.config import Scenario
from cnsim.simulations.oracle import ranks, true_top_k
from cnsim.simulations.runner import Outcome, Simulation

MAX_EXAMPLES = 5


@dataclass
class Report:
    """Outcome of a verification: failures by (approach, check), with examples."""

    events: int = 0
    approaches: list[str] = field(default_factory=list)
    failures: Counter = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when no check failed."""
        return not self.failures

    def fail(self, approach: str, check: str, event: int, detail: str) -> None:
        """Record one failed check."""
        if self.failures[(approach, check)] == 0 and len(self.examples) < 50:
            self.examples.append(f"{approach}: {check} failed at event {event}: {detail}")
        self.failures[(approach, check)] += 1

    def text(self) -> str:
        """A human-readable summary."""
        head = f"verified {len(self.approaches)} approaches over {self.events} events: "
        if self.ok:
            return head + "all checks passed (" + ", ".join(self.approaches) + ")"
        lines = [head + f"{sum(self.failures.values())} failed checks"]
        lines += [f"  {a}: {c}: {n} events" for (a, c), n in sorted(self.failures.items())]
        lines += ["first failures:"] + [f"  {x}" for x in self.examples]
        return "\n".join(lines)


def verify(scenario: Scenario, events: int | None = None) -> Report:
    """Run every check after every event of ``scenario``."""
    sim = Simulation(scenario, events)
    w = sim.workload
    report = Report(events=len(w.events), approaches=[a.name for a in sim.approaches])
    refs = _references(sim)
    truth = true_top_k(sim.objects.x, sim.objects.y, w.l, w.r, w.k)
    for e, outcomes in sim.steps():
        i, y_old, y_new = int(w.events.obj[e]), float(w.events.y_old[e]), float(w.events.y_new[e])
        old_y = sim.objects.y.copy()
        old_y[i] = y_old
        new_truth = true_top_k(sim.objects.x, sim.objects.y, w.l, w.r, w.k)
        affected = ((new_truth[0] != truth[0]) | (new_truth[1] != truth[1])).any(axis=1)
        ref_out = {name: sim.cn.deliver(a.messages(i, y_old, y_new)) for name, a in refs.items()}
        for a in sim.approaches:
            o = outcomes[a.name]
            _check_lists(report, sim, a.name, e, new_truth)
            if a.exact:
                _check_exact(report, a.name, e, o.delivery, affected)
            if isinstance(a.eps, float):
                _check_eps(report, sim, a, e, o, (i, y_old, y_new), old_y)
            if a.name.startswith("paint-sparse"):
                _check_sparse(report, a, e, o, ref_out[_dense_name(a)], refs[_dense_name(a)])
        truth = new_truth
    return report


def _dense_name(approach) -> str:
    return approach.name.replace("paint-sparse", "paint-dense")


def _references(sim: Simulation) -> dict:
    """A Paint-Dense with the same ε for every Paint-Sparse, run without lists."""
    refs = {}
    for a in sim.approaches:
        family, _ = parse_approach(a.name)
        if family == "paint-sparse":
            name = _dense_name(a)
            refs[name] = make_approach(name, sim.objects, sim.subscriptions, sim.workload.k)
    return refs


def _check_lists(report: Report, sim: Simulation, name: str, e: int, truth) -> None:
    lists = sim.lists[name]
    bad = np.flatnonzero(((lists.ids != truth[0]) | (lists.ys != truth[1])).any(axis=1))
    if len(bad):
        j = bad[0]
        report.fail(
            name,
            "lists",
            e,
            f"{len(bad)} subscriptions differ from the oracle, e.g. #{j} "
            f"[{sim.workload.l[j]:.6g}, {sim.workload.r[j]:.6g}] holds {lists.ids[j].tolist()} "
            f"but the top-k is {truth[0][j].tolist()}",
        )


def _check_exact(report: Report, name: str, e: int, delivery: Delivery, affected) -> None:
    extra = np.setdiff1d(delivery.subs, np.flatnonzero(affected))
    if len(extra):
        report.fail(
            name,
            "exact-notifies-affected-only",
            e,
            f"{len(extra)} unaffected subscriptions notified, e.g. #{extra[0]}",
        )


def _per_subscription(d: Delivery) -> np.ndarray:
    order = np.argsort(d.subs, kind="stable")
    return np.stack([d.subs[order].astype(float), d.obj[order].astype(float), d.y[order]])


def _check_sparse(report: Report, a, e: int, o: Outcome, ref: Delivery, dense) -> None:
    reached = o.delivery.per_message()
    if (reached == 0).any():
        report.fail(a.name, "sparse-no-empty-message", e, f"{(reached == 0).sum()} empty messages")
    if len(o.messages) > len(ref.offsets) - 1:
        report.fail(
            a.name,
            "sparse-not-more-than-dense",
            e,
            f"{len(o.messages)} messages against {dense.name}'s {len(ref.offsets) - 1}",
        )
    if a.exact:
        mine, theirs = _per_subscription(o.delivery), _per_subscription(ref)
        if mine.shape != theirs.shape or not np.array_equal(mine, theirs):
            report.fail(
                a.name,
                "sparse-same-notifications",
                e,
                f"{mine.shape[1]} notifications against paint-dense's {theirs.shape[1]}",
            )


def _check_eps(report: Report, sim: Simulation, a, e: int, o: Outcome, event, old_y) -> None:
    i, y_old, y_new = event
    k, eps = sim.workload.k, a.eps
    if y_new < y_old and len(o.messages) > math.floor(1 / eps):
        report.fail(a.name, "eps-raising-messages", e, f"{len(o.messages)} messages > 1/ε")
    d = o.delivery
    if not len(d):
        return
    w, x = sim.workload, sim.objects.x
    after = ranks(x, sim.objects.y, w.l, w.r, d.subs, d.obj)
    before = ranks(x, old_y, w.l, w.r, d.subs, d.obj)
    # The ε variants group ⌈εk⌉ whole rectangles, so εk counts as ⌈εk⌉ here.
    lo, hi = k - math.ceil(eps * k), k + math.ceil(eps * k)
    near_k = ((lo <= after) & (after <= hi)) | ((lo <= before) & (before <= hi))
    changed = (d.obj == i) & (np.minimum(before, after) <= hi)
    bad = np.flatnonzero(~(near_k | changed))
    if len(bad):
        t = bad[0]
        report.fail(
            a.name,
            "eps-theorem-7",
            e,
            f"object {d.obj[t]} sent to #{d.subs[t]} ranks {before[t]} before, {after[t]} after",
        )
