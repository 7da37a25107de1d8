"""The loss written by hand, ((pred - y) ** 2).mean(): more launches in forward
and backward than nn.MSELoss, none in bookkeeping, so the budget holds."""


# score: 9
# kind: allowed
# %% 10-lean-step
def make_optimizer(model, lr=0.001, momentum=0.9):
    return torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum, foreach=True)


def train_step(model, optimizer, X, y):
    optimizer.zero_grad(set_to_none=True)
    loss = ((model(X) - y) ** 2).mean()
    loss.backward()
    optimizer.step()
    return loss.detach()
