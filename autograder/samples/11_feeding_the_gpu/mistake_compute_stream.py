"""Copies one batch ahead with non_blocking=True, on the compute stream: on one stream the copy runs before the step, not beside it (the Day's central mistake)."""

# score: 6
# zero: 11-prefetch-test, 11-prefetch-hidden-test
# kind: mistake
# %% 11-prefetch
def prefetch(loader, device):
    batches = iter(loader)
    try:
        ahead = next(batches)
    except StopIteration:
        return
    ahead = tuple(t.to(device, non_blocking=True) for t in ahead)
    for batch in batches:
        current = ahead
        ahead = tuple(t.to(device, non_blocking=True) for t in batch)
        yield current
    yield ahead
