"""Checks the parameters and the inputs; buffers and plain attributes are missed."""

# score: 9
# zero: 02-misplaced-test, 02-misplaced-hidden-test
# kind: mistake
# %% 02-misplaced
def misplaced(model, inputs, device):
    target = torch.device(device)
    names = [n for n, p in model.named_parameters() if p.device.type != target.type]
    names += [f"inputs[{i}]" for i, x in enumerate(inputs)
              if isinstance(x, torch.Tensor) and x.device.type != target.type]
    return names
