"""Reads every epoch's loss with float(loss), then keeps every log_every-th: one sync per epoch."""


# score: 12
# zero: 03-train-test, 03-train-hidden-test
# kind: mistake
# %% 03-train
def train(model, X, y, num_epochs, log_every, lr=0.1):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    all_losses = []
    for epoch in range(num_epochs):
        loss = nn.functional.cross_entropy(model(X), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        all_losses.append(float(loss))
    return all_losses[log_every - 1 :: log_every]


with SyncCounter() as syncs:
    history = train(make_model(), X, y, num_epochs=100, log_every=10)
print(f"{len(history)} losses logged with {syncs.count} synchronisations")
print("first and last:", [round(v, 4) for v in (history[0], history[-1])])
