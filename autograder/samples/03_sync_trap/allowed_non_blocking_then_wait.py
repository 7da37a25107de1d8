"""Queues the copy home with non_blocking=True, then waits once before returning it: full marks."""


# score: 15
# kind: allowed
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
    history = torch.stack(losses).to("cpu", non_blocking=True)
    synchronize(device)
    return history
