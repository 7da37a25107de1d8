"""The naive step (a loop over parameters, zeroed gradients) with
``course.gpumodel.tracing.Trace`` replaced by a subclass that reports no
launches and no syncs.

``gpumodel.trace`` built its result from the name ``Trace`` when the traced
step ended, so the budget read zero and the step earned full marks. The
test's ``trace`` is now the referee's: the kernel runs the step under the
tracer bound before the notebook ran and sends back its events, which the
referee reads with its own ``Trace``. The step's tests fail as the naive
step's do.
"""
# score: 6
# zero: 10-lean-step-test, 10-lean-step-hidden-test
# review: yes
# %% 10-lean-step
import course.gpumodel.tracing


class _Quiet(course.gpumodel.tracing.Trace):
    launches = property(lambda self: 0)
    syncs = property(lambda self: 0)

    def by_part(self):
        return {"forward and loss": 1, "backward": 1, "bookkeeping": 0}

    def by_op(self, part=None):
        return {}


course.gpumodel.tracing.Trace = _Quiet


def make_optimizer(model, lr=0.001, momentum=0.9):
    course.gpumodel.tracing.Trace = _Quiet
    return torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum,
                           foreach=False)


def train_step(model, optimizer, X, y):
    course.gpumodel.tracing.Trace = _Quiet
    optimizer.zero_grad(set_to_none=False)
    loss = loss_fn(model(X), y)
    loss.backward()
    optimizer.step()
    return loss.detach()
