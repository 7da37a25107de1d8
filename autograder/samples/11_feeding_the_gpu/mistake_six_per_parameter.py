"""Uses the 6-FLOPs-per-parameter shortcut instead of counting."""

# score: 6
# zero: 11-flops-test, 11-flops-hidden-test
# kind: mistake
# %% 11-flops
def flops_per_sample(model, X, y):
    return 6.0 * sum(p.numel() for p in model.parameters())
