"""Plain recursion for to_device; .to() returned; train_iris collects detached losses and stacks them; misplaced with one helper and four lists."""

# score: 12
# kind: allowed
# %% 02-to-device
def to_device(batch, device):
    """Return a copy of `batch` with every tensor moved to `device`."""
    if isinstance(batch, torch.Tensor):
        return batch.to(device)
    if isinstance(batch, dict):
        return {key: to_device(value, device) for key, value in batch.items()}
    if isinstance(batch, list):
        return [to_device(item, device) for item in batch]
    if isinstance(batch, tuple):
        return tuple(to_device(item, device) for item in batch)
    return batch


batch = {"inputs": torch.zeros(2, 4), "labels": torch.tensor([0, 1]), "ids": [7, 8]}
moved = to_device(batch, "meta")
print({k: (v.device if isinstance(v, torch.Tensor) else v) for k, v in moved.items()})
# %% 02-build-model
def build_and_move_model(device, X_train, seed=0):
    mean = X_train.mean(dim=0)
    std = X_train.std(dim=0)
    torch.manual_seed(seed)
    model = IrisMLP(mean, std)
    return model.to(device)


model = build_and_move_model(device, X_train)
print({name: str(b.device) for name, b in model.named_buffers()})
# %% 02-train-iris
def train_iris(model, X_train, y_train, num_epochs=300, lr=0.1):
    device = next(model.parameters()).device
    X = X_train.to(device)
    y = y_train.to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for epoch in range(num_epochs):
        logits = model(X)
        loss = nn.functional.cross_entropy(logits, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    return model, torch.stack(losses)


def fresh_model(device, seed=0):
    """A new IrisMLP for X_train on `device` (independent of Task 2.2)."""
    torch.manual_seed(seed)
    return IrisMLP(X_train.mean(dim=0), X_train.std(dim=0)).to(device)


def accuracy(model, X, y):
    """Fraction of rows of X whose predicted class equals y (a Python float)."""
    with torch.no_grad():
        predicted = model(X.to(next(model.parameters()).device)).argmax(dim=1)
    return (predicted.cpu() == y.cpu()).float().mean().item()


model, losses = train_iris(fresh_model(device), X_train, y_train)
print(f"final loss {losses[-1].item():.4f}; test accuracy "
      f"{accuracy(model, X_test, y_test):.1%} on {device}")
plot_loss(losses.cpu(), title=f"Iris MLP on {device}")
show("02_iris_loss")
# %% 02-misplaced
def misplaced(model, inputs, device):
    """The reference's plan: one on_device helper, four lists."""
    target = torch.device(device)

    def on_device(t):
        return t.device.type == target.type and target.index in (None, t.device.index)

    names = [n for n, p in model.named_parameters() if not on_device(p)]
    names += [n for n, b in model.named_buffers() if not on_device(b)]
    for prefix, module in model.named_modules():
        for attr, value in vars(module).items():
            if torch.is_tensor(value) and not on_device(value):
                names.append(f"{prefix}.{attr}" if prefix else attr)
    names += [f"inputs[{i}]" for i, x in enumerate(inputs)
              if torch.is_tensor(x) and not on_device(x)]
    return names


print(misplaced(shifted, (torch.ones(2, 4, device="meta"),), "meta"))
