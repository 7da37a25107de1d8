"""course.sync: counting host-device synchronisations deterministically."""

from __future__ import annotations

import pytest
import torch

from course.sync import SyncCounter


def test_each_kind_of_sync_is_counted_once():
    t = torch.tensor([1.5, 2.5])
    s = t.sum()
    with SyncCounter() as syncs:
        s.item()
        float(s)
        int(s)
        bool(s > 0)
        print(t)
        f"{s}"
        t.tolist()
        t.cpu()
        t.numpy()
        with pytest.raises(NotImplementedError):  # meta tensors hold no data...
            t.to("meta").to("cpu")  # ...but the copy back is counted first
    assert syncs.count == 10
    ops = syncs.by_op()
    assert ops["Tensor.item"] == 1
    assert ops["Tensor.__repr__"] == 1  # print reads values internally: one sync
    assert ops["Tensor.to(cpu)"] == 1


def test_moving_to_the_compute_device_is_not_a_sync():
    with SyncCounter() as syncs:
        torch.ones(2).to("cpu")
        torch.nn.Linear(2, 2).to("cpu")
        torch.ones(2).to("meta")
    assert syncs.count == 0


def test_control_flow_on_a_tensor_is_a_sync():
    loss = torch.tensor(0.5)
    with SyncCounter() as syncs:
        if loss < 1.0:
            pass
    assert syncs.count == 1


def test_logging_every_n_epochs_costs_n_times_fewer_syncs():
    loss = torch.tensor(1.0)

    def train(num_epochs, log_every):
        history = []
        for epoch in range(num_epochs):
            loss.mul_(0.99)
            if (epoch + 1) % log_every == 0:
                history.append(loss.item())
        return history

    with SyncCounter() as every_epoch:
        train(100, 1)
    with SyncCounter() as every_ten:
        train(100, 10)
    assert every_epoch.count == 100
    assert every_ten.count == 10


def test_pure_device_work_is_not_counted():
    x = torch.randn(8, 8)
    with SyncCounter() as syncs:
        y = (x @ x).relu().sum()
        y = y * 2
        x.to(torch.float64)
    assert syncs.count == 0


def test_events_say_where_the_sync_happened():
    with SyncCounter() as syncs:
        torch.tensor(1.0).item()
    assert syncs.events[0].where.endswith(f"test_sync.py:{_line_of('item()')}")
    assert "1 x Tensor.item" in syncs.summary()


def _line_of(fragment: str) -> int:
    import inspect

    source, start = inspect.getsourcelines(test_events_say_where_the_sync_happened)
    for offset, line in enumerate(source):
        if fragment in line:
            return start + offset
    raise AssertionError(fragment)


def test_methods_are_restored_even_after_an_error():
    originals = {
        name: torch.Tensor.__dict__.get(name) for name in ("item", "to", "__repr__")
    }
    with pytest.raises(ZeroDivisionError), SyncCounter():
        raise ZeroDivisionError
    for name, original in originals.items():
        assert torch.Tensor.__dict__.get(name) is original
    with SyncCounter() as syncs:
        pass
    torch.tensor(1.0).item()
    assert syncs.count == 0


def test_counters_cannot_be_nested():
    with SyncCounter(), pytest.raises(RuntimeError, match="cannot be nested"):
        with SyncCounter():
            pass
    assert SyncCounter._active == []


def test_summary_without_syncs():
    with SyncCounter() as syncs:
        pass
    assert syncs.summary() == "no host-device synchronisation"
