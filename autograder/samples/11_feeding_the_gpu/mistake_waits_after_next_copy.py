"""Waits for the side stream after issuing the next batch's copy: each step then waits for the following batch's copy too, and nothing overlaps."""

# score: 6
# zero: 11-prefetch-test, 11-prefetch-hidden-test
# kind: mistake
# %% 11-prefetch
def prefetch(loader, device):
    side, compute = torch.cuda.Stream(), torch.cuda.current_stream()

    def copied(batch):
        with torch.cuda.stream(side):
            return tuple(t.to(device, non_blocking=True) for t in batch)

    batches = iter(loader)
    try:
        ahead = copied(next(batches))
    except StopIteration:
        return
    for batch in batches:
        current, ahead = ahead, copied(batch)
        compute.wait_stream(side)
        for t in current:
            t.record_stream(compute)
        yield current
    compute.wait_stream(side)
    for t in ahead:
        t.record_stream(compute)
    yield ahead
