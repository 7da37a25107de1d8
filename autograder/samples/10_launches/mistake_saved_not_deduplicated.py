"""peak_training_bytes adds every saved tensor's bytes, so the ReLU output that the next layer saves too is counted twice."""


# score: 6
# zero: 10-memory-test, 10-memory-hidden-test
# kind: mistake
# %% 10-memory
def peak_training_bytes(model, batch, dtype, optimizer):
    """Bytes of parameters + gradients + optimizer state + saved activations (see the task)."""
    net = copy.deepcopy(model).to(dtype)
    X = batch.to(dtype)
    params = list(net.parameters())
    param_ptrs = {p.untyped_storage().data_ptr() for p in params}
    activations = 0

    def pack(t):
        nonlocal activations
        if t.untyped_storage().data_ptr() not in param_ptrs:
            activations += t.numel() * t.element_size()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = net(X)
    out.sum().backward()
    opt = optimizer(params)
    opt.step()
    nbytes = sum(p.numel() * p.element_size() for p in params)
    grads = sum(p.grad.numel() * p.grad.element_size() for p in params if p.grad is not None)
    state = sum(v.numel() * v.element_size() for s in opt.state.values()
                for v in s.values() if torch.is_tensor(v))
    return int(nbytes + grads + state + activations)


sgd = lambda params: torch.optim.SGD(params, lr=0.01)
adam = lambda params: torch.optim.Adam(params, lr=0.01)
for name, make in (("SGD", sgd), ("Adam", adam)):
    for dtype in (torch.float32, torch.bfloat16):
        peak = peak_training_bytes(make_mlp(), X_train[:256].clone(), dtype, make)
        print(f"{name:>4}, {str(dtype):>14}, batch 256: {peak / 1024:8.1f} KiB")
