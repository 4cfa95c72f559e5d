"""1.5-dimensional range top-k subscriptions (seed 003 appendix D).

Model and notation. Object i is a point ``(x_i^(1), x_i^(2), y_i)`` of E = R³
(``a_i, b_i, y_i`` in code). Subscription ``S_j = [l_j^(1), r_j^(1)] × (−∞, r_j^(2)]``
wants the k objects with the smallest y (ties by id) among those with
``l1 <= x1 <= r1`` and ``x2 <= r2``. S is 3-d: ``S_j`` is the point
``(l1, r1, r2)`` and object i the orthant with apex ``(x_i^(1), x_i^(1), x_i^(2))``
(``l1 <= a_i <= r1``, ``r2 >= b_i``). A message is a 3-d box of S,
``(lO, lI, rI, rO, vI, vO)`` reaching ``lO < l1 <= lI``, ``rI <= r1 < rO``,
``vI <= r2 < vO``, with the object's ``(x1, x2, y)``; subscribers apply the rule of
§II-A (update the object if held, else keep the top k of the list and it), so
:class:`cnsim.subscriptions.lists.TopKLists` serves unchanged.

How the garbled Algorithms 6–11 were rebuilt. The text of appendix D states the
geometry; the pseudo-code in our copy is partly unreadable, so the algorithms
here are derived from that geometry and checked against the brute-force oracle
(:mod:`cnsim.simulations.oracle` through ``tests/algorithms/paint_oracle.py`` in
``tests/algorithms/test_range15d.py``, and ``cnsim verify``):

* For a fixed r2 = v the subscriptions see only objects with ``x2 <= v``: the
  problem is the 1-d one over those objects, so IR(i) restricted to r2 = v is the
  1-d staircase (Lemma 2) of the *active* objects (below i) with ``x2 <= v``. It
  changes only when v passes the x2 of an active object inside the current
  influence interval, so the r2-axis splits into slabs (the "discretised x2
  intervals" of D-A) and IR(i) is the union of staircase × slab: a rectilinear
  polyhedron (Figure 22). Slab 0 starts at ``b_i`` (``first_k`` over the orthant
  ``x2 <= b_i``), each next slab at the next active object met by ``min_x2``
  (Algorithm 7, UpdateList = Algorithm 6).
* Messages of one slab are the 1-d rectangles with the extra side ``[u_t, u_{t+1})``
  (Algorithm 8/9); a rectangle repeated by consecutive slabs is one box (Algorithm
  10, Merge: "compatible" means ``MEB(Msg, Msg') = Msg ∪ Msg'``).
* Rank-lowering (Algorithm 11): the next exposed object is the lowest one above
  the sweep in the influence rectilinear polygon, found by one ``min_y`` per
  polygon rectangle, answers kept until their rectangle loses them; it joins the
  slabs from its own x2 upward while it lies inside their influence intervals, and
  gains in each the 1-d staircase difference (Lemma 3). Ties (equal x1, x2 or y,
  which the paper rules out) are handled: y by id, x2 by id in the sweep order,
  objects at ``x1 == a_i`` as met first going west.

Modules: :mod:`.regions` (staircases, differences, stacking slabs into boxes) and
:mod:`.paint` (Paint-Dense, Paint-Sparse); the object index is
:mod:`cnsim.server.object_index_2d`, the subscription index
:mod:`cnsim.subscriptions.index`.
"""
