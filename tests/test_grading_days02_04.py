"""Days 02-04 through nbgrader autograde: exact points for realistic mistakes.

Each case replaces some answer cells of the reference solution with code a student
might really write, and states which test cells must lose their points. Every
other test cell must keep full points, so a mistake costs exactly what it should.
"""

from __future__ import annotations

import pytest

from tests.lesson_helpers import check_exact_scores

FORGETS_LABELS = """
def train_iris(model, X_train, y_train, num_epochs=300, lr=0.1):
    X = X_train.to(next(model.parameters()).device)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for _ in range(num_epochs):
        loss = nn.functional.cross_entropy(model(X), y_train)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    return model, torch.stack(losses)


def fresh_model(device, seed=0):
    torch.manual_seed(seed)
    return IrisMLP(X_train.mean(dim=0), X_train.std(dim=0)).to(device)


def accuracy(model, X, y):
    with torch.no_grad():
        predicted = model(X.to(next(model.parameters()).device)).argmax(dim=1)
    return (predicted.cpu() == y.cpu()).float().mean().item()
"""

MOVES_PARAMETERS_ONLY = """
def build_and_move_model(device, X_train, seed=0):
    torch.manual_seed(seed)
    model = IrisMLP(X_train.mean(dim=0), X_train.std(dim=0))
    for p in model.parameters():
        p.data = p.data.to(device)
    return model


model = build_and_move_model(device, X_train)
"""

ITEM_EVERY_EPOCH = """
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


history = train(make_model(), X, y, num_epochs=100, log_every=10)
"""

CLOCK_WITHOUT_SYNC = """
def timed(fn, device, repeat=5, warmup=1):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return {"times": times, "median": float(np.median(times)),
            "spread": float(np.percentile(times, 75) - np.percentile(times, 25))}


class RecordingDevice:
    def __init__(self, log):
        self.log = log

    def synchronize(self):
        self.log.append("sync")
"""

CALLS_FORWARD = """
def predict(model, X, batch_size=32):
    with torch.no_grad():
        outputs = [model.forward(X[i:i + batch_size])
                   for i in range(0, len(X), batch_size)]
    return torch.cat(outputs)


classifier = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3)).to(device)
"""

IGNORES_HOOK_RESULT = """
class MiniModule:
    def __init__(self):
        self._forward_hooks = []

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must define forward")

    def register_forward_hook(self, hook):
        self._forward_hooks.append(hook)
        return HookHandle(self._forward_hooks, hook)

    def __call__(self, *args, **kwargs):
        output = self.forward(*args, **kwargs)
        for hook in list(self._forward_hooks):
            hook(self, args, output)
        return output


class Doubler(MiniModule):
    def forward(self, x):
        return 2 * x
"""

# lesson -> student -> (answers, test cells that must score zero)
CASES = {
    "02_migration": {
        "forgets-labels": (
            {"02-train-iris": FORGETS_LABELS},
            {"02-train-iris-hidden-test"},
        ),
        "moves-parameters-only": (
            {"02-build-model": MOVES_PARAMETERS_ONLY},
            {"02-build-model-test", "02-build-model-hidden-test"},
        ),
    },
    "03_sync_trap": {
        "item-every-epoch": (
            {"03-train": ITEM_EVERY_EPOCH},
            {"03-train-test", "03-train-hidden-test"},
        ),
        "clock-without-sync": (
            {"03-timed": CLOCK_WITHOUT_SYNC},
            {"03-timed-test", "03-timed-hidden-test"},
        ),
    },
    "04_call_magic": {
        "calls-forward": (
            {"04-predict": CALLS_FORWARD},
            {"04-predict-test", "04-predict-hidden-test"},
        ),
        "ignores-hook-result": (
            {"04-mini-module": IGNORES_HOOK_RESULT},
            {"04-mini-module-hidden-test"},
        ),
    },
}


@pytest.mark.slow
@pytest.mark.parametrize("lesson", sorted(CASES))
def test_reference_blank_and_mistakes_score_exactly(lesson, tmp_path):
    check_exact_scores(lesson, CASES[lesson], tmp_path)
