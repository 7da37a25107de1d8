"""Plain classes; hooks iterated over list(...); a hook factory per leaf name; torch.no_grad() around the batches."""


# score: 12
# kind: allowed
# %% 04-counter
class Counter:
    """A callable that counts its calls."""

    def __init__(self):
        self.count = 0
        self.names = []

    def __call__(self, name):
        self.count += 1
        self.names.append(name)
        return self.count


greet = Counter()
for who in ("PyTorch", "GPU", "Deep Learning"):
    print(f"Hello, {who}! (call {greet(who)})")
print("callable(greet):", callable(greet), "| final count:", greet.count)
# %% 04-mini-module
class MiniModule:
    """A tiny nn.Module."""

    def __init__(self):
        self._forward_hooks = []

    def forward(self, *args, **kwargs):
        raise NotImplementedError(
            f"{type(self).__name__} has no forward method: define forward in the subclass"
        )

    def register_forward_hook(self, hook):
        self._forward_hooks.append(hook)
        return HookHandle(self._forward_hooks, hook)

    def __call__(self, *args, **kwargs):
        output = self.forward(*args, **kwargs)
        for hook in list(self._forward_hooks):  # a copy: a hook may remove itself
            result = hook(self, args, output)
            if result is not None:
                output = result
        return output


class Doubler(MiniModule):
    def forward(self, x):
        return 2 * x


class Shifter(MiniModule):
    """scale * x + shift: a forward that takes a keyword argument."""

    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x, shift=0):
        return self.scale * x + shift


class NoForward(MiniModule):
    """A subclass that forgets to define forward: calling it must fail."""


doubler = Doubler()
log_handle = doubler.register_forward_hook(
    lambda module, args, output: print(f"hook: {type(module).__name__}{args} -> "
                                       f"{output}")
)
print("doubler(21) =", doubler(21))
log_handle.remove()
print("after remove, doubler(4) =", doubler(4))
# %% 04-shape-recorder
def shape_recorder(model):
    shapes = {}
    handles = []

    def make_hook(name):
        def hook(module, args, output):
            shapes[name] = tuple(output.shape)

        return hook

    for name, module in model.named_modules():
        if len(list(module.children())) == 0:
            handles.append(module.register_forward_hook(make_hook(name)))
    return shapes, handles


shapes, handles = shape_recorder(net)
net(torch.randn(16, 4))
print(shapes)
for h in handles:
    h.remove()
# %% 04-predict
def predict(model, X, batch_size=32):
    outputs = []
    with torch.no_grad():
        for i in range(0, len(X), batch_size):
            outputs.append(model(X[i : i + batch_size]))
    return torch.cat(outputs)


classifier = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3)).to(device)
scores = predict(classifier, torch.randn(100, 4, device=device), batch_size=32)
print(tuple(scores.shape), scores.requires_grad, scores.device)
