"""Correct answers in other idioms: a fused SGD with model.zero_grad(set_to_none=True) and F.mse_loss, and a memory count with a @torch.no_grad() helper, saved storages keyed by data_ptr and the optimizer's state read from optimizer.state; and a mixed-precision step with torch.autocast(X.device.type, dtype) written positionally, F.mse_loss and zero_grad(set_to_none=True)."""


# score: 9
# kind: allowed
# %% 10-lean-step
import torch.nn.functional as F


def make_optimizer(model, lr=0.001, momentum=0.9):
    """SGD with momentum on model's parameters, updating all of them together
    (a foreach or fused implementation, not one update per parameter)."""
    return torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum, fused=True)


def train_step(model, optimizer, X, y):
    """One step of MSE training: drop the old gradients (set_to_none), forward,
    backward, update. Return the loss as a detached 0-d tensor (no .item())."""
    model.zero_grad(set_to_none=True)
    prediction = model(X)
    loss = F.mse_loss(prediction, y)
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
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast(X.device.type, dtype):
        prediction = model(X)
        loss = F.mse_loss(prediction, y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    return loss.detach().float()


# %% 10-memory
@torch.no_grad()
def tensor_bytes(tensors):
    """Bytes held by the given tensors (numel times element size)."""
    return sum(t.numel() * t.element_size() for t in tensors)


def peak_training_bytes(model, batch, dtype, optimizer):
    """Bytes of parameters + gradients + optimizer state + saved activations.

    model: an nn.Module (leave it unchanged: work on a copy); batch: the input
    tensor; dtype: the torch dtype to train in; optimizer: a function that
    takes the parameters and returns an optimizer. Run one forward pass of
    model(batch) under saved_tensors_hooks, backward of the output's sum, and
    one optimizer step, on the CPU. Returns an int.
    """
    net = copy.deepcopy(model).to(device="cpu", dtype=dtype)
    X = batch.to(device="cpu", dtype=dtype)
    params = list(net.parameters())
    param_storages = {p.untyped_storage().data_ptr() for p in params}
    saved = {}

    def pack(t):
        storage = t.untyped_storage()
        if storage.data_ptr() not in param_storages:
            saved[storage.data_ptr()] = storage.nbytes()
        return t

    def unpack(t):
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        out = net(X)
    out.sum().backward()
    opt = optimizer(params)
    opt.step()
    grads = [p.grad for p in params if p.grad is not None]
    state = [v for s in opt.state.values() for v in s.values() if torch.is_tensor(v)]
    total = tensor_bytes(params) + tensor_bytes(grads) + tensor_bytes(state)
    return int(total + sum(saved.values()))


sgd = lambda params: torch.optim.SGD(params, lr=0.01)
adam = lambda params: torch.optim.Adam(params, lr=0.01)
for name, make in (("SGD", sgd), ("Adam", adam)):
    for dtype in (torch.float32, torch.bfloat16):
        peak = peak_training_bytes(make_mlp(), X_train[:256].clone(), dtype, make)
        print(f"{name:>4}, {str(dtype):>14}, batch 256: {peak / 1024:8.1f} KiB")
