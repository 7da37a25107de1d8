"""Labels left on the CPU."""


# score: 9
# zero: 02-train-iris-hidden-test, 02-train-iris-test
# kind: mistake
# %% 02-train-iris
def train_iris(model, X_train, y_train, num_epochs=300, lr=0.1):
    X = X_train.to(next(model.parameters()).device)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for _ in range(num_epochs):
        loss = nn.functional.cross_entropy(model(X), y_train)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    return model, torch.stack(losses)


def fresh_model(device, seed=0):
    torch.manual_seed(seed)
    return IrisMLP(X_train.mean(dim=0), X_train.std(dim=0)).to(device)


def accuracy(model, X, y):
    with torch.no_grad():
        predicted = model(X.to(next(model.parameters()).device)).argmax(dim=1)
    return (predicted.cpu() == y.cpu()).float().mean().item()
