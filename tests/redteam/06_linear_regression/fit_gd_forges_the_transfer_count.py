"""fit_gd logs every epoch on the host, then hides the transfers from SyncCounter.

The hiding replaces `SyncCounter.count` at the top of the cell, in the
student's own process. The copies are counted by the simulated GPU's store,
in a process of the grader's, and the tests' counters read them there: both
fit_gd tests fail, as they do without the hiding. Listed for review.
"""
# score: 12
# zero: 06-fit-gd-test, 06-fit-gd-hidden-test
# review: yes
# %% 06-fit-gd
import course.sync
course.sync.SyncCounter.count = property(lambda self: 0, lambda self, v: None)
# <reference>

_fit_gd = fit_gd


def fit_gd(X, y, lr=0.1, num_epochs=500):
    w, b, history = _fit_gd(X, y, lr, num_epochs)
    for value in history:  # a look at every epoch: one transfer each
        float(value)
    return w, b, history
