"""Syncs every epoch, then patches SyncCounter so it always counts zero.

NEXT ISSUE: the counts are still taken in the student's own process, where
this patch reaches them, so the forgery earns train's points (the score
written here is the forged one). Counting syncs in a simulated device in
another process (the next issue) must bring this sample to 9. The submission
is listed for review.
"""
# score: 12
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
