"""Casts the whole model to the 16-bit format instead of using autocast."""

# score: 6
# zero: 11-tuned-test, 11-tuned-hidden-test
# kind: mistake
# %% 11-tuned
def tuned_epoch(model, optimizer, scaler, loader, device, dtype):
    model.to(dtype)
    losses = []
    for X, y in prefetch(loader, device):
        optimizer.zero_grad(set_to_none=True)
        loss = nn.functional.cross_entropy(model(X.to(dtype)), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        losses.append(loss.detach().float())
    return torch.stack(losses)
