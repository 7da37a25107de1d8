"""Looks for plain tensor attributes on the model itself, not in its submodules."""

# score: 10
# zero: 02-misplaced-hidden-test
# kind: mistake
# %% 02-misplaced
def misplaced(model, inputs, device):
    target = torch.device(device)

    def on_device(t):
        return t.device.type == target.type and target.index in (None, t.device.index)

    names = [n for n, p in model.named_parameters() if not on_device(p)]
    names += [n for n, b in model.named_buffers() if not on_device(b)]
    names += [attr for attr, value in vars(model).items()
              if isinstance(value, torch.Tensor) and not on_device(value)]
    names += [f"inputs[{i}]" for i, x in enumerate(inputs)
              if isinstance(x, torch.Tensor) and not on_device(x)]
    return names
