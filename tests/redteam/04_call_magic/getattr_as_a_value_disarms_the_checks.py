"""A `predict` without `torch.no_grad()`, plus reflection through `GA = getattr`
that replaces every check function of `course.checks` in the kernel with one
that passes.

The checks that decide points run in the referee, outside the kernel: the
replaced functions are never called by a test, and predict's tests fail.
"""
# score: 9
# zero: 04-predict-test, 04-predict-hidden-test
# review: no
# %% 04-predict
import sys

GA, SA = getattr, setattr
_checks = GA(sys, "modules")["course.checks"]
for _name in dir(_checks):
    if _name.startswith("check_"):
        SA(_checks, _name, lambda *args, **kwargs: None)


def predict(model, X, batch_size=32):
    outputs = [model(X[i:i + batch_size]) for i in range(0, len(X), batch_size)]
    return torch.cat(outputs).detach()
