"""Calls tensor.to(device) without keeping the result: every tensor stays where it was."""


# score: 9
# zero: 02-to-device-test, 02-to-device-hidden-test
# kind: mistake
# %% 02-to-device
def to_device(batch, device):
    if isinstance(batch, torch.Tensor):
        batch.to(device)
        return batch
    if isinstance(batch, dict):
        return {key: to_device(value, device) for key, value in batch.items()}
    if isinstance(batch, list):
        return [to_device(value, device) for value in batch]
    if isinstance(batch, tuple):
        return tuple(to_device(value, device) for value in batch)
    return batch


batch = {"inputs": torch.zeros(2, 4), "labels": torch.tensor([0, 1]), "ids": [7, 8]}
moved = to_device(batch, "meta")
print({k: (v.device if isinstance(v, torch.Tensor) else v) for k, v in moved.items()})
