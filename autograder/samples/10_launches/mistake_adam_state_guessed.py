"""peak_training_bytes guesses the optimizer state from its name (Adam: two buffers per parameter, anything else: none) instead of reading optimizer.state: it misses Adam's step counters and SGD's momentum buffers."""


# score: 7
# zero: 10-memory-hidden-test
# kind: mistake
# %% 10-memory
def peak_training_bytes(model, batch, dtype, optimizer):
    """Bytes of parameters + gradients + optimizer state + saved activations (see the task)."""
    net = copy.deepcopy(model).to(dtype)
    X = batch.to(dtype)
    params = list(net.parameters())
    param_ptrs = {p.untyped_storage().data_ptr() for p in params}
    saved = {}

    def pack(t):
        s = t.untyped_storage()
        if s.data_ptr() not in param_ptrs:
            saved[s.data_ptr()] = s.nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = net(X)
    out.sum().backward()
    opt = optimizer(params)
    opt.step()
    param_bytes = sum(p.numel() * p.element_size() for p in params)
    grad_bytes = sum(p.grad.numel() * p.grad.element_size() for p in params
                     if p.grad is not None)
    state_bytes = 2 * grad_bytes if isinstance(opt, torch.optim.Adam) else 0
    return int(param_bytes + grad_bytes + state_bytes + sum(saved.values()))


sgd = lambda params: torch.optim.SGD(params, lr=0.01)
adam = lambda params: torch.optim.Adam(params, lr=0.01)
for name, make in (("SGD", sgd), ("Adam", adam)):
    for dtype in (torch.float32, torch.bfloat16):
        peak = peak_training_bytes(make_mlp(), X_train[:256].clone(), dtype, make)
        print(f"{name:>4}, {str(dtype):>14}, batch 256: {peak / 1024:8.1f} KiB")
