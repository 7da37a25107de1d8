"""A @dataclass Counter; self.__class__ in the error and a [:] copy; functools.partial hooks returned as a list and shown with display; @torch.no_grad() on predict."""


# score: 12
# kind: allowed
# %% 04-counter
from dataclasses import dataclass, field


@dataclass
class Counter:
    """A callable that counts its calls."""

    count: int = 0
    names: list = field(default_factory=list)

    def __call__(self, name):
        self.names.append(name)
        self.count += 1
        return self.count


greet = Counter()
for who in ("PyTorch", "GPU", "Deep Learning"):
    print(f"Hello, {who}! (call {greet(who)})")
print("callable(greet):", callable(greet), "| final count:", greet.count)
# %% 04-mini-module
class MiniModule:
    def __init__(self):
        self.hooks = []

    def forward(self, *args, **kwargs):
        name = self.__class__.__name__
        raise NotImplementedError(f"forward is not defined in {name}")

    def register_forward_hook(self, hook):
        self.hooks.append(hook)
        return HookHandle(self.hooks, hook)

    def __call__(self, *args, **kwargs):
        output = self.forward(*args, **kwargs)
        for hook in self.hooks[:]:
            replaced = hook(self, args, output)
            output = output if replaced is None else replaced
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
import functools

from IPython.display import display


def _record(shapes, name, module, args, output):
    shapes[name] = tuple(output.shape)


def shape_recorder(model):
    shapes, handles = {}, []
    leaves = [(n, m) for n, m in model.named_modules() if not any(m.children())]
    for name, leaf in leaves:
        hook = functools.partial(_record, shapes, name)
        handles.append(leaf.register_forward_hook(hook))
    return [shapes, handles]


shapes, handles = shape_recorder(net)
net(torch.randn(16, 4))
display(shapes)
for h in handles:
    h.remove()
# %% 04-predict
@torch.no_grad()
def predict(model, X, batch_size=32):
    pieces = []
    start = 0
    while start < len(X):
        pieces.append(model(X[start : start + batch_size]))
        start += batch_size
    return torch.cat(pieces)


classifier = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3)).to(device)
scores = predict(classifier, torch.randn(100, 4, device=device), batch_size=32)
print(tuple(scores.shape), scores.requires_grad, scores.device)
