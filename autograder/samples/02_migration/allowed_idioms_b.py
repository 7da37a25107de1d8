"""torch.utils._pytree.tree_map for to_device; std written out by hand; losses in a preallocated device tensor, returned as a list; misplaced as one chain of generators."""

# score: 12
# kind: allowed
# %% 02-to-device
import torch.utils._pytree as pytree


def to_device(batch, device):
    """Every tensor in the (nested) batch moved; pytree keeps the structure."""

    def move(leaf):
        return leaf.to(device) if isinstance(leaf, torch.Tensor) else leaf

    return pytree.tree_map(move, batch)


batch = {"inputs": torch.zeros(2, 4), "labels": torch.tensor([0, 1]), "ids": [7, 8]}
moved = to_device(batch, "meta")
print({k: (v.device if isinstance(v, torch.Tensor) else v) for k, v in moved.items()})
# %% 02-build-model
def build_and_move_model(device, X_train, seed=0):
    n = X_train.shape[0]
    mean = X_train.sum(dim=0) / n
    # sample standard deviation (n - 1), as Tensor.std computes it
    std = (((X_train - mean) ** 2).sum(dim=0) / (n - 1)).sqrt()
    torch.manual_seed(seed)
    return IrisMLP(mean, std).to(torch.device(device))


model = build_and_move_model(device, X_train)
print({name: str(b.device) for name, b in model.named_buffers()})
# %% 02-train-iris
def train_iris(model, X_train, y_train, num_epochs=300, lr=0.1):
    where = next(model.parameters()).device
    X, y = X_train.to(where), y_train.to(where)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    losses = torch.empty(num_epochs, device=where)
    for epoch in range(num_epochs):
        loss = nn.functional.cross_entropy(model(X), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses[epoch] = loss.detach()  # stays on the device, no graph
    return [model, losses]


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
import itertools


def misplaced(model, inputs, device):
    """Generators chained together; devices compared with ==."""
    target = torch.device(device)

    def elsewhere(tensor):
        if target.index is None:
            return tensor.device.type != target.type
        return tensor.device != target

    attributes = (
        (".".join(filter(None, (prefix, attr))), value)
        for prefix, module in model.named_modules()
        for attr, value in module.__dict__.items()
        if isinstance(value, torch.Tensor)
    )
    named_inputs = (
        (f"inputs[{i}]", x) for i, x in enumerate(inputs) if isinstance(x, torch.Tensor)
    )
    everything = itertools.chain(
        model.named_parameters(), model.named_buffers(), attributes, named_inputs
    )
    return [name for name, tensor in everything if elsewhere(tensor)]
