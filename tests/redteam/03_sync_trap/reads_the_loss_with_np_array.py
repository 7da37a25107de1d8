"""`train` that reads the loss every epoch with `np.array(loss.detach())`
(a copy through NumPy's array protocol, where the sync counter once saw
nothing).

`np.array` of a tensor is a counted read now: train's budget fails.
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
        value = float(np.array(loss.detach()))
        if (epoch + 1) % log_every == 0:
            history.append(value)
    return history
