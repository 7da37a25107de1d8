"""Only what mem_get_info reports free: the allocator's cache is forgotten."""

# score: 9
# zero: 01-usable-memory-test, 01-usable-memory-hidden-test
# kind: mistake
# %% 01-usable-memory
def usable_memory(device):
    device = torch.device(device)
    if device.type != "cuda":
        return None
    index = device.index if device.index is not None else torch.cuda.current_device()
    free, _total = torch.cuda.mem_get_info(index)
    return free

