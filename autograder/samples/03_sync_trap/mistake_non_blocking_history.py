"""Returns the history as a non_blocking copy home that nothing has waited for: on a GPU its values are not there yet."""


# score: 12
# zero: 03-history-test, 03-history-hidden-test
# kind: mistake
# %% 03-history
def train_history_on_device(model, X, y, num_epochs, lr=0.1):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for _ in range(num_epochs):
        loss = nn.functional.cross_entropy(model(X), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    return torch.stack(losses).to("cpu", non_blocking=True)
