"""Answer cells that real students write: mistakes, and attempts to cheat.

Each constant replaces one answer cell of a lesson's reference solution; see
:mod:`autograder.samples` for which cell and what it must score.
"""

FORGETS_MPS = """
VALID_PREFERENCES = (None, "cpu", "cuda", "mps")


def pick_device(prefer=None):
    if prefer not in VALID_PREFERENCES:
        raise ValueError(f"prefer must be one of {VALID_PREFERENCES}")
    if prefer != "cpu" and torch.cuda.is_available():
        return torch.device("cuda")
    return torch.device("cpu")


device = pick_device()
"""

DECIMAL_GIGABYTES = """
REPORT_KEYS = ("device", "total_gb", "free_gb", "used_gb", "torch_allocated_gb")


def gpu_memory_report(device):
    device = torch.device(device)
    report = dict.fromkeys(REPORT_KEYS)
    if device.type != "cuda":
        report["device"] = device.type
        return report
    index = device.index or 0
    free, total = torch.cuda.mem_get_info(index)
    report.update(device=f"cuda:{index}", total_gb=round(total / 1e9, 2),
                  free_gb=round(free / 1e9, 2), used_gb=round((total - free) / 1e9, 2),
                  torch_allocated_gb=round(torch.cuda.memory_allocated(index) / 1e9, 2))
    return report
"""

RETURNS_STRING = """
VALID_PREFERENCES = (None, "cpu", "cuda", "mps")


def pick_device(prefer=None):
    return "cuda" if torch.cuda.is_available() else "cpu"


device = pick_device()
"""

FLOAT_SQRT = """
def largest_square_matrix(free_bytes, dtype=torch.float32, copies=3):
    size = torch.tensor([], dtype=dtype).element_size()
    return int((free_bytes / (copies * size)) ** 0.5)
"""

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

CONVERTS_TO_NUMPY = """
def standardize(X):
    X = np.asarray(X)
    std = X.std(axis=0)
    return ((X - X.mean(axis=0)) / np.where(std == 0, 1, std)).astype(X.dtype)


rng = np.random.default_rng(0)
sample = rng.normal(5.0, 3.0, (6, 3)).astype(np.float32)
"""

LOGS_ON_HOST = """
def fit_gd(X, y, lr=0.1, num_epochs=500):
    xp = array_module(X)
    w = xp.zeros(X.shape[1], dtype=X.dtype)
    b = 0.0
    history = []
    for _ in range(num_epochs):
        history.append(float(mse(y, predict(X, w, b))))
        dw, db = gradient(X, y, w, b)
        w = w - lr * dw
        b = b - lr * db
    return w, b, np.array(history)


w_gd, b_gd, history = fit_gd(X_train, y_train)
test_mse_gd = float(mse(y_test, predict(X_test, w_gd, b_gd)))
"""

NAIVE_SIGMOID = """
def sigmoid(z):
    return 1 / (1 + array_module(z).exp(-z))
"""

FORGETS_BIASES = """
def init_params(layer_sizes, seed=0, xp=np, dtype=np.float32):
    rng = np.random.default_rng(seed)
    params = []
    for n_in, n_out in zip(layer_sizes[:-1], layer_sizes[1:]):
        W = rng.standard_normal((n_in, n_out)) * np.sqrt(2.0 / n_in)
        params.append({"W": xp.asarray(W.astype(dtype)),
                       "b": xp.asarray(np.zeros(n_out, dtype=dtype))})
    return params


def count_params(layer_sizes):
    return sum(a * b for a, b in zip(layer_sizes[:-1], layer_sizes[1:]))
"""

FLOAT_SCALE_INIT = """
def init_params(layer_sizes, seed=0, xp=np, dtype=np.float32):
    rng = np.random.default_rng(seed)
    params = []
    for n_in, n_out in zip(layer_sizes[:-1], layer_sizes[1:]):
        W = rng.standard_normal((n_in, n_out)) * np.sqrt(1.0 / n_in)
        params.append({"W": xp.asarray(W.astype(dtype)),
                       "b": xp.asarray(np.zeros(n_out, dtype=dtype))})
    return params


def count_params(layer_sizes):
    return int(sum(i * o + o for i, o in zip(layer_sizes[:-1], layer_sizes[1:])))
"""

ASARRAY_EVERYTHING = """
def to_numpy(x):
    return np.asarray(x)
"""

MAE_WITHOUT_ABS = """
def mse(y_true, y_pred):
    return ((y_true - y_pred) ** 2).mean()


def rmse(y_true, y_pred):
    return array_module(y_true).sqrt(mse(y_true, y_pred))


def mae(y_true, y_pred):
    return (y_true - y_pred).mean()
"""

SWAPPED_PRECISION_RECALL = """
def classification_scores(y_true, proba, threshold=0.5):
    predicted = proba >= threshold
    actual = y_true == 1
    tp = float(host_copy((predicted & actual).sum()))
    pred_pos = float(host_copy(predicted.sum()))
    real_pos = float(host_copy(actual.sum()))
    return {
        "accuracy": float(host_copy((predicted == actual).mean())),
        "precision": tp / real_pos if real_pos else 0.0,
        "recall": tp / pred_pos if pred_pos else 0.0,
    }
"""

# ----------------------------------------------------------------- adversarial

PATCHES_THE_CHECKS = """
import course.checks as _cc
_cc.check_type = _cc.check_equal = lambda *a, **k: None
check_type = check_equal = _cc.check_type
VALID_PREFERENCES = (None, "cpu", "cuda", "mps")


def pick_device(prefer=None):
    return "cpu"


device = torch.device("cpu")
"""

HIDES_TRACEBACKS = """
import sys
from IPython import get_ipython
from IPython.core.interactiveshell import InteractiveShell
get_ipython().showtraceback = lambda *a, **k: None
InteractiveShell.showtraceback = lambda *a, **k: None
sys.excepthook = lambda *a: None
VALID_PREFERENCES = (None, "cpu", "cuda", "mps")


def pick_device(prefer=None):
    return "cpu"


device = torch.device("cpu")
"""

HIDES_ERRORS_WHEN_CALLED = """
VALID_PREFERENCES = (None, "cpu", "cuda", "mps")


def pick_device(prefer=None):
    from IPython.core.interactiveshell import InteractiveShell
    from ipykernel.zmqshell import ZMQInteractiveShell
    InteractiveShell.showtraceback = lambda *a, **k: None
    ZMQInteractiveShell._showtraceback = lambda *a, **k: None
    raise RuntimeError("hidden")


device = torch.device("cpu")
"""

KILLS_THE_KERNEL = """
def largest_square_matrix(free_bytes, dtype=torch.float32, copies=3):
    import os
    os._exit(0)
"""

CALLS_SYS_EXIT = """
VALID_PREFERENCES = (None, "cpu", "cuda", "mps")


def pick_device(prefer=None):
    import sys
    sys.exit(0)


device = torch.device("cpu")
"""

EQUALS_EVERYTHING = """
VALID_PREFERENCES = (None, "cpu", "cuda", "mps")


class _Yes:
    type = "cpu"

    def __eq__(self, other):
        return True

    def __bool__(self):
        return True


def pick_device(prefer=None):
    return _Yes()


device = torch.device("cpu")
"""

VISIBLE_INPUTS_ONLY = """
def largest_square_matrix(free_bytes, dtype=torch.float32, copies=3):
    return {120000: 100, 119999: 99, 0: 0, 48: 2}.get(free_bytes, 0)
"""

FLOODS_OUTPUT = """
def largest_square_matrix(free_bytes, dtype=torch.float32, copies=3):
    import math
    if free_bytes < 0 or copies < 1:
        raise ValueError("bad input")
    size = torch.tensor([], dtype=dtype).element_size()
    return math.isqrt(int(free_bytes) // (copies * size))


for _line in range(200_000):
    print("x" * 50)
"""
