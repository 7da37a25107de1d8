"""course.gpumodel: the cost model on hand-computed cases, and what a trace counts."""

from __future__ import annotations

import pytest
import torch

from course import gpumodel
from course.gpumodel import GPUSpec, Trace

#: A toy GPU with round numbers: 1 TFLOP/s, 100 GB/s, 10 GB/s over PCIe; and
#: toy constants: 10 µs per CuPy kernel, 5 µs per sync, 20 µs per CuPy copy,
#: every efficiency 1 (left out), no floor.
TOY = GPUSpec(
    "toy", memory_gbps=100.0, fp32_tflops=1.0, fp64_tflops=0.5, pcie_gbps=10.0
)
TOY_C = {"cupy_us": 10.0, "sync_us": 5.0, "cupy_copy_us": 20.0}


def toy(run, repeat=1, cpu_s=None, **kw):
    return gpumodel.estimate(run, TOY, repeat, cpu_s=cpu_s, constants={**TOY_C, **kw})


def test_tiny_ops_are_launch_bound():
    run = Trace()
    for _ in range(3):
        run.op("add", flops=1e3, nbytes=1e3)  # 1 ns compute, 10 ns memory
    est = toy(run)
    # the host queues at 10, 20, 30 µs; each op ends 10 ns after its launch
    assert est.seconds == pytest.approx(30e-6 + 10e-9)
    assert est.launches == 3 and est.syncs == 0


def test_big_ops_are_device_bound_and_a_sync_drains_the_queue():
    run = Trace()
    run.op("mm", flops=1e9, nbytes=1e6)  # 1 ms of compute (memory: 10 µs)
    run.op("mm", flops=1e9, nbytes=1e6, dtype=torch.float64)  # 2 ms in FP64
    run.sync()
    est = toy(run)
    # device: starts at 10 µs, busy 1 ms, then 2 ms; the sync waits, then 5 µs
    assert est.seconds == pytest.approx(10e-6 + 1e-3 + 2e-3 + 5e-6)
    assert est.device_busy_seconds == pytest.approx(3e-3)


def test_a_copy_waits_then_crosses_the_bus():
    run = Trace()
    run.op("add", flops=0, nbytes=1e5)  # 1 µs on the device
    run.copy("d2h", 1e6)  # 100 µs over PCIe
    est = toy(run)
    assert est.seconds == pytest.approx(10e-6 + 1e-6 + 20e-6 + 100e-6)
    assert est.syncs == 1
    with pytest.raises(ValueError, match="direction"):
        run.copy("sideways", 1)


def test_torch_ops_cost_your_cpu_share_plus_cudas_cost_by_part():
    model = torch.nn.Linear(3, 2)
    X = torch.randn(4, 3)

    def step():
        model.zero_grad(set_to_none=True)
        model(X).sum().backward()

    run = gpumodel.trace(step)
    parts = run.by_part()
    grad = parts["forward and loss"] + parts["backward"]
    est = toy(run, cpu_s=1e-3, book_us=1.0, grad_us=100.0)
    assert est.host_seconds == pytest.approx(
        1e-3 + parts["bookkeeping"] * 1e-6 + grad * 100e-6
    )
    # without a timing: the recorded CPU cost per operation
    est = toy(run, cpu_op_us=7.0, book_us=1.0, grad_us=100.0)
    assert est.host_seconds == pytest.approx(
        run.launches * 7e-6 + parts["bookkeeping"] * 1e-6 + grad * 100e-6
    )


def test_repeat_multiplies_a_trace():
    run = Trace()
    run.op("add", flops=0, nbytes=0)
    assert toy(run, 1000).seconds == pytest.approx(1e-2)


def test_trace_counts_launches_not_views_and_reads_as_copies():
    x = torch.ones(4, 3)
    w = torch.ones(3, 2)

    def step():
        y = (x @ w).relu()
        z = y.view(-1).t() if y.dim() == 1 else y.view(-1)  # views: no kernel
        return z.sum().item()  # a copy back and a wait

    run = gpumodel.trace(step)
    assert run.by_op() == {"mm": 1, "relu": 1, "sum": 1}
    assert run.launches == 3 and run.syncs == 1
    # the matrix product's FLOPs come from torch's formula: 2 * 4 * 3 * 2
    assert run.events[0].flops == 48
    assert run.events[-1].kind == "d2h"


def test_every_modelled_gpu_names_its_sources():
    for spec in gpumodel.GPUS.values():
        assert spec.source.startswith("spec:")
    est = gpumodel.estimate(Trace(), gpumodel.GPUS["t4"])
    assert "modelled" in est.label and "not measured" in est.label
    assert "calibrated on the recorded NVIDIA H200 run" in est.label


def test_trace_puts_each_launch_in_a_part_of_the_step_whatever_the_loss():
    """Forward and loss, backward, bookkeeping: writing the loss by hand adds
    launches to the model's work, never to bookkeeping; a loop over the
    parameters adds to bookkeeping only."""
    from torch import nn

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(5, 32), nn.ReLU(), nn.Linear(32, 1))
    X, y = torch.randn(64, 5), torch.randn(64, 1)

    def step(optimizer, by_hand):
        optimizer.zero_grad(set_to_none=True)
        out = model(X)
        loss = ((out - y) ** 2).mean() if by_hand else nn.functional.mse_loss(out, y)
        loss.backward()
        optimizer.step()
        return loss.detach()

    parts = {}
    for kind in ("foreach", "loop"):
        optimizer = torch.optim.SGD(
            model.parameters(), lr=1e-3, momentum=0.9, foreach=kind == "foreach"
        )
        step(optimizer, False)  # momentum buffers are made
        for by_hand in (False, True):
            run = gpumodel.trace(lambda: step(optimizer, by_hand))  # noqa: B023
            parts[kind, by_hand] = run.by_part()
            assert sum(run.by_part().values()) == run.launches
            assert set(run.by_op("bookkeeping")) <= {
                "_foreach_mul_",
                "_foreach_add_",
                "mul_",
                "add_",
            }
    for kind in ("foreach", "loop"):
        plain, by_hand = parts[kind, False], parts[kind, True]
        assert by_hand["bookkeeping"] == plain["bookkeeping"]
        assert by_hand["forward and loss"] > plain["forward and loss"]
        assert by_hand["backward"] > plain["backward"]
    assert parts["foreach", False]["bookkeeping"] == 3
    assert parts["loop", False]["bookkeeping"] == 12  # 3 per parameter tensor


def test_the_steady_host_cost_prices_a_step_in_recorded_adds():
    from course.gpumodel import recorded_add_us, steady_host_cost

    assert recorded_add_us() == pytest.approx(2.880013, rel=1e-6)  # the bench's row
    x = torch.zeros(1)

    def adds(count):
        def run():
            for _ in range(count):
                x.add_(1)

        return run

    # a ratio, not a time: 4,000 adds priced as about 4,000 recorded adds, and
    # twice 1,000 adds' price, whatever this machine's speed or load
    four = steady_host_cost(adds(4000), rounds=5) / (recorded_add_us() * 1e-6)
    one = steady_host_cost(adds(1000), rounds=5) / (recorded_add_us() * 1e-6)
    assert 2000 < four < 8000
    assert 2.0 < four / one < 8.0


def test_each_kind_of_modelled_work_says_how_it_was_checked():
    from course.gpumodel import UNCHECKED, accuracy_for

    assert "each predicted without its own experiment" in accuracy_for("pytorch loop")
    assert "in sample" in accuracy_for("cupy loop")
    for kind in UNCHECKED:
        assert accuracy_for(kind).endswith("not checked against a recorded run")
    with pytest.raises(ValueError, match="pytorch loop"):
        accuracy_for("pytorch loops")


def test_peaks_per_precision_come_from_the_spec_sheets():
    h200 = gpumodel.GPUS["h200"]
    assert h200.peak("bf16") == pytest.approx(989.5e12)
    assert h200.peak("tf32") == pytest.approx(494.5e12)
    assert h200.peak("fp32") == pytest.approx(67e12)
    assert h200.peak("fp64") == pytest.approx(67e12)  # on FP64 tensor cores
    assert gpumodel.GPUS["a100"].peak("fp16") == pytest.approx(312e12)
    assert gpumodel.GPUS["t4"].peak("fp16") == pytest.approx(65e12)
    for key, spec in gpumodel.GPUS.items():
        pairs = dict(spec.tensor_tflops)
        assert set(pairs) <= {"tf32", "bf16", "fp16"}, key
        for figure in pairs.values():
            assert f"{figure:,g}" in spec.source or f"{2 * figure:,g}" in spec.source


def test_a_missing_peak_says_which_chip_and_an_unknown_name_lists_the_choices():
    with pytest.raises(LookupError, match="T4.*bf16"):
        gpumodel.GPUS["t4"].peak("bf16")  # Turing has no BF16 tensor cores
    with pytest.raises(LookupError, match="RTX 3050"):
        gpumodel.GPUS["rtx3050-laptop"].peak("fp16")  # its sheet gives none
    with pytest.raises(ValueError, match="fp8"):
        gpumodel.GPUS["h200"].peak("fp8")
    with pytest.raises(KeyError, match="h200"):
        gpumodel.utilisation(1e12, "b200", "bf16")


def test_utilisation_is_the_measured_rate_over_the_peak():
    assert gpumodel.utilisation(296.85e12, "h200", "bf16") == pytest.approx(0.3)
    assert gpumodel.utilisation(0.0, "a100", "tf32") == 0.0


def test_a_device_name_finds_its_spec_only_where_the_figures_fit():
    assert gpumodel.spec_key("NVIDIA H200") == "h200"
    assert gpumodel.spec_key("NVIDIA H100 80GB HBM3") == "h100"
    assert gpumodel.spec_key("NVIDIA H100 PCIe") is None  # lower peaks than SXM
    assert gpumodel.spec_key("NVIDIA A100-SXM4-40GB") == "a100"
    assert gpumodel.spec_key("Tesla T4") == "t4"
    assert gpumodel.spec_key("NVIDIA GeForce RTX 3050 Laptop GPU") == "rtx3050-laptop"
    assert gpumodel.spec_key("NVIDIA GeForce RTX 4070 Ti") is None
