# %% [markdown]
# # Day 04 - The `__call__` magic method
#
# Every PyTorch model is used as `model(x)`, yet the computation lives in a method
# called `forward`. What happens in between is Python's `__call__` magic method,
# and PyTorch uses it to run *hooks* around `forward`: small functions that can
# watch or change what a layer computes. Calling `model.forward(x)` directly skips
# them, which silently breaks tools built on hooks.
#
# **Learning objectives.** By the end of this notebook you can
#
# - tell `__init__` (runs once, when the object is made) from `__call__` (runs
#   every time the object is called like a function);
# - make your own callable objects and check callability with `callable()`;
# - build a tiny `Module` base class with `forward`, `__call__` and forward hooks;
# - use PyTorch forward hooks to record every layer's output shape;
# - explain why `model(x)` is right and `model.forward(x)` is a bug.
#
# **Time.** About 20 minutes of reading and 40 minutes of exercises (4 tasks).
#
# **How your work is checked.** Each task has a *visible* test right below it:
# run it, and a failure says what to fix. Grading (and `course check
# 04_call_magic.ipynb`, which grades your own copy) also runs *hidden* tests, which
# compare your function with a reference answer on more inputs; a failed one
# says what differs, without the reference's values. Passing the visible test
# is a good sign, not a guarantee.

# %%
import time

import numpy as np
import torch
from torch import nn

from course.checks import check_equal, check_that, check_type
from course.devices import pick_device
from course.timing import synchronize

device = pick_device()
print(f"Running on {device}; torch {torch.__version__}")

# %% [markdown]
# ## 1. Objects you can call
#
# `obj(arguments)` is Python's shorthand for `type(obj).__call__(obj, arguments)`.
# Functions have a `__call__`, classes have one (calling a class creates an
# object, running `__init__`), and any class can define one for its objects.

# %%
for thing in (len, print, int, 3, "text", torch.relu, nn.Linear(2, 2)):
    print(f"callable({thing!r:.40}) = {callable(thing)}")

# %% [markdown]
# ### Task 4.1 - `Counter`
#
# A counter remembers how often it was called: state that a plain function would
# have to keep in a global variable.

# %% nbgrader={"grade_id": "04-counter", "solution": true}
class Counter:
    """A callable that counts its calls.

    Counter() starts with .count == 0 and .names == [].
    counter(name) adds 1 to .count, appends name to .names, and returns the new
    count (an int). Each Counter object counts only its own calls.
    """

    # Hint: __init__ sets the starting state; __call__ updates it.
    ### BEGIN SOLUTION
    def __init__(self):
        self.count = 0
        self.names = []

    def __call__(self, name):
        self.count += 1
        self.names.append(name)
        return self.count
    ### END SOLUTION


greet = Counter()
for who in ("PyTorch", "GPU", "Deep Learning"):
    print(f"Hello, {who}! (call {greet(who)})")
print("callable(greet):", callable(greet), "| final count:", greet.count)

# %% nbgrader={"grade": true, "grade_id": "04-counter-test", "points": 1}
"""Counter starts at zero, counts calls and returns the new count."""
c = Counter()
check_equal(c.count, 0, "Counter().count")
check_equal(c("a"), 1, 'first call c("a")')
check_equal(c("b"), 2, 'second call c("b")')
check_equal(c.names, ["a", "b"], "c.names")
check_that(callable(c), "a Counter object must be callable: define __call__")
print("Visible tests passed.")

# %% nbgrader={"grade": true, "grade_id": "04-counter-hidden-test", "points": 2}
"""Counter objects are independent and count every call (hidden)."""
check_type(Counter().count, int, "Counter().count")
### BEGIN HIDDEN TESTS
from course.results import submit

_rng = np.random.default_rng(4)
_counters = [Counter() for _ in range(3)]
_got = {"results of 30 calls": []}
for _step in range(30):
    _i = int(_rng.integers(0, 3))
    _got["results of 30 calls"].append(_counters[_i](f"n{_step}"))
_got["counts"] = [_c.count for _c in _counters]
_got["names"] = [list(_c.names) for _c in _counters]
_got["count of a new Counter after others were used"] = Counter().count
submit(_got)
### END HIDDEN TESTS

# %% [markdown]
# ## 2. Why `model(x)` and not `model.forward(x)`?
#
# `nn.Module.__call__` does more than call `forward`: it runs *forward pre-hooks*
# before it and *forward hooks* after it. Pruning (`torch.nn.utils.prune` registers
# a forward pre-hook), the observers of eager-mode quantisation and many feature
# extractors work through hooks. (`torch.profiler` does not: it records the
# operators themselves, so it still sees a direct `forward` call.) Watch a hook
# run, then not run:

# %%
net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
seen = []
handle = net[0].register_forward_hook(
    lambda module, args, output: seen.append(tuple(output.shape))
)
x = torch.randn(5, 4)
net(x)
print("after net(x):          hook saw", seen)
net[0].forward(x)
print("after net[0].forward(x): hook saw", seen, "- nothing new: hooks skipped")
handle.remove()

# %% [markdown]
# ### Task 4.2 - `MiniModule`
#
# Build the heart of `nn.Module` yourself: a base class whose subclasses define
# `forward`, whose objects are called like functions, and which runs forward hooks
# after `forward`. `HookHandle` (given) lets a caller remove its hook again.

# %%
class HookHandle:
    """Removes one hook from a hook list; removing twice is harmless."""

    def __init__(self, hooks, hook):
        self.hooks = hooks
        self.hook = hook

    def remove(self):
        if self.hook in self.hooks:
            self.hooks.remove(self.hook)


# %% nbgrader={"grade_id": "04-mini-module", "solution": true}
class MiniModule:
    """A tiny nn.Module: subclasses define forward; objects are called.

    - __init__(self): start with an empty list of forward hooks.
    - forward(self, *args, **kwargs): in this base class, raise
      NotImplementedError with a message that contains the word "forward" and
      the subclass's name, type(self).__name__.
    - register_forward_hook(self, hook): add hook to the end of the list and
      return HookHandle(the list, hook).
    - __call__(self, *args, **kwargs): output = self.forward(*args, **kwargs);
      then, in registration order, result = hook(self, args, output) for every
      hook; a result that is not None replaces output. Return output.
    """

    # Hint: iterate over a copy of the hook list (a hook may remove itself).
    ### BEGIN SOLUTION
    def __init__(self):
        self._forward_hooks = []

    def forward(self, *args, **kwargs):
        raise NotImplementedError(
            f"{type(self).__name__} must define forward(...) to be called"
        )

    def register_forward_hook(self, hook):
        self._forward_hooks.append(hook)
        return HookHandle(self._forward_hooks, hook)

    def __call__(self, *args, **kwargs):
        output = self.forward(*args, **kwargs)
        for hook in list(self._forward_hooks):
            result = hook(self, args, output)
            if result is not None:
                output = result
        return output
    ### END SOLUTION


class Doubler(MiniModule):
    def forward(self, x):
        return 2 * x


class Shifter(MiniModule):
    """scale * x + shift: a forward that takes a keyword argument."""

    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x, shift=0):
        return self.scale * x + shift


class NoForward(MiniModule):
    """A subclass that forgets to define forward: calling it must fail."""


doubler = Doubler()
log_handle = doubler.register_forward_hook(
    lambda module, args, output: print(f"hook: {type(module).__name__}{args} -> "
                                       f"{output}")
)
print("doubler(21) =", doubler(21))
log_handle.remove()
print("after remove, doubler(4) =", doubler(4))

# %% nbgrader={"grade": true, "grade_id": "04-mini-module-test", "points": 1}
"""MiniModule calls forward, runs a hook, and the hook can be removed."""
d = Doubler()
check_equal(d(5), 10, "Doubler()(5)")
calls = []
h = d.register_forward_hook(lambda m, args, out: calls.append((args, out)))
d(3)
check_equal(calls, [((3,), 6)], "what the hook received")
h.remove()
d(3)
check_equal(len(calls), 1, "hook calls after remove()")
print("Visible tests passed.")

# %% nbgrader={"grade": true, "grade_id": "04-mini-module-hidden-test", "points": 2}
"""MiniModule: hook order, output replacement, kwargs, base forward error (hidden)."""
check_equal(Doubler()(1), 2, "Doubler()(1)")
### BEGIN HIDDEN TESTS
from course.results import outcome, submit

_got = {}
_m = Shifter(3)
_order = []
_h1 = _m.register_forward_hook(lambda m, a, o: _order.append(("first", a, o)))
_h2 = _m.register_forward_hook(lambda m, a, o: o + 100)
_h3 = _m.register_forward_hook(lambda m, a, o: _order.append(("third", a, o)))
_got["output after a hook that returns o + 100"] = _m(2, shift=1)
_got["hook order and args"] = list(_order)
_got["register_forward_hook(...) returns a HookHandle"] = isinstance(_h2, HookHandle)
_got["a second instance must not share hooks"] = Shifter(1)(5)
_h2.remove()
_h2.remove()
_got["output after removing the replacing hook (twice)"] = _m(2)
_got["forward called directly"] = _m.forward(2)
_got["hooks run so far (forward called directly must not run them)"] = len(_order)


def _self_removing(m, a, o):
    _handles["self"].remove()
    return o * 10


_after = []
_handles = {"self": _m.register_forward_hook(_self_removing)}
_m.register_forward_hook(lambda m, a, o: _after.append(o))
_got["a hook that removes itself still counts once"] = _m(1)
_got["then it is gone"] = _m(1)
_got["the hook after a self-removing one still runs (iterate over a copy)"] = (
    list(_after))
_error = outcome(NoForward(), 1)
_got["calling a MiniModule without forward"] = _error
_got["the error names forward and the class"] = (
    "forward" in str(getattr(_error, "message", ""))
    and "NoForward" in str(getattr(_error, "message", "")))
submit(_got)
### END HIDDEN TESTS

# %% [markdown]
# ## 3. Hooks on a real model
#
# PyTorch's `register_forward_hook` works like yours: `hook(module, args, output)`
# after every call, and a handle with `.remove()`. `model.named_modules()` lists a
# model and all its submodules with dotted names; the *leaves* (modules without
# children: `Linear`, `ReLU`...) are where the computation happens.
#
# ### Task 4.3 - `shape_recorder`

# %% nbgrader={"grade_id": "04-shape-recorder", "solution": true}
def shape_recorder(model):
    """Record the output shape of every leaf module of `model`.

    Args:
        model: an nn.Module.

    Returns:
        the pair (shapes, handles), as a tuple or a list: shapes is a dict,
        empty at first, in which every
        forward call of a leaf module (a module with no children) stores
        shapes[name] = tuple(output.shape), name as given by
        model.named_modules(); handles is a list of the hook handles, one per leaf
        module, so the caller can remove them all.
    """
    # Hint: a function that makes the hook for one name avoids the late-binding
    # trap of lambdas created in a loop.
    ### BEGIN SOLUTION
    shapes = {}
    handles = []

    def make_hook(name):
        def hook(module, args, output):
            shapes[name] = tuple(output.shape)
        return hook

    for name, module in model.named_modules():
        if len(list(module.children())) == 0:
            handles.append(module.register_forward_hook(make_hook(name)))
    return shapes, handles
    ### END SOLUTION


shapes, handles = shape_recorder(net)
net(torch.randn(16, 4))
print(shapes)
for h in handles:
    h.remove()

# %% nbgrader={"grade": true, "grade_id": "04-shape-recorder-test", "points": 1}
"""shape_recorder records each layer of a small Sequential model."""
seq = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
rec, hs = shape_recorder(seq)
check_type(rec, dict, "shapes")
check_equal(rec, {}, "shapes before any forward call")
seq(torch.zeros(5, 4))
check_equal(rec, {"0": (5, 8), "1": (5, 8), "2": (5, 3)}, "shapes after seq(x)")
check_equal(len(hs), 3, "number of handles")
print("Visible tests passed.")

# %% nbgrader={"grade": true, "grade_id": "04-shape-recorder-hidden-test", "points": 2}
"""shape_recorder on nested models, many batch sizes, and removal (hidden)."""
check_type(shape_recorder(nn.Linear(2, 2)), (tuple, list), "shape_recorder(...)")
### BEGIN HIDDEN TESTS
from course.results import submit

_got = {}
_model = nn.Sequential(
    nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Sequential(nn.Linear(16, 4),
                                                             nn.ReLU())),
    nn.Linear(4, 2),
)
for _batch in (1, 3, 17):
    _x = torch.randn(_batch, 6)
    _rec, _hs = shape_recorder(_model)
    _model(_x)
    _got[f"shapes for batch {_batch}"] = dict(_rec)
    _got[f"handles for batch {_batch} (one per leaf module)"] = len(_hs)
    for _h in _hs:
        _h.remove()
    _rec.clear()
    _model(_x)
    _got[f"shapes after removing every handle (batch {_batch})"] = dict(_rec)
_single = nn.Linear(3, 5)
_rec, _hs = shape_recorder(_single)
_single(torch.zeros(2, 3))
_got["a model that is itself a leaf"] = dict(_rec)
submit(_got)
### END HIDDEN TESTS

# %% [markdown]
# ## 4. Call the model, not `forward`
#
# Hooks only run through `__call__`. A prediction helper that calls
# `model.forward(batch)` gives the same numbers today, and silently disables every
# hook-based tool tomorrow.
#
# ### Task 4.4 - `predict`

# %% nbgrader={"grade_id": "04-predict", "solution": true}
def predict(model, X, batch_size=32):
    """Run `model` on X in batches and return all outputs, without gradients.

    Args:
        model: an nn.Module; X: a tensor (n, ...) on the model's device;
        batch_size: rows per call (the last batch may be smaller).

    Returns:
        torch.cat of the outputs of model(X[i:i + batch_size]) for
        i = 0, batch_size, 2 * batch_size, ..., computed under torch.no_grad().
        Call the model itself, so its hooks run once per batch.
    """
    # Hint: range(0, len(X), batch_size).
    ### BEGIN SOLUTION
    with torch.no_grad():
        outputs = [model(X[i:i + batch_size]) for i in range(0, len(X), batch_size)]
    return torch.cat(outputs)
    ### END SOLUTION


classifier = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3)).to(device)
scores = predict(classifier, torch.randn(100, 4, device=device), batch_size=32)
print(tuple(scores.shape), scores.requires_grad, scores.device)

# %% nbgrader={"grade": true, "grade_id": "04-predict-test", "points": 1}
"""predict returns the right shape without gradients and calls the model."""
batches = []


def record_batch(module, args, output):
    # returns None, so the output is left alone
    batches.append((len(args[0]), output.requires_grad))


hook = classifier.register_forward_hook(record_batch)
out = predict(classifier, torch.randn(10, 4, device=device), batch_size=4)
hook.remove()
check_type(out, torch.Tensor, "predict(...)")
check_equal(tuple(out.shape), (10, 3), "predict(...).shape")
check_equal(out.requires_grad, False, "predict(...).requires_grad")
check_equal([size for size, _ in batches], [4, 4, 2],
            "batch sizes the model was called with (10 rows in batches of 4)")
check_equal([grad for _, grad in batches], [False, False, False],
            "whether each batch's output tracked gradients (use torch.no_grad())")
print("Visible tests passed.")

# %% nbgrader={"grade": true, "grade_id": "04-predict-hidden-test", "points": 2}
"""predict matches the reference for many sizes, and hooks run per batch (hidden)."""
check_type(predict(classifier, torch.zeros(1, 4, device=device)), torch.Tensor,
           "predict(...)")
### BEGIN HIDDEN TESTS
from course.results import Approx, submit

torch.manual_seed(0)
_net = nn.Sequential(nn.Linear(5, 7), nn.Tanh(), nn.Linear(7, 2)).to(device)
_got = {}
for _n, _bs in ((1, 32), (31, 32), (32, 32), (33, 32), (100, 7), (64, 1)):
    _x = torch.randn(_n, 5).to(device)  # the same numbers on every machine
    _calls = []
    _h = _net.register_forward_hook(
        lambda m, a, o: _calls.append((a[0].shape[0], o.requires_grad)))
    _out = predict(_net, _x, batch_size=_bs)
    _h.remove()
    _got[f"predict(n={_n}, batch_size={_bs})"] = Approx(_out, rtol=1e-5, atol=1e-6)
    _got[f"batch sizes the hooks saw (n={_n}, batch_size={_bs})"] = [
        _size for _size, _ in _calls]
    _got[f"outputs that tracked gradients (n={_n}, batch_size={_bs}; "
         "use torch.no_grad())"] = [_g for _, _g in _calls]
submit(_got)
### END HIDDEN TESTS

# %% [markdown]
# ## 5. A hook that times every layer
#
# Pre-hooks run before `forward`, hooks after it: together they can time every
# layer. On a GPU the timer must synchronise first (Day 03), otherwise it measures
# the queueing, not the work. Measured on this machine:

# %%
wide = nn.Sequential(nn.Linear(512, 2048), nn.ReLU(), nn.Linear(2048, 512)).to(device)
started, layer_times = {}, {}


def before(module, args):
    synchronize(device)
    started[module] = time.perf_counter()


def after(module, args, output):
    synchronize(device)
    layer_times.setdefault(module, []).append(time.perf_counter() - started[module])


timing_handles = []
for layer in wide:
    timing_handles.append(layer.register_forward_pre_hook(before))
    timing_handles.append(layer.register_forward_hook(after))
batch = torch.randn(256, 512, device=device)
with torch.no_grad():
    for _ in range(6):
        wide(batch)
for h in timing_handles:
    h.remove()
flops = 2 * 256 * 512 * 2048  # multiply-adds of one Linear layer here, times 2
for index, layer in enumerate(wide):
    median = float(np.median(layer_times[layer][1:]))  # first call is warm-up
    rate = ""
    if isinstance(layer, nn.Linear):
        rate = f", {flops / median / 1e9:6.1f} GFLOP/s"
    print(f"layer {index} {type(layer).__name__:>6}: {median * 1e3:.3f} ms{rate}")
print(f"(each Linear layer does {flops / 1e6:.0f} MFLOP; ReLU only compares numbers)")

# %% [markdown]
# ## Summary
#
# - `__init__` runs once when an object is created; `__call__` every time it is
#   called like a function. `callable(obj)` tells whether that works.
# - `nn.Module.__call__` wraps `forward` with hooks; `model(x)` runs them,
#   `model.forward(x)` skips them. Always call the model.
# - Forward hooks receive `(module, args, output)`, may replace the output, and
#   return a handle whose `.remove()` undoes them.
#
# **Open exercises.**
#
# 1. Add `register_forward_pre_hook` to `MiniModule`: hooks that run before
#    `forward` and may replace its arguments.
# 2. Use `shape_recorder` on a model of your own with a `Conv2d` layer. Which
#    dimension is the batch?
# 3. Write a hook that counts how many times a layer ran, with your `Counter`.
