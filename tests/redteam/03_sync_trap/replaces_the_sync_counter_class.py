"""A naive ``train`` (``.item()`` every epoch) that assigns a subclass of
``SyncCounter`` whose ``torch_events`` and ``timeline`` are empty to
``course.sync.SyncCounter``: three lines anyone can share.

The referee built its counter from the class that name held when the test
ran, so it read nothing and the loop earned train's points (12: the masked
tests, which count with the same class, failed instead). It now uses the class
bound before the notebook ran, puts the course's names back before each of
the test's requests, and reads the counter's own record as data: the budget
fails as it does without the trick.
"""
# score: 12
# zero: 03-train-test, 03-train-hidden-test
# review: yes
# %% 03-train
import course.sync


class _Quiet(course.sync.SyncCounter):
    torch_events = property(lambda self: [])
    timeline = property(lambda self: [])


course.sync.SyncCounter = _Quiet


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
    return history
