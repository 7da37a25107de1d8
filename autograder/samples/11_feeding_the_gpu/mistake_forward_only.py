"""Counts the forward pass only: the backward pass is two thirds of the work."""

# score: 6
# zero: 11-flops-test, 11-flops-hidden-test
# kind: mistake
# %% 11-flops
def flops_per_sample(model, X, y):
    with FlopCounterMode(display=False) as counter:
        nn.functional.cross_entropy(model(X), y)
    return counter.get_total_flops() / len(X)
