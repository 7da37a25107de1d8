"""Copies on a side stream but yields each batch inside the stream block: the consumer's steps then run on the side stream too, and nothing overlaps (waits and record_stream are made on the default stream, as the text says)."""

# score: 6
# zero: 11-prefetch-test, 11-prefetch-hidden-test
# kind: mistake
# %% 11-prefetch
def prefetch(loader, device):
    side, compute = torch.cuda.Stream(), torch.cuda.default_stream()
    with torch.cuda.stream(side):
        ahead = None
        for batch in loader:
            compute.wait_stream(side)
            moved = tuple(t.to(device, non_blocking=True) for t in batch)
            for t in moved:
                t.record_stream(compute)
            if ahead is not None:
                yield ahead
            ahead = moved
        if ahead is not None:
            compute.wait_stream(side)
            yield ahead
