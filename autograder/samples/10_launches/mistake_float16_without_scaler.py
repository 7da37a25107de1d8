"""Autocasts to float16 but calls loss.backward() and optimizer.step() directly: an overflowing step writes NaN into the weights."""


# score: 6
# zero: 10-amp-test, 10-amp-hidden-test
# kind: mistake
# %% 10-amp
def amp_step(model, optimizer, scaler, X, y, dtype):
    optimizer.zero_grad()
    with torch.autocast(device_type=X.device.type, dtype=dtype):
        loss = loss_fn(model(X), y)
    loss.backward()
    optimizer.step()
    return loss.detach()
