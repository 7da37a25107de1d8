"""Loss.item() every epoch."""


# score: 12
# zero: 03-train-hidden-test, 03-train-test
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
        value = loss.item()
        if (epoch + 1) % log_every == 0:
            history.append(value)
    return history


history = train(make_model(), X, y, num_epochs=100, log_every=10)
