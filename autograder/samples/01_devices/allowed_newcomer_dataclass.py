"""Written from the notebook's text: usable_memory with functools.singledispatch on the device's form, training_bytes through a @dataclass of the three parts."""

# score: 12
# kind: allowed
# %% 01-usable-memory
import functools


@functools.singledispatch
def usable_memory(device):
    return usable_memory(torch.device(device))


@usable_memory.register
def _(device: torch.device):
    if device.type != "cuda":
        return None
    i = torch.cuda.current_device() if device.index is None else device.index
    cache = torch.cuda.memory_reserved(i) - torch.cuda.memory_allocated(i)
    return torch.cuda.mem_get_info(i)[0] + cache


print(f"usable on {device}: {usable_memory(device)}")
# %% 01-training-memory
from dataclasses import dataclass

STATES_PER_PARAMETER = {"sgd": 0, "momentum": 1, "adam": 2, "adamw": 2}


@dataclass
class Footprint:
    weights: int = 0
    gradients: int = 0
    states: int = 0

    @property
    def total(self):
        return self.weights + self.gradients + self.states


def training_bytes(model, optimizer="adam"):
    if optimizer not in STATES_PER_PARAMETER:
        raise ValueError(f"optimizer must be one of {list(STATES_PER_PARAMETER)}")
    parts = Footprint()
    for p in model.parameters():
        size = p.numel() * p.element_size()
        parts.weights += size
        if p.requires_grad:
            parts.gradients += size
            parts.states += STATES_PER_PARAMETER[optimizer] * size
    parts.weights += sum(b.numel() * b.element_size() for b in model.buffers())
    return parts.total


print(f"nn.Linear(3, 2) with Adam: {training_bytes(nn.Linear(3, 2), 'adam')} bytes")
