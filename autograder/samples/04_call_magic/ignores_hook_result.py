"""Hook return value ignored."""


# score: 10
# zero: 04-mini-module-hidden-test
# kind: mistake
# %% 04-mini-module
class MiniModule:
    def __init__(self):
        self._forward_hooks = []

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must define forward")

    def register_forward_hook(self, hook):
        self._forward_hooks.append(hook)
        return HookHandle(self._forward_hooks, hook)

    def __call__(self, *args, **kwargs):
        output = self.forward(*args, **kwargs)
        for hook in list(self._forward_hooks):
            hook(self, args, output)
        return output


class Doubler(MiniModule):
    def forward(self, x):
        return 2 * x
