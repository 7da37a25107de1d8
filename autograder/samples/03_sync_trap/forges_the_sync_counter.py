"""Syncs every epoch, then patches SyncCounter so it always counts zero.

The tests' `SyncCounter` is the referee's: it reads the kernel's torch events
as data, never the kernel's `count`, so the patch changes nothing and the
budget fails. The submission is listed for review.
"""
# score: 12
# zero: 03-train-test, 03-train-hidden-test
# kind: adversarial
# review: yes
# %% 03-train
import course.sync
course.sync.SyncCounter.count = property(lambda self: 0, lambda self, v: None)


def train(model, X, y, num_epochs, log_every, lr=0.1):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    history = []
    for epoch in range(num_epochs):
        loss = nn.functional.cross_entropy(model(X), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        value = loss.item()  # a sync every epoch
        if (epoch + 1) % log_every == 0:
            history.append(value)
    return history
