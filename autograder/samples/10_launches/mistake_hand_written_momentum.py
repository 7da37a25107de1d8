"""make_optimizer returns a hand-written momentum SGD whose step (under @torch.no_grad()) loops over the parameters: the right values, but two launches per parameter."""


# score: 6
# zero: 10-lean-step-test, 10-lean-step-hidden-test
# kind: mistake
# %% 10-lean-step
class MomentumSGD:
    """SGD with momentum, written out."""

    def __init__(self, params, lr, momentum):
        self.params = list(params)
        self.lr = lr
        self.momentum = momentum
        self.buffers = [None] * len(self.params)

    def zero_grad(self, set_to_none=True):
        for p in self.params:
            p.grad = None

    @torch.no_grad()
    def step(self):
        for k, p in enumerate(self.params):
            if p.grad is None:  # as torch.optim does: no gradient, no update
                continue
            if self.buffers[k] is None:
                self.buffers[k] = p.grad.clone()
            else:
                self.buffers[k].mul_(self.momentum).add_(p.grad)
            p.add_(self.buffers[k], alpha=-self.lr)


def make_optimizer(model, lr=0.001, momentum=0.9):
    """SGD with momentum on model's parameters, updating all of them together
    (a foreach or fused implementation, not one update per parameter)."""
    return MomentumSGD(model.parameters(), lr, momentum)


def train_step(model, optimizer, X, y):
    """One step of MSE training: drop the old gradients (set_to_none), forward,
    backward, update. Return the loss as a detached 0-d tensor (no .item())."""
    optimizer.zero_grad(set_to_none=True)
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
