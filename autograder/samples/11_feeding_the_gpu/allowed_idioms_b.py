"""prefetch with itertools.pairwise over a copying generator that waits for the side stream before each copy; tuned_epoch with F.cross_entropy imported and torch.amp.autocast; flops as a float from an int division later."""

# score: 9
# kind: allowed
# %% 11-prefetch
import itertools

_END = object()


def prefetch(loader, device):
    side, compute = torch.cuda.Stream(), torch.cuda.current_stream()

    def moved(batches):
        for batch in batches:
            compute.wait_stream(side)  # the copies so far: the batch about to go
            with torch.cuda.stream(side):
                copied = tuple(t.to(device, non_blocking=True) for t in batch)
            for t in copied:
                t.record_stream(compute)
            yield copied
        compute.wait_stream(side)
        yield _END

    for current, _following in itertools.pairwise(moved(loader)):
        # pairwise has already pulled (and so copied) the following batch
        yield current
# %% 11-tuned
import torch.nn.functional as F


def tuned_epoch(model, optimizer, scaler, loader, device, dtype):
    history = []
    for X, y in prefetch(loader, device):
        optimizer.zero_grad(set_to_none=True)
        with torch.amp.autocast(device.type, dtype=dtype):
            logits = model(X)
            loss = F.cross_entropy(logits, y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        history.append(loss.detach())
    return torch.stack(history).to(torch.float32)
# %% 11-flops
def flops_per_sample(model, X, y):
    with FlopCounterMode(display=False) as counter:
        out = model(X)
        nn.CrossEntropyLoss()(out, y).backward()
    total = counter.get_total_flops()
    return total * 1.0 / len(y)
