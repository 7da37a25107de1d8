"""The referee's SyncCounter reads the kernel's counter through the link."""

from __future__ import annotations

import importlib

import torch

from autograder.grading.referee.counters import SyncCounter


class _LocalLink:
    """A link whose 'kernel' is this process: each call done here."""

    store = None

    def call(self, what, *args):
        if what == "import":
            return importlib.import_module(args[0])
        if what == "getattr":
            return getattr(args[0], args[1])
        if what == "call":
            function, positional, keywords = args
            return function(*positional, **keywords)
        if what == "enter":
            return args[0].__enter__()
        if what == "exit":
            return args[0].__exit__(*args[1:])
        raise AssertionError(what)

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
