"""Never calls scaler.update(): the scale is not lowered after a skipped step."""


# score: 6
# zero: 10-amp-test, 10-amp-hidden-test
# kind: mistake
# %% 10-amp
def amp_step(model, optimizer, scaler, X, y, dtype):
    optimizer.zero_grad()
    with torch.autocast(device_type=X.device.type, dtype=dtype):
        loss = loss_fn(model(X), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    return loss.detach()
