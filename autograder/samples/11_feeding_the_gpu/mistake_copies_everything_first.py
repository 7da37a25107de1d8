"""Copies the whole loader to the device before the first step (not one batch ahead)."""

# score: 6
# zero: 11-prefetch-test, 11-prefetch-hidden-test
# kind: mistake
# %% 11-prefetch
def prefetch(loader, device):
    moved = [tuple(t.to(device, non_blocking=True) for t in batch) for batch in loader]
    yield from moved
