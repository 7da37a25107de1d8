"""A naive step run with torch's dispatch modes switched off.

Inside ``_DisableTorchDispatch`` the course's launch counter sees nothing.
The visible test notices that no backward pass was seen and fails.
Expected to forge: torch's launches are still counted in the student's
process (torch tensors do not live in the simulated GPU's store; the Reference guide's
guarantees table), so the hidden test's launch budget passes (the score
written here is the forged one; its control, naive_step, earns 6).
"""
# score: 8
# zero: 10-lean-step-test
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
