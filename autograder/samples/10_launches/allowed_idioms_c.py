"""Correct answers in other idioms: a foreach SGD with the MSE written as torch.mean(torch.square(...)) and the loss detached before the update, and a memory count that reads parameters from the copy's state_dict and the optimizer's state from its state_dict, printing a breakdown with sys.stdout; and a mixed-precision step whose loss is computed after the autocast block, from the output cast to float32."""


# score: 9
# kind: allowed
# %% 10-lean-step
def make_optimizer(model, lr=0.001, momentum=0.9):
    """SGD with momentum on model's parameters, updating all of them together
    (a foreach or fused implementation, not one update per parameter)."""
    options = {"lr": lr, "momentum": momentum, "foreach": True}
    return torch.optim.SGD(model.parameters(), **options)


def train_step(model, optimizer, X, y):
    """One step of MSE training: drop the old gradients (set_to_none), forward,
    backward, update. Return the loss as a detached 0-d tensor (no .item())."""
    optimizer.zero_grad(set_to_none=True)
    loss = torch.mean(torch.square(model(X) - y))
    loss.backward()
    value = loss.detach()
    optimizer.step()
    return value


model = make_mlp()
optimizer = make_optimizer(model)
train_step(model, optimizer, X_train[:256], y_train[:256])  # state is created
lean = gpumodel.trace(lambda: train_step(model, optimizer, X_train[:256],
                                         y_train[:256]))
print(f"lean step: {lean.launches} launches, {lean.syncs} syncs: {lean.by_op()}")
print(f"by part: {lean.by_part()}")
# %% 10-amp
def amp_step(model, optimizer, scaler, X, y, dtype):
    with torch.autocast(device_type=X.device.type, dtype=dtype):
        output = model(X)
    loss = loss_fn(output.float(), y)
    optimizer.zero_grad()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    return loss.detach()


# %% 10-memory
import sys


def peak_training_bytes(model, batch, dtype, optimizer):
    """Bytes of parameters + gradients + optimizer state + saved activations.

    model: an nn.Module (leave it unchanged: work on a copy); batch: the input
    tensor; dtype: the torch dtype to train in; optimizer: a function that
    takes the parameters and returns an optimizer. Run one forward pass of
    model(batch) under saved_tensors_hooks, backward of the output's sum, and
    one optimizer step, on the CPU. Returns an int.
    """
    clone = copy.deepcopy(model).to(dtype)
    storages = {}

    def remember(t):
        s = t.untyped_storage()
        storages[s.data_ptr()] = s.nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(remember, lambda t: t):
        clone(batch.to(dtype)).sum().backward()
    opt = optimizer(clone.parameters())
    opt.step()
    weights = clone.state_dict()
    for p in weights.values():  # parameters saved by autograd are counted once
        storages.pop(p.untyped_storage().data_ptr(), None)
    parts = {
        "parameters": sum(p.nelement() * p.element_size() for p in weights.values()),
        "gradients": sum(p.grad.nelement() * p.grad.element_size()
                         for p in clone.parameters() if p.grad is not None),
        "state": sum(v.nelement() * v.element_size()
                     for s in opt.state_dict()["state"].values()
                     for v in s.values() if torch.is_tensor(v)),
        "activations": sum(storages.values()),
    }
    if os.environ.get("MEMORY_DEBUG"):
        print(parts, file=sys.stdout)
    return int(sum(parts.values()))


sgd = lambda params: torch.optim.SGD(params, lr=0.01)
adam = lambda params: torch.optim.Adam(params, lr=0.01)
for name, make in (("SGD", sgd), ("Adam", adam)):
    for dtype in (torch.float32, torch.bfloat16):
        peak = peak_training_bytes(make_mlp(), X_train[:256].clone(), dtype, make)
        print(f"{name:>4}, {str(dtype):>14}, batch 256: {peak / 1024:8.1f} KiB")
