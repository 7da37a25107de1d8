"""train_step never drops the old gradients, so every backward adds into the last step's: wrong updates, and backward's accumulation costs launches too."""


# score: 6
# zero: 10-lean-step-test, 10-lean-step-hidden-test
# kind: mistake
# %% 10-lean-step
def make_optimizer(model, lr=0.001, momentum=0.9):
    """SGD with momentum on model's parameters, updating all of them together
    (a foreach or fused implementation, not one update per parameter)."""
    return torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum, foreach=True)


def train_step(model, optimizer, X, y):
    """One step of MSE training: drop the old gradients (set_to_none), forward,
    backward, update. Return the loss as a detached 0-d tensor (no .item())."""
    loss = loss_fn(model(X), y)
    loss.backward()
    optimizer.step()
    return loss.detach()


model = make_mlp()
optimizer = make_optimizer(model)
train_step(model, optimizer, X_train[:256], y_train[:256])  # state is created
lean = gpumodel.trace(lambda: train_step(model, optimizer, X_train[:256],
                                         y_train[:256]))
print(f"lean step: {lean.launches} launches, {lean.syncs} syncs: {lean.by_op()}")
print(f"by part: {lean.by_part()}")
