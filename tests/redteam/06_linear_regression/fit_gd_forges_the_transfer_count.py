"""fit_gd logs every epoch on the host, then hides the transfers from SyncCounter.

NEXT ISSUE: the hiding replaces `SyncCounter.count` at the top of the cell,
in the student's own process, where the counts are still taken; the forgery
earns fit_gd's points (the score written here is the forged one). Moving the
counters into a simulated device in another process (the next issue) must
bring this case to 12. The submission is listed for review.
"""
# score: 15
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
