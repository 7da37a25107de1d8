"""Gives frozen parameters a gradient and optimizer states too."""

# score: 10
# zero: 01-training-memory-hidden-test
# kind: mistake
# %% 01-training-memory
STATES_PER_PARAMETER = {"sgd": 0, "momentum": 1, "adam": 2, "adamw": 2}


def training_bytes(model, optimizer="adam"):
    if optimizer not in STATES_PER_PARAMETER:
        raise ValueError(f"optimizer must be one of {list(STATES_PER_PARAMETER)}")
    copies = 2 + STATES_PER_PARAMETER[optimizer]
    params = sum(p.numel() * p.element_size() for p in model.parameters())
    buffers = sum(b.numel() * b.element_size() for b in model.buffers())
    return copies * params + buffers

