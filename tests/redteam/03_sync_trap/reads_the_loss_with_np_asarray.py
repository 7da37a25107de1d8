"""`train` that reads the loss every epoch with `np.asarray(loss.detach())`
instead of `.item()`: the same host read, through NumPy's array protocol,
which the sync counter did not count.

`__array__` is a counted read now: train's budget fails.
"""
# score: 12
# zero: 03-train-test, 03-train-hidden-test
# review: no
# %% 03-train
def train(model, X, y, num_epochs, log_every, lr=0.1):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    history = []
    for epoch in range(num_epochs):
        loss = nn.functional.cross_entropy(model(X), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        value = float(np.asarray(loss.detach()))
        if (epoch + 1) % log_every == 0:
            history.append(value)
    return history
