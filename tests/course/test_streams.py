"""course.streams: simulated CUDA streams where torch has none, and the
record a SyncCounter keeps of copies, waits, reads and record_stream."""

from __future__ import annotations

import pytest
import torch

from course.streams import SimStream, read_streams
from course.sync import SyncCounter, mark_host

pytestmark = pytest.mark.skipif(
    torch.cuda.is_available(), reason="the simulated streams stand in for CUDA's"
)
DEVICE = torch.device("cpu")


def _batches(n):
    generator = torch.Generator().manual_seed(0)
    return [(torch.randn(3, 2, generator=generator), torch.arange(3)) for _ in range(n)]


def _steps(batches):
    for X, y in batches:
        float(X.sum() + y.sum())


def _side_stream(loader, wait_first=True, record=True, event=False):
    side, compute = torch.cuda.Stream(), torch.cuda.current_stream()

    def copied(batch):
        with torch.cuda.stream(side):
            out = tuple(t.to(DEVICE, non_blocking=True) for t in batch)
            done = side.record_event() if event else None
        if record:
            for t in out:
                t.record_stream(compute)
        return out, done

    ahead, done = None, None
    for batch in loader:
        if ahead is not None and wait_first:
            compute.wait_event(done) if event else compute.wait_stream(side)
        moved, arrived = copied(batch)
        if ahead is not None:
            if not wait_first:
                compute.wait_stream(side)
            yield ahead
        ahead, done = moved, arrived
    if ahead is not None:
        compute.wait_event(done) if event else compute.wait_stream(side)
        yield ahead


def _facts(loader_fn, n=3, **kwargs):
    with SyncCounter() as syncs:
        batches = _batches(n)
        _steps(loader_fn(batches, **kwargs))
    return read_streams(syncs.timeline)


def test_the_stream_calls_work_without_cuda_and_do_nothing_outside_a_counter():
    side = torch.cuda.Stream()
    assert isinstance(side, SimStream) and side != torch.cuda.default_stream()
    with torch.cuda.stream(side):
        assert torch.cuda.current_stream() is side
        X = torch.ones(2).to(DEVICE, non_blocking=True)
    assert torch.cuda.current_stream() is torch.cuda.default_stream()
    torch.cuda.current_stream().wait_stream(side)
    X.record_stream(torch.cuda.current_stream())
    assert side.query() and side.record_event().query()


def test_a_side_stream_loader_is_recorded_copy_by_copy():
    facts = _facts(_side_stream)
    assert [c.stream for c in facts.copies] == [1] * 6
    assert facts.copies_before_each_sync == [4, 6, 6]
    assert facts.waited_before_each_sync == [2, 4, 6]
    assert all(c.used_on == [0] and not c.used_before_a_wait for c in facts.copies)
    assert all(c.recorded_for == [0] for c in facts.copies)


def test_an_event_recorded_after_each_copy_covers_that_copy_only():
    facts = _facts(_side_stream, event=True)
    assert facts.waited_before_each_sync == [2, 4, 6]
    assert not any(c.used_before_a_wait for c in facts.copies)


def test_each_mistake_shows_in_the_record():
    one_stream = _facts(
        lambda b: (tuple(t.to(DEVICE, non_blocking=True) for t in x) for x in b)
    )
    assert {c.stream for c in one_stream.copies} == {0}
    assert not any(c.used_on for c in one_stream.copies)  # nothing to wait for
    late = _facts(_side_stream, wait_first=False)
    assert late.waited_before_each_sync == [4, 6, 6]  # step k waits for k+1 too
    unrecorded = _facts(_side_stream, record=False)
    assert all(c.recorded_for == [] for c in unrecorded.copies)


def test_reading_a_copy_before_the_wait_is_seen():
    def no_wait(batches):
        side = torch.cuda.Stream()
        for batch in batches:
            with torch.cuda.stream(side):
                moved = tuple(t.to(DEVICE, non_blocking=True) for t in batch)
            yield moved

    facts = _facts(no_wait, n=2)
    assert [c.used_before_a_wait for c in facts.copies] == [[0]] * 4


def test_a_blocking_copy_on_a_side_stream_is_still_a_sync():
    side = torch.cuda.Stream()
    with SyncCounter() as syncs:
        X = torch.ones(3)
        with torch.cuda.stream(side):
            X.to(DEVICE)
    assert syncs.count == 1
    assert syncs.timeline[0][:2] == ("upload", "Tensor.to(device) on stream 1")


def test_without_streams_the_timeline_is_as_before():
    with SyncCounter() as syncs:
        float(torch.ones(2).to(DEVICE, non_blocking=True).sum())
    assert [k for k, _, _ in syncs.timeline] == ["upload", "sync"]
    assert syncs.timeline[0][1] == "Tensor.to(device, non_blocking=True)"


def test_mark_host_makes_a_loaders_rows_host_data():
    X = torch.randn(8, 2)
    with SyncCounter() as before:
        X[:4].to(DEVICE)
    mark_host(X)
    with SyncCounter() as after:
        X[:4].to(DEVICE)
    assert before.count == 0 and after.count == 1  # a blocking upload


def test_a_simulated_event_has_no_clock():
    with pytest.raises(RuntimeError, match="benchmark"):
        torch.cuda.Event().elapsed_time(torch.cuda.Event())


def test_a_step_run_on_the_side_stream_is_seen():
    def inside(batches):
        side = torch.cuda.Stream()
        with torch.cuda.stream(side):  # the consumer's steps run on `side` too
            for batch in batches:
                yield tuple(t.to(DEVICE, non_blocking=True) for t in batch)

    facts = _facts(inside, n=2)
    assert [c.used_on for c in facts.copies] == [[1]] * 4
    assert not any(c.used_before_a_wait for c in facts.copies)  # same stream


def test_the_forms_torch_accepts_are_read_as_torch_reads_them():
    side = torch.cuda.Stream()
    compute = torch.cuda.current_stream()
    with SyncCounter() as syncs:
        X = torch.ones(3)
        with torch.cuda.StreamContext(side):  # what torch.cuda.stream returns
            X.to(DEVICE, None, False, True)  # dtype, non_blocking=False, copy
        with side:  # a stream is its own context
            buffer = torch.empty(3, device=DEVICE)
            buffer.copy_(X, non_blocking=True)
        with torch.cuda.stream(torch.cuda.Stream(stream_id=compute.stream_id)):
            X.to(DEVICE, non_blocking=True)  # the compute stream, rebuilt
    ops = [op for kind, op, _ in syncs.timeline if kind == "upload"]
    assert ops == [
        "Tensor.to(device) on stream 1",
        "Tensor.copy_ (host to device, non_blocking=True) on stream 1",
        "Tensor.to(device, non_blocking=True)",
    ]
    assert syncs.count == 1  # the blocking copy


def test_a_wait_on_an_event_never_recorded_waits_for_nothing():
    side, compute = torch.cuda.Stream(), torch.cuda.current_stream()
    with SyncCounter() as syncs:
        with torch.cuda.stream(side):
            X = torch.ones(3).to(DEVICE, non_blocking=True)
        side.record_event()  # recorded, then dropped
        compute.wait_event(torch.cuda.Event())  # a new event: never recorded
        float(X.sum())
    facts = read_streams(syncs.timeline)
    assert facts.copies[0].used_before_a_wait == [0]
