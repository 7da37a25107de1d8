"""to_device written with functools.singledispatch (a decorator per type) and
build_and_move_model with model.to(device): correct."""


# score: 12
# kind: allowed
# %% 02-to-device
import functools


@functools.singledispatch
def to_device(batch, device):
    return batch  # any other leaf: the very same object


@to_device.register
def _(batch: torch.Tensor, device):
    return batch.to(device)


@to_device.register
def _(batch: dict, device):
    return {key: to_device(value, device) for key, value in batch.items()}


@to_device.register
def _(batch: list, device):
    return [to_device(value, device) for value in batch]


@to_device.register
def _(batch: tuple, device):
    return tuple(to_device(value, device) for value in batch)


batch = {"inputs": torch.zeros(2, 4), "labels": torch.tensor([0, 1]), "ids": [7, 8]}
moved = to_device(batch, "meta")
print({k: (v.device if isinstance(v, torch.Tensor) else v) for k, v in moved.items()})
