"""Written from the notebook's text alone by a newcomer: a nested to_device helper in prefetch, the loss cast with .float() though autocast already gives float32, float(total) / len(X)."""

# score: 9
# kind: allowed
# %% 11-prefetch
def prefetch(loader, device):
    def to_device(batch):
        return tuple(t.to(device, non_blocking=True) for t in batch)

    it = iter(loader)
    try:
        ready = to_device(next(it))
    except StopIteration:
        return
    for batch in it:
        upcoming = to_device(batch)  # issue the copy of k+1 ...
        yield ready  # ... before handing out k
        ready = upcoming
    yield ready
# %% 11-tuned
def tuned_epoch(model, optimizer, scaler, loader, device, dtype):
    history = []
    for X, y in prefetch(loader, device):
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device_type=device.type, dtype=dtype):
            out = model(X)
            loss = nn.functional.cross_entropy(out, y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        history.append(loss.detach())
    return torch.stack(history).float()
# %% 11-flops
def flops_per_sample(model, X, y):
    with FlopCounterMode(display=False) as counter:
        loss = nn.functional.cross_entropy(model(X), y)
        loss.backward()
    total = counter.get_total_flops()
    return float(total) / len(X)
