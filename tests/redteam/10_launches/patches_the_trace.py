"""A naive step that replaces course.gpumodel.trace when the optimizer is made.

The launch counter is the course's; the answer swaps it for one that always
reports zero launches. The measured run refuses an answer that assigns to a
library's attribute, so the cell is not loaded and the step's tests fail.
"""
# score: 6
# zero: 10-lean-step-test, 10-lean-step-hidden-test
# review: no
# %% 10-lean-step
import course.gpumodel


def make_optimizer(model, lr=0.001, momentum=0.9):
    real = course.gpumodel.trace

    def quiet(fn):
        run = real(fn)
        run.events.clear()
        return run

    course.gpumodel.trace = quiet
    return torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)


def train_step(model, optimizer, X, y):
    optimizer.zero_grad(set_to_none=False)
    loss = loss_fn(model(X), y)
    loss.backward()
    for group in optimizer.param_groups:
        for p in group["params"]:
            p.data.add_(p.grad, alpha=-group["lr"])
    return loss.detach()
