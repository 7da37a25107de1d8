"""Trains in the 16-bit format itself (the model cast with .to(dtype)) instead of autocast with float32 weights."""


# score: 6
# zero: 10-amp-test, 10-amp-hidden-test
# kind: mistake
# %% 10-amp
def amp_step(model, optimizer, scaler, X, y, dtype):
    model.to(dtype)
    optimizer.zero_grad()
    loss = loss_fn(model(X.to(dtype)), y.to(dtype)).float()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    return loss.detach()
