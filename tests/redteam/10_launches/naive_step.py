"""The naive step without a trick: the control for the attacks beside it.

A Python loop over parameters, zeroed (not dropped) gradients: more launches
than the budget allows, so the step's tests fail.
"""
# score: 6
# zero: 10-lean-step-test, 10-lean-step-hidden-test
# review: no
# %% 10-lean-step
def make_optimizer(model, lr=0.001, momentum=0.9):
    return torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum,
                           foreach=False)


def train_step(model, optimizer, X, y):
    optimizer.zero_grad(set_to_none=False)
    loss = loss_fn(model(X), y)
    loss.backward()
    optimizer.step()
    return loss.detach()
