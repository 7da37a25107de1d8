"""Asks GPU 0 whatever index the device names."""

# score: 10
# zero: 01-usable-memory-hidden-test
# kind: mistake
# %% 01-usable-memory
def usable_memory(device):
    if torch.device(device).type != "cuda":
        return None
    free, _total = torch.cuda.mem_get_info()
    return free + torch.cuda.memory_reserved() - torch.cuda.memory_allocated()

