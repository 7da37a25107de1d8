"""Written from the notebook's text: misplaced walks the modules itself, recursively, with named_children, and checks each module's own tensors."""

# score: 12
# kind: allowed
# %% 02-misplaced
def misplaced(model, inputs, device):
    want = torch.device(device)

    def wrong(t):
        return t.device.type != want.type or (
            want.index is not None and t.device.index != want.index
        )

    params = [n for n, p in model.named_parameters() if wrong(p)]
    buffers = [n for n, b in model.named_buffers() if wrong(b)]
    attributes = []

    def walk(module, prefix):
        for attr, value in module.__dict__.items():
            if isinstance(value, torch.Tensor) and wrong(value):
                attributes.append(prefix + attr)
        for child_name, child in module.named_children():
            walk(child, f"{prefix}{child_name}.")

    walk(model, "")
    found = [f"inputs[{i}]" for i, x in enumerate(inputs)
             if isinstance(x, torch.Tensor) and wrong(x)]
    return params + buffers + attributes + found
