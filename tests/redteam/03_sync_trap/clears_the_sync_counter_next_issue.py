"""`train` that reads the loss every epoch with `.item()`, then reaches the
active `SyncCounter`s by reflection (`getattr` on the class) and clears their
events before returning.

NEXT ISSUE: the counts are still taken in the student's process, where this
reaches them, so the forgery still earns train's points (the score written
here is the forged one). Moving the counters into a simulated device in
another process (the next issue) must bring this case to 9.
"""
# score: 12
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
        value = loss.item()
        if (epoch + 1) % log_every == 0:
            history.append(value)
    for counter in getattr(SyncCounter, "_active"):
        counter.events.clear()
    return history
