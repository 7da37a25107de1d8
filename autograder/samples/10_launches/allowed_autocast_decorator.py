"""A newcomer's amp_step: the forward and loss in a nested function decorated with torch.autocast, the update through the scaler: full marks."""


# score: 9
# kind: allowed
# %% 10-amp
def amp_step(model, optimizer, scaler, X, y, dtype):
    @torch.autocast(device_type=X.device.type, dtype=dtype)
    def forward_and_loss():
        return loss_fn(model(X), y)

    optimizer.zero_grad()
    loss = forward_and_loss()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    return loss.detach()
