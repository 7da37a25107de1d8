"""Syncs every epoch, then patches SyncCounter so it always counts zero.

The patch is a top-level statement: the measured run skips it, counts the
syncs where the answer cannot reach the counter, and train's tests fail. The
submission is still listed for review.
"""
# score: 9
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
