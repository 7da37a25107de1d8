"""count as a @property over names and state set through self.__dict__; hooks copied with [*...]; one hook that looks its module's name up, torch.Size kept; inference_mode and X.split."""


# score: 12
# kind: allowed
# %% 04-counter
class Counter:
    def __init__(self):
        self.__dict__.update(names=[])

    @property
    def count(self):
        return len(self.names)

    def __call__(self, name):
        self.names.append(name)
        return self.count


greet = Counter()
for who in ("PyTorch", "GPU", "Deep Learning"):
    print(f"Hello, {who}! (call {greet(who)})")
print("callable(greet):", callable(greet), "| final count:", greet.count)
# %% 04-mini-module
class MiniModule:
    def __init__(self):
        self.__dict__["_hooks"] = []

    def forward(self, *args, **kwargs):
        raise NotImplementedError(
            "forward() must be overridden by " + self.__class__.__name__
        )

    def register_forward_hook(self, hook):
        hooks = self.__dict__["_hooks"]
        hooks.append(hook)
        return HookHandle(hooks, hook)

    def __call__(self, *args, **kwargs):
        output = self.forward(*args, **kwargs)
        for hook in [*self._hooks]:
            new_output = hook(self, args, output)
            if new_output is not None:
                output = new_output
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
    leaf_names = {
        module: name
        for name, module in model.named_modules()
        if next(module.children(), None) is None
    }

    def remember(module, args, output):
        shapes[leaf_names[module]] = output.shape  # a torch.Size is a tuple

    handles = [leaf.register_forward_hook(remember) for leaf in leaf_names]
    return shapes, handles


shapes, handles = shape_recorder(net)
net(torch.randn(16, 4))
print(shapes)
for h in handles:
    h.remove()
# %% 04-predict
def predict(model, X, batch_size=32):
    with torch.inference_mode():
        return torch.cat([model(chunk) for chunk in X.split(batch_size)])


classifier = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3)).to(device)
scores = predict(classifier, torch.randn(100, 4, device=device), batch_size=32)
print(tuple(scores.shape), scores.requires_grad, scores.device)
