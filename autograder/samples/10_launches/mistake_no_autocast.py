"""Uses the GradScaler but forgets autocast: everything runs in float32, and the visible test sees a loss equal to float32's to the last bit."""


# score: 6
# zero: 10-amp-test, 10-amp-hidden-test
# kind: mistake
# %% 10-amp
def amp_step(model, optimizer, scaler, X, y, dtype):
    optimizer.zero_grad()
    loss = loss_fn(model(X), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    return loss.detach()
