"""Counts the weights only: no gradients, no optimizer state."""

# score: 9
# zero: 01-training-memory-test, 01-training-memory-hidden-test
# kind: mistake
# %% 01-training-memory
STATES_PER_PARAMETER = {"sgd": 0, "momentum": 1, "adam": 2, "adamw": 2}


def training_bytes(model, optimizer="adam"):
    if optimizer not in STATES_PER_PARAMETER:
        raise ValueError(f"optimizer must be one of {list(STATES_PER_PARAMETER)}")
    tensors = list(model.parameters()) + list(model.buffers())
    return sum(t.numel() * t.element_size() for t in tensors)

