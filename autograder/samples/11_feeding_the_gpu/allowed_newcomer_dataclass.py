"""Written from the notebook's text alone by a newcomer: prefetch builds a dataclass that holds the side stream and the batch in hand, and iterates it; record_stream is called on each tensor right after its copy, before the wait, which CUDA allows."""

# score: 9
# kind: allowed
# %% 11-prefetch
from dataclasses import dataclass, field


@dataclass
class _Prefetcher:
    loader: object
    device: torch.device
    side: object = field(default_factory=torch.cuda.Stream)

    def _copy(self, batch, compute):
        with torch.cuda.stream(self.side):
            moved = [t.to(self.device, non_blocking=True) for t in batch]
        for t in moved:
            t.record_stream(compute)
        return tuple(moved)

    def __iter__(self):
        compute = torch.cuda.current_stream()
        held = None
        for batch in self.loader:
            if held is not None:
                compute.wait_stream(self.side)  # batch k is ready ...
            nxt = self._copy(batch, compute)  # ... then batch k+1 starts
            if held is not None:
                yield held
            held = nxt
        if held is not None:
            compute.wait_stream(self.side)
            yield held


def prefetch(loader, device):
    yield from _Prefetcher(loader, device)
