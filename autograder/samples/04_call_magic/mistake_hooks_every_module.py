"""Hooks every module, containers too, not only the leaves."""


# score: 9
# zero: 04-shape-recorder-test, 04-shape-recorder-hidden-test
# kind: mistake
# %% 04-shape-recorder
def shape_recorder(model):
    shapes = {}
    handles = []

    def make_hook(name):
        def hook(module, args, output):
            shapes[name] = tuple(output.shape)

        return hook

    for name, module in model.named_modules():
        handles.append(module.register_forward_hook(make_hook(name)))
    return shapes, handles


shapes, handles = shape_recorder(net)
net(torch.randn(16, 4))
print(shapes)
for h in handles:
    h.remove()
