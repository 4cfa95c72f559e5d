"""``delivered_updated_msgs`` counts the deliveries carrying one of the batch's updated
objects; it reads the deliveries in chunks (``metrics._CHUNK``), so that a batch of
hundreds of millions of deliveries needs no mask as long as itself: the count must not
depend on the chunking."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from cnsim.simulations import metrics


@settings(max_examples=60, deadline=None)
@given(
    obj=st.lists(st.integers(0, 30), max_size=60),
    updated=st.lists(st.integers(0, 30), max_size=5, unique=True),
    chunk=st.integers(1, 70),
)
def test_the_count_is_the_brute_force_one_whatever_the_chunks(obj, updated, chunk):
    o = SimpleNamespace(delivery=SimpleNamespace(obj=np.array(obj, np.int64)),
                        updated=np.array(updated, np.int64))  # fmt: skip
    want = sum(x in set(updated) for x in obj)
    old = metrics._CHUNK
    try:
        metrics._CHUNK = chunk
        assert metrics._updated(o) == want
    finally:
        metrics._CHUNK = old
    assert metrics._updated(o) == want
