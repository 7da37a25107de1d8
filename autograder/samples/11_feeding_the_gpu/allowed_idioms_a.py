"""prefetch with a sentinel, an event recorded after each copy and waited on by the compute stream; tuned_epoch preallocates the losses on the device; flops from FlopCounterMode's per-module table."""

# score: 9
# kind: allowed
# %% 11-prefetch
_NOTHING = object()


def prefetch(loader, device):
    side = torch.cuda.Stream()
    compute = torch.cuda.current_stream()
    ahead = _NOTHING
    for batch in loader:
        with torch.cuda.stream(side):
            moved = tuple(t.to(device, non_blocking=True) for t in batch)
            arrived = side.record_event()  # covers this copy only
        if ahead is not _NOTHING:
            yield ahead
        compute.wait_event(arrived)
        for t in moved:
            t.record_stream(compute)
        ahead = moved
    if ahead is not _NOTHING:
        yield ahead
# %% 11-tuned
def tuned_epoch(model, optimizer, scaler, loader, device, dtype):
    batches = list(loader)
    losses = torch.empty(len(batches), device=device)
    for i, (X, y) in enumerate(prefetch(batches, device)):
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device_type=device.type, dtype=dtype):
            loss = nn.functional.cross_entropy(model(X), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        losses[i] = loss.detach()
    return losses
# %% 11-flops
def flops_per_sample(model, X, y):
    counter = FlopCounterMode(display=False)
    with counter:
        loss = nn.functional.cross_entropy(model(X), y)
        loss.backward()
    by_module = counter.get_flop_counts()["Global"]
    return float(sum(by_module.values())) / X.shape[0]
