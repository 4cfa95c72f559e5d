"""Seed 003's printed figures the fidelity benchmark is set against (m = 2,000,000,
k = 1, 2, 5, 10, 15, 20; Tables I-III) and the sizes they were printed at."""

from __future__ import annotations

KS = [1, 2, 5, 10, 15, 20]
M = 2_000_000
N_OBJECTS = 10_000
PAPER = {
    "messages_received": [444.141, 939.76, 2211.14, 4190.21, 6082.94, 7904.26],  # Table I
    "redundancy_paint_sparse_1": [0, 0.16, 0.29, 0.30, 0.32, 0.34],  # Table II
    "redundancy_cn_relax": [1440.2, 680.14, 288.49, 151.76, 104.23, 79.98],  # Table II
    "paint_dense_min_y": [1.12, 1.73, 3.57, 6.60, 9.63, 12.63],  # Table III
    "paint_sparse_min_y": [0.72744, 1.08988, 2.59596, 5.5568, 8.57692, 11.58048],
    "paint_sparse_snap": [1.2284, 2.95254, 12.06538, 40.69192, 84.65234, 143.20416],
    "unicast_min_y": [444.141, 1086.44, 2846.1, 5453.64, 8032.39, 10587.4],
}
