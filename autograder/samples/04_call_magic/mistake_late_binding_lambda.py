"""Lambdas made in the loop all see the last name (the late-binding trap)."""


# score: 9
# zero: 04-shape-recorder-test, 04-shape-recorder-hidden-test
# kind: mistake
# %% 04-shape-recorder
def shape_recorder(model):
    shapes = {}
    handles = []
    for name, module in model.named_modules():
        if len(list(module.children())) == 0:
            handles.append(module.register_forward_hook(
                lambda m, args, output: shapes.update({name: tuple(output.shape)})
            ))
    return shapes, handles


shapes, handles = shape_recorder(net)
net(torch.randn(16, 4))
print(shapes)
for h in handles:
    h.remove()
