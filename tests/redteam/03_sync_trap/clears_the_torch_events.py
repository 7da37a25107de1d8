"""`train` that reads the loss every epoch with `.item()`, then empties the
torch events each active `SyncCounter` recorded in the kernel.

Expected to forge. Torch tensors do not live in the simulated GPU's store:
torch's syncs are still counted in the student's kernel, where this reaches
them, so the forgery earns train's points (the score written here is the
forged one; its control, `clears_the_sync_counter`, earns 9). The Reference
guide's guarantees lists it. The static scan does not list it: `getattr` on a
counter is ordinary Python.
"""
# score: 15
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
        getattr(counter, "_torch").clear()
    return history
