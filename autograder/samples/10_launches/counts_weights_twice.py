"""Counts the weights autograd saves as activations too (they are parameters)."""


# score: 6
# zero: 10-memory-test, 10-memory-hidden-test
# kind: mistake
# %% 10-memory
def peak_training_bytes(model, batch, dtype, optimizer):
    model = copy.deepcopy(model).to(dtype)
    X = batch.to(dtype)
    params = list(model.parameters())
    nbytes = sum(2 * p.numel() * p.element_size() for p in params)
    saved = {}

    def pack(t):
        saved[t.untyped_storage().data_ptr()] = t.untyped_storage().nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = model(X)
    out.sum().backward()
    opt = optimizer(params)
    opt.step()
    state = sum(v.numel() * v.element_size() for s in opt.state.values()
                for v in s.values() if torch.is_tensor(v))
    return int(nbytes + state + sum(saved.values()))
