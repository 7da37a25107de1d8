"""Every epoch's loss copied home with .to("cpu"): one sync per epoch."""


# score: 12
# zero: 03-history-hidden-test, 03-history-test
# kind: mistake
# %% 03-history
def train_history_on_device(model, X, y, num_epochs, lr=0.1):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    losses = [None] * num_epochs
    for epoch in range(num_epochs):
        loss = nn.functional.cross_entropy(model(X), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses[epoch] = loss.detach().to("cpu")
    return torch.stack(losses)
