"""Reads each step's loss with .item(): a synchronisation per step."""

# score: 6
# zero: 11-tuned-test, 11-tuned-hidden-test
# kind: mistake
# %% 11-tuned
def tuned_epoch(model, optimizer, scaler, loader, device, dtype):
    losses = []
    for X, y in prefetch(loader, device):
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device_type=device.type, dtype=dtype):
            loss = nn.functional.cross_entropy(model(X), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        losses.append(loss.item())
    return torch.tensor(losses, device=device)
