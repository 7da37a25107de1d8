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
    t = torch.tensor(1.0)  # made before the block: on the (simulated) device
    with SyncCounter() as syncs:
        t.item()
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


# --- the simulated GPU: every host read counted, whatever the device ----------


def _training(num_epochs=12):
    """A small training loop whose model and data are made here, before any
    counter: on the (simulated) device. Call the result with
    ``history_step(loss, losses)``, which keeps each loss."""
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 1)
    X, y = torch.randn(16, 3), torch.randn(16, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def run(history_step):
        losses = []
        for _ in range(num_epochs):
            loss = torch.nn.functional.mse_loss(model(X), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            history_step(loss, losses)
        return losses

    return run


@pytest.mark.parametrize(
    "step, syncs, op",
    [
        (lambda loss, out: out.append(loss.detach().to("cpu")), 12, "Tensor.to(cpu)"),
        (lambda loss, out: out.append(loss.detach().cpu()), 12, "Tensor.cpu"),
        (lambda loss, out: out.append(loss.item()), 12, "Tensor.item"),
        (lambda loss, out: out.append(loss.detach()), 0, None),
    ],
    ids=["to-cpu", "cpu", "item", "detach"],
)
def test_a_copy_home_every_epoch_is_a_sync_on_a_cpu_too(step, syncs, op):
    train = _training()
    with SyncCounter(simulate=True) as counter:
        train(step)
    assert counter.count == syncs, counter.summary()
    if op:
        assert counter.by_op() == {op: syncs}


def test_a_history_left_on_the_device_is_seen_and_one_cpu_brings_it_home():
    train = _training()
    with SyncCounter(simulate=True) as counter:
        losses = torch.stack(train(lambda loss, out: out.append(loss.detach())))
        home = losses.cpu()
        home.tolist()  # reading a host tensor: no sync
        float(home[0])
    assert counter.on_device(losses) and not counter.on_device(home)
    assert counter.by_op() == {"Tensor.cpu": 1}
    assert torch.equal(home, losses)  # the same values, on the host


def test_writing_device_values_into_a_host_tensor_is_a_copy_home():
    train = _training()
    with SyncCounter(simulate=True) as counter:
        buffer = torch.zeros(12)  # made without a device: on the host

        def keep(loss, out):
            buffer[len(out)] = loss.detach()
            out.append(None)

        train(keep)
    assert counter.by_op() == {"Tensor.__setitem__ (device to host)": 12}
    assert not counter.on_device(buffer)


def test_host_tensors_made_in_the_block_cost_nothing_to_read():
    import numpy as np

    original = torch.from_numpy
    with SyncCounter(simulate=True) as counter:
        torch.tensor([1.0, 2.0]).sum().item()
        torch.from_numpy(np.ones(3)).tolist()
        torch.zeros(2).to("cpu")
        moved = torch.ones(2).to(torch.device("cpu"))  # the lesson's `device`
    assert counter.by_op() == {"Tensor.to(device)": 1}  # the upload waits, no read
    assert counter.on_device(moved)
    assert torch.from_numpy is original


def test_without_simulation_only_real_device_tensors_count():
    t = torch.tensor([1.0, 2.0])
    with SyncCounter(simulate=False) as counter:
        t.sum().item()
        t.to("cpu")
    assert counter.count == 0
    assert not counter.on_device(t)


def test_the_watch_leaves_no_torch_function_mode_behind():
    from torch.overrides import _get_current_function_mode_stack

    before = list(_get_current_function_mode_stack())
    with pytest.raises(ZeroDivisionError), SyncCounter():
        raise ZeroDivisionError
    assert list(_get_current_function_mode_stack()) == before


def test_a_non_blocking_copy_home_is_queued_and_unreadable_until_a_wait():
    from course.timing import synchronize

    losses = [torch.tensor(float(i)) for i in range(3)]
    with SyncCounter(simulate=True) as syncs:
        home = torch.stack(losses).to("cpu", non_blocking=True)
        assert syncs.count == 0 and syncs.unfinished(home)
        assert not syncs.on_device(home)
        home.tolist()  # read before any wait: on a GPU, whatever memory held
        assert [e.op for e in syncs.early_reads] == ["torch tolist"]
        synchronize("cpu")  # the simulated GPU's wait: one synchronisation
        assert syncs.count == 1 and not syncs.unfinished(home)
        home.tolist()
        torch.zeros(3).copy_(home)  # a copy reads its source: in time now
        assert len(syncs.early_reads) == 1


def test_explicit_waits_count_and_a_copy_into_pageable_memory_waits():
    device_values = torch.arange(3.0)
    with SyncCounter(simulate=True) as syncs:
        torch.cuda.synchronize()  # counted; no CUDA is asked on a simulated GPU
        assert syncs.by_op() == {"torch.cuda.synchronize": 1}
        host = torch.empty(3)  # pageable: a non_blocking copy_ still waits
        host.copy_(device_values, non_blocking=True)
        assert syncs.count == 2 and not syncs.unfinished(host)
        queued = device_values.to("cpu", non_blocking=True)
        torch.empty(3).copy_(queued)  # copying an unfinished copy reads it early
        assert [e.op for e in syncs.early_reads] == ["torch copy_"]
        device_values.sum().item()  # any sync waits for everything queued
        assert not syncs.unfinished(queued)


def test_a_cpu_wait_is_no_sync_where_the_counter_plays_no_gpu():
    from course.timing import synchronize

    with SyncCounter(simulate=False) as syncs:
        synchronize("cpu")
    assert syncs.count == 0


def _prefetched(batches, device):
    """Each batch's copy issued before the previous batch is handed out."""
    batches = iter(batches)
    ahead = next(batches).to(device, non_blocking=True)
    for batch in batches:
        current, ahead = ahead, batch.to(device, non_blocking=True)
        yield current
    yield ahead


def _steps(loader, device):
    for batch in loader:
        (batch * 2).sum().item()  # the step's sync


def test_the_timeline_keeps_uploads_and_syncs_in_order_on_a_simulated_gpu():
    device = torch.device("cpu")  # the lesson's device: the GPU when simulated
    with SyncCounter(simulate=True) as syncs:
        host = [torch.ones(4) * k for k in range(3)]  # made on the host
        _steps((b.to(device) for b in host), device)
    # a blocking upload waits for its copy: an upload, then its sync
    assert [kind for kind, _, _ in syncs.timeline] == ["upload", "sync", "sync"] * 3
    assert syncs.timeline[0][1] == syncs.timeline[1][1] == "Tensor.to(device)"
    assert syncs.timeline[2][1] == "Tensor.item"
    with SyncCounter(simulate=True) as syncs:
        host = [torch.ones(4) * k for k in range(3)]
        _steps(_prefetched(host, device), device)
    kinds = [kind for kind, _, _ in syncs.timeline]
    assert kinds == ["upload", "upload", "sync", "upload", "sync", "sync"]
    assert syncs.timeline[0][1] == "Tensor.to(device, non_blocking=True)"
    assert syncs.count == 3  # queued uploads are not synchronisations


def test_a_device_tensor_moved_again_is_not_an_upload():
    with SyncCounter(simulate=True) as syncs:
        on_device = torch.ones(3)
        on_device = on_device.to(torch.device("cpu"))  # an upload, once
        on_device.to(torch.device("cpu"))  # already there
        on_device.to(torch.float64)  # a dtype only
    assert [kind for kind, _, _ in syncs.timeline] == ["upload", "sync"]
