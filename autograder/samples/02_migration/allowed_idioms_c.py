"""match/case for to_device; model.to() without reassignment; zero_grad first, F.cross_entropy, losses copied under torch.no_grad(); misplaced through a frozen dataclass of places."""

# score: 12
# kind: allowed
# %% 02-to-device
def to_device(batch, device):
    match batch:
        case torch.Tensor():
            return batch.to(device)
        case dict():
            moved = {}
            for key in batch:
                moved[key] = to_device(batch[key], device)
            return moved
        case list() | tuple():
            items = [to_device(item, device) for item in batch]
            return items if isinstance(batch, list) else tuple(items)
        case _:
            return batch


batch = {"inputs": torch.zeros(2, 4), "labels": torch.tensor([0, 1]), "ids": [7, 8]}
moved = to_device(batch, "meta")
print({k: (v.device if isinstance(v, torch.Tensor) else v) for k, v in moved.items()})
# %% 02-build-model
def build_and_move_model(device, X_train, seed=0):
    torch.manual_seed(seed)
    model = IrisMLP(mean=X_train.mean(dim=0), std=X_train.std(dim=0))
    model.to(device)  # a module moves in place: parameters and buffers
    return model


model = build_and_move_model(device, X_train)
print({name: str(b.device) for name, b in model.named_buffers()})
# %% 02-train-iris
import torch.nn.functional as F


def train_iris(model, X_train, y_train, num_epochs=300, lr=0.1):
    target = model.fc1.weight.device
    inputs = X_train.to(target)
    labels = y_train.to(target)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    history = torch.zeros(num_epochs, dtype=torch.float32, device=target)
    for epoch in range(num_epochs):
        optimizer.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(inputs), labels)
        loss.backward()
        optimizer.step()
        with torch.no_grad():
            history[epoch] = loss
    return model, history


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
from dataclasses import dataclass


@dataclass(frozen=True)
class Place:
    type: str
    index: int | None

    @classmethod
    def of(cls, device):
        device = torch.device(device)
        return cls(device.type, device.index)

    def holds(self, tensor):
        here = Place.of(tensor.device)
        return here.type == self.type and (self.index is None or here.index == self.index)


def misplaced(model, inputs, device):
    place = Place.of(device)
    found = []
    for name, tensor in [*model.named_parameters(), *model.named_buffers()]:
        if not place.holds(tensor):
            found.append(name)
    for prefix, module in model.named_modules():
        for attr in vars(module):
            value = getattr(module, attr)
            if isinstance(value, torch.Tensor) and not place.holds(value):
                found.append(f"{prefix}.{attr}".lstrip("."))
    for i, x in enumerate(inputs):
        if isinstance(x, torch.Tensor) and not place.holds(x):
            found.append(f"inputs[{i}]")
    return found
