"""Copies on a side stream and waits for them, but never calls record_stream: the allocator may hand a batch's memory to the next copy while a step reads it."""

# score: 6
# zero: 11-prefetch-test, 11-prefetch-hidden-test
# kind: mistake
# %% 11-prefetch
def prefetch(loader, device):
    side, compute = torch.cuda.Stream(), torch.cuda.current_stream()
    batches = iter(loader)
    try:
        with torch.cuda.stream(side):
            ahead = tuple(t.to(device, non_blocking=True) for t in next(batches))
    except StopIteration:
        return
    for batch in batches:
        compute.wait_stream(side)
        current = ahead
        with torch.cuda.stream(side):
            ahead = tuple(t.to(device, non_blocking=True) for t in batch)
        yield current
    compute.wait_stream(side)
    yield ahead
