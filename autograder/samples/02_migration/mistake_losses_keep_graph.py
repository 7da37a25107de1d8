"""Stores every epoch's loss without .detach(): the returned losses keep their graph."""


# score: 9
# zero: 02-train-iris-test, 02-train-iris-hidden-test
# kind: mistake
# %% 02-train-iris
def train_iris(model, X_train, y_train, num_epochs=300, lr=0.1):
    device = next(model.parameters()).device
    X, y = X_train.to(device), y_train.to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for _ in range(num_epochs):
        loss = nn.functional.cross_entropy(model(X), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss)
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
