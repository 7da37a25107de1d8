"""The referee's SyncCounter reads the kernel's counter through the link."""

from __future__ import annotations

import importlib

import pytest
import torch

from autograder.grading.referee import pins
from autograder.grading.referee.counters import SyncCounter


@pytest.fixture(autouse=True)
def _pinned_before_the_answer():
    """Pin as a kernel does before its first cell: whichever test this worker
    ran first, the course is noted before an answer assigns anything."""
    pins.pin()


class _LocalLink:
    """A link whose 'kernel' is this process: each call done here, as the
    agent does it (the course's names put back first)."""

    store = None

    def call(self, what, *args):
        pins.restore()
        if what == "import":
            return importlib.import_module(args[0])
        if what == "getattr":
            return getattr(args[0], args[1])
        if what == "call":
            function, positional, keywords = args
            return function(*positional, **keywords)
        return pins.OPS[what](*args)

    def materialize(self, value):
        return value


def test_the_timeline_comes_back_in_order_as_plain_triples():
    device = torch.device("cpu")  # the GPU, when simulated
    counter = SyncCounter(_LocalLink(), None, simulate=True)
    with counter:
        batch = torch.ones(3).to(device, non_blocking=True)
        batch.sum().item()
    assert [(kind, op) for kind, op, _ in counter.timeline] == [
        ("upload", "Tensor.to(device, non_blocking=True)"),
        ("sync", "Tensor.item"),
    ]
    assert counter.count == 1
    assert all(isinstance(part, str) for entry in counter.timeline for part in entry)


def test_a_counter_class_assigned_by_the_answer_changes_nothing_read():
    """``course.sync.SyncCounter = Quiet``: the referee's counter is of the class
    bound before, and reads the record, not a property the answer wrote."""
    import course.sync

    real = course.sync.SyncCounter

    class Quiet(real):
        torch_events = property(lambda self: [])
        timeline = property(lambda self: [])

    course.sync.SyncCounter = Quiet
    try:
        counter = SyncCounter(_LocalLink(), None, simulate=True)
        assert course.sync.SyncCounter is real  # put back at the first request
        course.sync.SyncCounter = Quiet
        on_device = torch.ones(3)  # made before the block: on the simulated GPU
        with counter:
            on_device.sum().item()
        assert counter.count == 1 and counter.torch_events[0][0] == "Tensor.item"
    finally:
        course.sync.SyncCounter = real


def test_a_trace_class_assigned_by_the_answer_changes_nothing_read():
    import course.gpumodel.tracing as tracing
    from autograder.grading.referee.counters import trace_for

    real = tracing.Trace

    class Fake(real):
        launches = property(lambda self: 0)

    on_device = torch.ones(4)

    def step():
        tracing.Trace = Fake  # inside the traced call, too
        on_device.mul(2).sum().item()

    try:
        run = trace_for(_LocalLink())(step)
    finally:
        tracing.Trace = real
    assert type(run) is real and run.launches == 2 and run.syncs == 1


def test_a_counting_method_replaced_in_a_cell_is_put_back_before_the_test():
    """``SyncCounter._record = ...`` in an answer cell: undone at the test's
    first request, so the counter counts."""
    import course.sync

    real = course.sync.SyncCounter.__dict__["_record"]
    course.sync.SyncCounter._record = lambda self, op, value: None
    try:
        counter = SyncCounter(_LocalLink(), None, simulate=True)
        assert course.sync.SyncCounter.__dict__["_record"] is real
        on_device = torch.ones(3)
        with counter:
            on_device.sum().item()
        assert counter.count == 1
    finally:
        course.sync.SyncCounter._record = real
