"""Copies on a side stream and records each batch, but the compute stream never waits for the copies: a step may read a batch still on its way."""

# score: 6
# zero: 11-prefetch-test, 11-prefetch-hidden-test
# kind: mistake
# %% 11-prefetch
def prefetch(loader, device):
    side, compute = torch.cuda.Stream(), torch.cuda.current_stream()

    def copied(batch):
        with torch.cuda.stream(side):
            moved = tuple(t.to(device, non_blocking=True) for t in batch)
        for t in moved:
            t.record_stream(compute)
        return moved

    ahead = None
    for batch in loader:
        moved = copied(batch)
        if ahead is not None:
            yield ahead
        ahead = moved
    if ahead is not None:
        yield ahead
