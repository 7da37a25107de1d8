"""Day 10's central mistake written from the text: the right update, but the old gradients zeroed one parameter at a time (p.grad.zero_() in a loop), one bookkeeping launch per parameter."""


# score: 6
# zero: 10-lean-step-test, 10-lean-step-hidden-test
# kind: mistake
# %% 10-lean-step
def make_optimizer(model, lr=0.001, momentum=0.9):
    return torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum, foreach=True)


def train_step(model, optimizer, X, y):
    for p in model.parameters():
        if p.grad is not None:
            p.grad.zero_()
    loss = torch.nn.functional.mse_loss(model(X), y)
    loss.backward()
    optimizer.step()
    return loss.detach()
