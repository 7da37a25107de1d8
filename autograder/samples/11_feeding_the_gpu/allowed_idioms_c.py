"""prefetch with a deque of one batch, record_stream on torch.cuda.default_stream(); tuned_epoch with the loss computed by a helper; flops through torch.autograd.backward, depth=None."""

# score: 9
# kind: allowed
# %% 11-prefetch
from collections import deque


def prefetch(loader, device):
    side = torch.cuda.Stream()
    window = deque()
    for batch in loader:
        if window:
            torch.cuda.current_stream().wait_stream(side)
        with torch.cuda.stream(side):
            window.append([t.to(device, non_blocking=True) for t in batch])
        for t in window[-1]:
            t.record_stream(torch.cuda.default_stream())
        if len(window) == 2:
            yield tuple(window.popleft())
    torch.cuda.current_stream().wait_stream(side)
    while window:
        yield tuple(window.popleft())
# %% 11-tuned
def _loss(model, X, y, device, dtype):
    with torch.autocast(device_type=device.type, dtype=dtype):
        return nn.functional.cross_entropy(model(X), y)


def tuned_epoch(model, optimizer, scaler, loader, device, dtype):
    losses = []
    for X, y in prefetch(loader, device):
        optimizer.zero_grad()
        loss = _loss(model, X, y, device, dtype)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        losses.append(loss.detach().float())
    return torch.cat([loss.reshape(1) for loss in losses])
# %% 11-flops
def flops_per_sample(model, X, y):
    with FlopCounterMode(display=False, depth=None) as counter:
        torch.autograd.backward(nn.functional.cross_entropy(model(X), y))
    return counter.get_total_flops() / float(len(X))
