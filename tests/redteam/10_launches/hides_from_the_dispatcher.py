"""A naive step run with torch's dispatch modes switched off.

Inside ``_DisableTorchDispatch`` the course's launch counter sees nothing. The
name is private to torch: the measured run refuses the answer cell, so the
step's tests fail.
"""
# score: 6
# zero: 10-lean-step-test, 10-lean-step-hidden-test
# review: no
# %% 10-lean-step
def make_optimizer(model, lr=0.001, momentum=0.9):
    return torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)


def train_step(model, optimizer, X, y):
    with torch._C._DisableTorchDispatch():
        optimizer.zero_grad(set_to_none=False)
        loss = loss_fn(model(X), y)
        loss.backward()
        optimizer.step()
    return loss.detach()
