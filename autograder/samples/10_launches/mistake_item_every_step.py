"""train_step checks math.isnan(loss.item()) every step: a synchronisation per step."""


# score: 6
# zero: 10-lean-step-test, 10-lean-step-hidden-test
# kind: mistake
# %% 10-lean-step
import math


def make_optimizer(model, lr=0.001, momentum=0.9):
    """SGD with momentum on model's parameters, updating all of them together
    (a foreach or fused implementation, not one update per parameter)."""
    return torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum, foreach=True)


def train_step(model, optimizer, X, y):
    """One step of MSE training: drop the old gradients (set_to_none), forward,
    backward, update. Return the loss as a detached 0-d tensor (no .item())."""
    optimizer.zero_grad(set_to_none=True)
    loss = loss_fn(model(X), y)
    if math.isnan(loss.item()):
        raise FloatingPointError("the loss is NaN")
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
