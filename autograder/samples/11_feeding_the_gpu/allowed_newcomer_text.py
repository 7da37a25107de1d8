"""Written from the notebook's text alone by a newcomer: a to_device helper that appends to a list inside the stream block, the loss cast with .float() though autocast already gives float32, float(total) / len(X)."""

# score: 9
# kind: allowed
# %% 11-prefetch
def prefetch(loader, device):
    copy_stream = torch.cuda.Stream()
    main_stream = torch.cuda.current_stream()

    def to_device(batch):
        with torch.cuda.stream(copy_stream):
            result = []
            for t in batch:
                result.append(t.to(device, non_blocking=True))
        return tuple(result)

    it = iter(loader)
    try:
        ready = to_device(next(it))
    except StopIteration:
        return
    for batch in it:
        main_stream.wait_stream(copy_stream)  # batch k has arrived ...
        for t in ready:
            t.record_stream(main_stream)
        upcoming = to_device(batch)  # ... then issue the copy of k+1
        yield ready
        ready = upcoming
    main_stream.wait_stream(copy_stream)
    for t in ready:
        t.record_stream(main_stream)
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
