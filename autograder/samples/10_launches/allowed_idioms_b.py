"""Correct answers in other idioms: a foreach SGD with optimizer.zero_grad() (set_to_none is its default) and the loss_fn of the lesson, and a memory count kept in a @dataclass, with the saved tensors gathered in a list and deduplicated afterwards; and a mixed-precision step under torch.amp.autocast with the MSE written as ((model(X) - y) ** 2).mean() and model.zero_grad()."""


# score: 9
# kind: allowed
# %% 10-lean-step
def make_optimizer(model, lr=0.001, momentum=0.9):
    """SGD with momentum on model's parameters, updating all of them together
    (a foreach or fused implementation, not one update per parameter)."""
    return torch.optim.SGD(params=list(model.parameters()), lr=lr, momentum=momentum,
                           dampening=0, foreach=True)


def train_step(model, optimizer, X, y):
    """One step of MSE training: drop the old gradients (set_to_none), forward,
    backward, update. Return the loss as a detached 0-d tensor (no .item())."""
    optimizer.zero_grad()  # set_to_none=True is the default since PyTorch 2.0
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
# %% 10-amp
def amp_step(model, optimizer, scaler, X, y, dtype):
    model.zero_grad()
    with torch.amp.autocast(device_type=X.device.type, dtype=dtype):
        loss = ((model(X) - y) ** 2).mean()
    scaled = scaler.scale(loss)
    scaled.backward()
    scaler.step(optimizer)
    scaler.update()
    return loss.detach()


# %% 10-memory
from dataclasses import dataclass


@dataclass
class MemoryCount:
    parameters: int = 0
    gradients: int = 0
    optimizer_state: int = 0
    activations: int = 0

    def total(self):
        return self.parameters + self.gradients + self.optimizer_state + self.activations


def peak_training_bytes(model, batch, dtype, optimizer):
    """Bytes of parameters + gradients + optimizer state + saved activations.

    model: an nn.Module (leave it unchanged: work on a copy); batch: the input
    tensor; dtype: the torch dtype to train in; optimizer: a function that
    takes the parameters and returns an optimizer. Run one forward pass of
    model(batch) under saved_tensors_hooks, backward of the output's sum, and
    one optimizer step, on the CPU. Returns an int.
    """
    work = copy.deepcopy(model)
    work.to(dtype)
    inputs = batch.clone().to(dtype)
    count = MemoryCount()
    saved_tensors = []
    with torch.autograd.graph.saved_tensors_hooks(
        lambda t: saved_tensors.append(t) or t, lambda t: t
    ):
        output = work(inputs)
    output.sum().backward()
    opt = optimizer(work.parameters())
    opt.step()
    param_ptrs = set()
    for p in work.parameters():
        param_ptrs.add(p.untyped_storage().data_ptr())
        count.parameters += p.numel() * p.element_size()
        if p.requires_grad:
            count.gradients += p.numel() * p.element_size()
    for per_param in opt.state.values():
        for value in per_param.values():
            if isinstance(value, torch.Tensor):
                count.optimizer_state += value.numel() * value.element_size()
    seen = set()
    for t in saved_tensors:
        ptr = t.untyped_storage().data_ptr()
        if ptr in param_ptrs or ptr in seen:
            continue
        seen.add(ptr)
        count.activations += t.untyped_storage().nbytes()
    return int(count.total())


sgd = lambda params: torch.optim.SGD(params, lr=0.01)
adam = lambda params: torch.optim.Adam(params, lr=0.01)
for name, make in (("SGD", sgd), ("Adam", adam)):
    for dtype in (torch.float32, torch.bfloat16):
        peak = peak_training_bytes(make_mlp(), X_train[:256].clone(), dtype, make)
        print(f"{name:>4}, {str(dtype):>14}, batch 256: {peak / 1024:8.1f} KiB")
