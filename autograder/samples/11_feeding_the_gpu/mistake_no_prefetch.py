"""Copies each batch as it is handed out: the next copy is issued after the step's sync."""

# score: 6
# zero: 11-prefetch-test, 11-prefetch-hidden-test
# kind: mistake
# %% 11-prefetch
def prefetch(loader, device):
    for batch in loader:
        yield tuple(t.to(device, non_blocking=True) for t in batch)
