"""GB (1e9) instead of GiB."""

# score: 9
# zero: 01-memory-report-hidden-test, 01-memory-report-test
# kind: mistake
# %% 01-memory-report
REPORT_KEYS = ("device", "total_gb", "free_gb", "used_gb", "torch_allocated_gb")


def gpu_memory_report(device):
    device = torch.device(device)
    report = dict.fromkeys(REPORT_KEYS)
    if device.type != "cuda":
        report["device"] = device.type
        return report
    index = device.index or 0
    free, total = torch.cuda.mem_get_info(index)
    report.update(
        device=f"cuda:{index}",
        total_gb=round(total / 1e9, 2),
        free_gb=round(free / 1e9, 2),
        used_gb=round((total - free) / 1e9, 2),
        torch_allocated_gb=round(torch.cuda.memory_allocated(index) / 1e9, 2),
    )
    return report
