"""Records a second loss computed after optimizer.step(), not the epoch's loss."""


# score: 13
# zero: 03-history-hidden-test
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
        with torch.no_grad():  # the loss of the updated model
            losses.append(nn.functional.cross_entropy(model(X), y))
    return torch.stack(losses).cpu()


with SyncCounter() as syncs:
    all_losses = train_history_on_device(make_model(), X, y, num_epochs=100)
print(f"{len(all_losses)} losses with {syncs.count} synchronisation(s)")
