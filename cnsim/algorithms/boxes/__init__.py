"""d-dimensional box subscriptions (seed 003 §IV-C, Theorem 8): Paint-Dense and
Paint-Sparse. The paper only sketches this case; the design below is ours, and
its exactness is checked by the one brute-force oracle (:mod:`cnsim.simulations.oracle`:
``cnsim verify``, and ``tests/algorithms/paint_oracle.py``).

Notation. Object i is ``(x_i, y_i)`` with ``x_i = (x_i1..x_id)``; subscription j is
the box ``σ_j = [l_j1, r_j1] × … × [l_jd, r_jd]`` and keeps the k objects of σ_j
with the smallest (y, id). S = R^{2d}: σ_j is the point ``(l_1, r_1, …, l_d, r_d)``
and object i the orthant θ_i = {l_t <= x_it <= r_t for all t}. A message is a box
of S (per dimension ``(lO, lI, rI, rO)``: ``lO < l_t <= lI``, ``rI <= r_t < rO``) with
the object's ``(x, y)``; subscribers apply §II-A's rule (if the list holds the
object, update its y — ``inf`` removes it — else keep the top k of list ∪ {it}).

Influence region. At sweep height z (objects *active*: below ``(z, i)`` in (y, id)),
i is in σ's top k iff σ ∈ θ_i and σ holds fewer than k active objects:
IR_z(i) = {σ ∈ θ_i : N(σ) < k}. σ ∈ θ_i holds active object o iff σ ⊇ MEB(x_i, x_o),
so on the rank grid of :mod:`.regions` (cuts at the objects' coordinates on each
side of x_i) N is the dominance count ``#{o : ρ_o <= c}``, constant per cell: IR is
a union of cells, down-closed in the grid order.

Lemma A (only the k-skyband matters). Let U = the objects dominated (``x_o' ∈
MEB(x_i, x_o)``, equal positions by id) by fewer than k active objects (the proof
of Theorem 8's U(i)), and P any set with U ⊆ P ⊆ active. Then for every cell,
``N_P(c) = N(c)`` when ``N(c) <= k - 1`` and ``N_P(c) >= k`` otherwise. Proof: the
first k active objects under c in a linear extension of dominance each have fewer
than k dominators (all under c, before them), so lie in U; and when N(c) <= k - 1
every active object under c has at most N(c) − 1 dominators, so lies in U.

Rank-raising ``y_old -> y_new < y_old`` (an insert: from inf). Every σ whose top-k
changes holds i afterwards (others' lists are unchanged since i only rose and is
not in them): exactly IR_{y_new}(i). Each gets (i, y_new): if it held i, the y is
updated; otherwise i enters and the k-th drops — the true new list. Nobody else is
notified, so the approach is exact. P = U at (y_new, i): ``skyband``.

Rank-lowering ``y_old -> y_new > y_old`` (a delete: to inf). Only σ ∈ IR_{y_old}(i)
change (i left or moved within them). All get (i, y_new) first. Sweep i up through
the objects h strictly between ``(y_old, i)`` and ``(y_new, i)`` in (y, id) order;
when it passes h, the cells with ``c >= ρ_h`` and ``N(c) = k − 1`` (N before h) are
exactly the σ ∈ θ_h whose top k was {k − 1 active} ∪ {i} and becomes those ∪ {h}:
σ loses i for h (h is σ's lowest object above the sweep, since each earlier
object would already have pushed i out). Each σ ∈ IR_old \\ IR_new is in exactly one
such gain (the h at which its count reaches k) and σ ∈ IR_new in none; σ's list
holds i at y_new (the largest value in it, as y_new > y_h) and gets h: the top k of
list ∪ {h} drops i. So every list is exact and only affected subscriptions hear.
h can change anything only if its cell ``ρ_h`` has ``N < k`` ("exposed", tested
by ``first_exposed``); else it is dominated by k active objects forever and is
skipped. After h, P becomes the skyband of P ∪ {h} (Lemma A keeps it valid).

Messages. Each region is a cell set ``lo <= N(c) <= hi`` (IR: ``0..k−1``; a gain:
``k−1..k−1`` from corner ρ_h), partitioned into disjoint boxes by slabs axis by
axis with Algorithm 10's Merge (:func:`.regions.partition`): disjoint, so nobody
hears of one object twice. For d = 1 it is exactly Algorithms 4 and 5 (tested
against :mod:`cnsim.algorithms.paint_dense` message for message). Within a slab,
points dominated by more than ``hi`` others on the remaining axes are dropped and
identical sub-problems are reused (Lemma A again, with k = hi + 1).

Paint-Sparse prunes every slab whose box of S holds no subscription (one counted
``snap`` per distinct box), skips a region whose whole box holds none, shrinks each
box to the closed box of its subscriptions and merges a box into the previous one
when their MEB holds exactly the subscriptions of the two; every message reaches
somebody and the same (subscription, object, y) deliveries happen as with
Paint-Dense. Its sweep examines only the objects inside B = [L*, R*], the bounding
box in R^d of the subscriptions of IR_old(i) (the analogue of 1-d Paint-Sparse's
``[l*, r*]``); an object outside B is held by no subscription that still holds i, so
its gain reaches nobody, and leaving it out of P changes the count of no subscription
that can still be notified (proof in :class:`.paint.PaintSparseBoxes`).

Theorem 8 (bench ``cnsim bench boxes``): Paint-Dense sends
``O((k ln^{d−1} n)^{d+1})`` expected messages per update; the regions are built
from ``z = Θ(k ln^{d−1} n/(d−1)!)`` skyband objects and partitions grow like z^d,
so Paint-Dense has a ``budget`` (slabs per event, over all its partitions) past
which an event is censored. Modules: :mod:`.regions`, :mod:`.paint`,
:mod:`._partition_nb` (the partition as a numba kernel; same boxes as the Python
reference); indexes
:mod:`cnsim.server.object_index_d`, :mod:`cnsim.subscriptions.space_boxes`.
"""
