"""A lean step that returns the loss still attached to the autograd graph."""


# score: 6
# zero: 10-lean-step-test, 10-lean-step-hidden-test
# kind: mistake
# %% 10-lean-step
def make_optimizer(model, lr=0.001, momentum=0.9):
    return torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum, foreach=True)


def train_step(model, optimizer, X, y):
    optimizer.zero_grad(set_to_none=True)
    loss = loss_fn(model(X), y)
    loss.backward()
    optimizer.step()
    return loss
