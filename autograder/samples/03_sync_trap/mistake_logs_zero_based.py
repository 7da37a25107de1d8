"""Logs on epoch % log_every == 0 (0-based): epochs 1, 1 + log_every, ... instead of log_every, 2 * log_every."""


# score: 13
# zero: 03-train-hidden-test
# kind: mistake
# %% 03-train
def train(model, X, y, num_epochs, log_every, lr=0.1):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    history = []
    for epoch in range(num_epochs):
        loss = nn.functional.cross_entropy(model(X), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if epoch % log_every == 0:
            history.append(loss.item())
    return history


with SyncCounter() as syncs:
    history = train(make_model(), X, y, num_epochs=100, log_every=10)
print(f"{len(history)} losses logged with {syncs.count} synchronisations")
print("first and last:", [round(v, 4) for v in (history[0], history[-1])])
