"""Seeded workload generators of the evaluations that the benchmarks, the tests and the
checks share: seed 003 appendix D's 1.5-d datasets and its event rule
(:mod:`.datasets_15d`), d-dimensional box workloads (:mod:`.boxes`), and the readings of
"uniform in S" with the probability mass of a rectangle under each (:mod:`.readings`);
:mod:`.checks` holds the argument checks they share with the Boolean-expression indexes.
The scenario's own generators are :mod:`cnsim.subscriptions.workload` and its
siblings."""
