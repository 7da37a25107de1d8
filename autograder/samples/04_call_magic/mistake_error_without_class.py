"""The base forward's error does not name the subclass."""


# score: 10
# zero: 04-mini-module-hidden-test
# kind: mistake
# %% 04-mini-module
class MiniModule:
    def __init__(self):
        self._forward_hooks = []

    def forward(self, *args, **kwargs):
        raise NotImplementedError("forward is not implemented")

    def register_forward_hook(self, hook):
        self._forward_hooks.append(hook)
        return HookHandle(self._forward_hooks, hook)

    def __call__(self, *args, **kwargs):
        output = self.forward(*args, **kwargs)
        for hook in list(self._forward_hooks):
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
