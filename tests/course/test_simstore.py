"""course.simstore: the simulated GPU's memory, its allow-list and its counts."""

from __future__ import annotations

import numpy as np
import pytest

from course.fakecupy import DeviceArray, TransferCounter, fake_cupy
from course.simlink import LocalConnection, decode, encode
from course.simstore import FUNCTIONS, Store
from course.sync import SyncCounter


def _kernel_side(store: Store):
    """A connection that talks to ``store`` as a kernel does (no control)."""

    class Kernel(LocalConnection):
        def __init__(self) -> None:
            super().__init__()
            self.store = store

        def _exchange(self, message):
            return store.handle(message, control=False)

    return Kernel()


def test_handles_are_128_bit_random_ids():
    a, b = fake_cupy.zeros(3), fake_cupy.zeros(3)
    assert len(a._key) == 16 and a._key != b._key
    assert not hasattr(a, "_data")


def test_the_data_channel_cannot_read_place_or_total():
    store = Store()
    kernel = _kernel_side(store)
    node = kernel.request(["upload", "test", "here", encode(np.arange(3.0))])
    ref = decode(node, None)
    for message in (["fetch", ref.key], ["put", encode(np.ones(2))], ["totals"]):
        with pytest.raises(RuntimeError, match="the grader's"):
            kernel.request(message)
    assert store.counts["download"] == 0  # nothing was read


def test_copies_syncs_launches_and_bytes_are_counted_in_the_store():
    store = Store()
    kernel = _kernel_side(store)
    x = DeviceArray._from_ref(
        decode(kernel.request(["upload", "up", "", encode(np.arange(4.0))]), None),
        kernel,
    )
    y = (x * 2).sum()  # two launches
    assert float(y) == 12.0  # one download of 8 bytes, one sync
    counts = store.totals()["counts"]
    assert counts["upload"] == 1 and counts["upload_bytes"] == 32
    assert counts["launch"] == 2
    assert counts["download"] == 1 and counts["download_bytes"] == 8
    assert counts["sync"] == 1


@pytest.mark.parametrize(
    "data_dependent",
    [
        lambda d: fake_cupy.nonzero(d),
        lambda d: d[d > 1],
        lambda d: fake_cupy.unique(d),
    ],
)
def test_data_dependent_shapes_are_syncs(data_dependent):
    store = Store()
    kernel = _kernel_side(store)
    node = kernel.request(["upload", "up", "", encode(np.arange(4.0))])
    d = DeviceArray._from_ref(decode(node, None), kernel)
    data_dependent(d)
    assert store.counts["sync"] == 1 and store.counts["download"] == 0
    with SyncCounter() as syncs:  # the host waits to size the result
        data_dependent(fake_cupy.arange(4.0))
    assert syncs.count == 1 and "data-dependent size" in syncs.summary()


def test_an_error_is_a_sync_as_cuda_reports_it():
    d = fake_cupy.ones((2, 3))
    with SyncCounter() as syncs:
        with pytest.raises(ValueError):
            d @ fake_cupy.ones((2, 3))
    assert syncs.by_op() == {"error": 1}


@pytest.mark.parametrize("name", ["load", "fromfile", "frompyfunc", "memmap"])
def test_the_allow_list_refuses_files_and_callbacks(name):
    assert f"numpy.{name}" not in FUNCTIONS
    with pytest.raises(TypeError, match="does not run on the simulated GPU"):
        _kernel_side(Store()).request(["call", f"numpy.{name}", encode(()), {}])


def test_the_counters_keep_no_count_of_their_own():
    d = fake_cupy.arange(3.0)
    with SyncCounter() as syncs, TransferCounter() as copies:
        d.get()
        d.item(0)
    syncs.events.clear()
    copies.events.clear()
    assert syncs.count == 2 and copies.downloads == 2
