"""``cnsim bench redundancy``: where Paint-Sparse(ε)'s redundancy comes from, beside
seed 003's Table II.

Redundancy is ``N / N̂ − 1`` (§V): messages received by subscriptions under the
approximate approach over those under an exact one, each summed over the workload.
Paint-*(ε) (§IV-B) cover each run of ⌈εk⌉ adjacent rectangles of a region by its minimum
enclosing box (MEB); Paint-Sparse(ε) then snaps and merges as Paint-Sparse does. A region
is of one of three kinds:

* ``raising``: the staircase IR_new(i) of a rank-raising update (Figure 10(a));
* ``lowering``: the staircase IR_old(i), sent with i's new value on a rank-lowering update;
* ``exposed``: an exposed object's gain, a diagonal chain (Lemma 3, Figure 10(b)).

**Dense limit.** Where every rectangle holds subscriptions in proportion to its
probability mass — as in the rare, heavy events that set the mean at m = 2,000,000 —
Paint-Sparse(ε)'s deliveries are Paint-Dense(ε)'s, and the redundancy is the mass of the
MEBs over the mass of the exact regions (:func:`cnsim.subscriptions.generators.readings.mass`,
subscriptions uniform in S). No subscription is drawn, so long event streams are cheap,
and the excess splits by region kind. With n objects' gaps i.i.d., a staircase of k strips
grouped by g has expected excess ``(g − 1) / (k + 1)`` of its mass, and a diagonal chain
about ``g − 1``.

Readings compared with Table II: all regions coarsened (the paper's §IV-B, cnsim's
Paint-Sparse(ε)); only the two staircases; only IR_new of rank-raising updates; and the
mean over events of the per-event redundancy instead of the ratio of sums (CN-Relax's
Table II values fit the ratio of sums exactly: 640,090 / Table I − 1 at every k). cnsim
coarsens the *snapped* rectangles (MEBs of what snap returns); the literal reading, the MEB
of the raw rectangles then snapped, contains it, so it can only add redundancy.

**Check.** One real run at m = 2,000,000 (drawn subscriptions, Paint-Sparse exact and
Paint-Sparse(ε) counted by reporting their messages) on the first events of the same
stream, beside the dense limit on those events.
"""

from __future__ import annotations

import time

import numpy as np

from cnsim.algorithms import regions
from cnsim.algorithms.paint_dense import PaintDense
from cnsim.algorithms.paint_sparse import PaintSparse
from cnsim.bench import provenance
from cnsim.bench.fidelity.paper import KS, M
from cnsim.bench.fidelity.streams import workload
from cnsim.server.object_index import ObjectIndex
from cnsim.simulations.seeds import Seeds
from cnsim.subscriptions.generators.readings import mass
from cnsim.subscriptions.index import SubscriptionIndex
from cnsim.subscriptions.workload import generate_subscriptions

# -- Table II: where Paint-Sparse(ε)'s redundancy comes from ----------------------------------
# Paint-*(ε) cover each run of ⌈εk⌉ adjacent rectangles of a region by its MEB (§IV-B). A
# region is one of three kinds: the staircase IR_new(i) of a rank-raising update, the
# staircase IR_old(i) sent with i's new value on a rank-lowering one, or an exposed object's
# gain, a diagonal chain (Lemma 3). In the dense limit (every rectangle holds subscriptions in
# proportion to its mass, as the heavy events that set the mean do at m = 2,000,000) the
# redundancy of Paint-Sparse(ε) is that of Paint-Dense(ε): the mass of the MEBs over the mass
# of the exact regions. Split by kind, it shows which part of the algorithm makes it.

EPS = (0.125, 0.25, 0.5, 1.0)  # Table II's ε
EPS_PAPER = {  # Table II, k = 1, 2, 5, 10, 15, 20
    0.125: [0, 0, 0, 0.015, 0.0234, 0.034],
    0.25: [0, 0, 0.027, 0.061, 0.070, 0.080],
    0.5: [0, 0, 0.11, 0.14, 0.16, 0.17],
    1.0: [0, 0.16, 0.29, 0.30, 0.32, 0.34],
}
REGION_KINDS = ("raising", "lowering", "exposed")


class _RegionsByKind(PaintDense):
    """Paint-Dense remembering every region it sends, with its kind and event."""

    def __init__(self, objects: ObjectIndex, k: int):
        super().__init__(objects, k)
        self.sent: list[tuple[int, int, list]] = []  # (event, kind, rectangles)
        self.event = -1

    def notify(self, out, i, x_i, y_old, y_new) -> None:
        self.event += 1
        self._kind = 0 if y_new < y_old else 1
        super().notify(out, i, x_i, y_old, y_new)

    def emit(self, out, rects, obj, x, y) -> None:
        self.sent.append((self.event, self._kind, rects))
        self._kind = 2  # after IR_old(i), every region of the update is an exposed gain
        out.send(rects, obj, x, y)


def eps_masses(k: int, x, y, ev, eps=EPS, reading: str = "triangle") -> dict[str, np.ndarray]:
    """Per event and region kind: the mass of Paint-Dense's exact regions (``exact``, shape
    (events, 3)) and of their ε-coarsening for each ε (``coarse``, (len(eps), events, 3)),
    and the number of messages (rectangles) of each (``exact_msgs``, ``coarse_msgs``)."""
    dense = _RegionsByKind(ObjectIndex(x, y), k)
    for e in range(len(ev)):
        dense.process(ev.updates(e, e + 1))
    n = len(ev)
    out = {
        "exact": np.zeros((n, 3)),
        "coarse": np.zeros((len(eps), n, 3)),
        "exact_msgs": np.zeros((n, 3), np.int64),
        "coarse_msgs": np.zeros((len(eps), n, 3), np.int64),
    }
    if not dense.sent:
        return out
    where = np.array([(e, kind) for e, kind, _ in dense.sent])

    def add(masses, msgs, per_region: list) -> None:
        counts = [len(r) for r in per_region]
        at = (np.repeat(where[:, 0], counts), np.repeat(where[:, 1], counts))
        flat = np.array([q for r in per_region for q in r], np.float64).reshape(-1, 4)
        np.add.at(masses, at, mass(flat, reading))
        np.add.at(msgs, (where[:, 0], where[:, 1]), counts)

    add(out["exact"], out["exact_msgs"], [r for _, _, r in dense.sent])
    for j, value in enumerate(eps):
        boxes = [regions.coarsen(r, value, k) for _, _, r in dense.sent]
        add(out["coarse"][j], out["coarse_msgs"][j], boxes)
    return out


def eps_table(seeds: list[int], n_events: int, ks=KS, initial: str = "stationary") -> dict:
    """Per k and ε: Paint-Dense(ε)'s redundancy in the dense limit (ratio of means over
    the pooled events, and per seed), the part of it each region kind makes, the
    redundancy if only the two staircases were coarsened, and the mean of per-event
    redundancies; beside Table II."""
    out = {}
    for k in ks:
        runs = [eps_masses(k, *workload(seed, n_events, "uniform", initial)) for seed in seeds]
        exact = np.concatenate([r["exact"] for r in runs])  # (events, 3)
        coarse = np.concatenate([r["coarse"] for r in runs], axis=1)  # (eps, events, 3)
        exact_msgs = np.concatenate([r["exact_msgs"] for r in runs])
        coarse_msgs = np.concatenate([r["coarse_msgs"] for r in runs], axis=1)
        total = exact.sum()
        row = {
            "exact_share": {
                kind: float(exact[:, c].sum() / total) for c, kind in enumerate(REGION_KINDS)
            },
            "messages_per_event": float(exact_msgs.sum() / len(exact_msgs)),
            "message_share": {
                kind: float(exact_msgs[:, c].sum() / exact_msgs.sum())
                for c, kind in enumerate(REGION_KINDS)
            },
        }
        for j, value in enumerate(EPS):
            excess = coarse[j].sum(axis=0) - exact.sum(axis=0)  # by kind
            per_event_exact = exact.sum(axis=1)
            hit = per_event_exact > 0
            row[str(value)] = {
                "redundancy": float(excess.sum() / total),
                "per_seed": [
                    float(r["coarse"][j].sum() / r["exact"].sum() - 1) if r["exact"].sum() else 0.0
                    for r in runs
                ],
                "by_kind": {kind: float(excess[c] / total) for c, kind in enumerate(REGION_KINDS)},
                "staircases_only": float(excess[:2].sum() / total),
                "mean_of_ratios": float(
                    np.mean(coarse[j].sum(axis=1)[hit] / per_event_exact[hit] - 1)
                    if hit.any()
                    else 0.0
                ),
                "paper": EPS_PAPER[value][KS.index(k)],
                # Paint-Dense(ε)'s messages per event against Paint-Dense's, both readings
                "messages_over_exact": float(coarse_msgs[j].sum() / exact_msgs.sum()),
                "messages_over_exact_staircases_only": float(
                    (coarse_msgs[j][:, :2].sum() + exact_msgs[:, 2].sum()) / exact_msgs.sum()
                ),
            }
        out[k] = row
    return out


def drawn_check(seed: int, n_events: int, m: int, k: int) -> dict:
    """Paint-Sparse(ε)'s real redundancy over ``m`` drawn subscriptions on the first
    ``n_events`` events of ``seed``'s stream, beside the dense limit on the same events."""
    x, y, ev = workload(seed, n_events, "uniform", "stationary")
    l, r = generate_subscriptions(Seeds(seed).rng("subscriptions"), m, "uniform")
    index = SubscriptionIndex(l, r)
    exact = PaintSparse(ObjectIndex(x, y), index, k)
    approx = {value: PaintSparse(ObjectIndex(x, y), index, k, value) for value in EPS}
    received = {None: 0, **{value: 0 for value in EPS}}
    for e in range(n_events):
        u = ev.updates(e, e + 1)
        for value, approach in ((None, exact), *approx.items()):
            msgs = approach.process(u)
            received[value] += int(index.report(msgs.rects)[0][-1]) if len(msgs) else 0
    dense = eps_masses(k, x, y, ev)
    total = dense["exact"].sum()
    return {
        str(value): {
            "drawn": received[value] / received[None] - 1 if received[None] else 0.0,
            "dense_limit": float(dense["coarse"][j].sum() / total - 1) if total else 0.0,
        }
        for j, value in enumerate(EPS)
    } | {"received_per_event": received[None] / n_events}


def run_bench(quick: bool = False, full: bool = False) -> dict:
    """The dense-limit table over long streams and the drawn check; ``quick`` shrinks both."""
    started = time.perf_counter()
    if quick:
        seeds, n_events, ks, check = [1], 300, [2, 10], (1, 100, 100_000, 10)
    else:
        seeds, n_events, ks, check = [1, 2], 10_000, KS, (1, 1_000, M, 10)
    table = eps_table(seeds, n_events, ks)
    seed, n_check, m_check, k_check = check
    return {
        **provenance("redundancy", quick, full),
        "seeds": seeds,
        "events": n_events,
        "ks": ks,
        "eps": list(EPS),
        "table": table,
        "check": {
            "seed": seed,
            "events": n_check,
            "m": m_check,
            "k": k_check,
            **drawn_check(seed, n_check, m_check, k_check),
        },
        "headline": {
            f"k={k}": {
                f"eps={value}": f"{row[str(value)]['redundancy']:.3f}"
                f" (paper {row[str(value)]['paper']})"
                for value in EPS
            }
            for k, row in table.items()
        },
        "wall_s": time.perf_counter() - started,
    }

