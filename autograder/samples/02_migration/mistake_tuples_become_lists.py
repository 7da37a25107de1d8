"""Rebuilds tuples as lists."""


# score: 9
# zero: 02-to-device-test, 02-to-device-hidden-test
# kind: mistake
# %% 02-to-device
def to_device(batch, device):
    if isinstance(batch, torch.Tensor):
        return batch.to(device)
    if isinstance(batch, dict):
        return {k: to_device(v, device) for k, v in batch.items()}
    if isinstance(batch, (list, tuple)):
        return [to_device(v, device) for v in batch]
    return batch


batch = {"inputs": torch.zeros(2, 4), "labels": torch.tensor([0, 1]), "ids": [7, 8]}
moved = to_device(batch, "meta")
print({k: (v.device if isinstance(v, torch.Tensor) else v) for k, v in moved.items()})
