"""``course gpu-check``'s ``confined_gpu`` extra: a child confined exactly as a
grading kernel runs the lessons' GPU steps and says which worked. On a GPU it
found CUDA hidden by Landlock and by the seccomp filter (docs/gpu-runs); here,
on the CPU, it must still confine itself and run ``torch.profiler``."""

from __future__ import annotations

import pytest
import torch

from autograder.grading.kernel import namespaces, sandbox
from autograder.grading.kernel.limits import GRADING_ENV
from autograder.measure import gpu_confined

needs_namespaces = pytest.mark.skipif(
    sandbox.abi() == 0 or not namespaces.available(),
    reason=f"no confined kernels in namespaces here: {sandbox.status()}",
)


@needs_namespaces
def test_the_child_is_confined_as_a_kernel_and_reports_each_step():
    found = gpu_confined.confined_gpu()
    assert found["confinement"]["confined"] is True, found
    assert found["confinement"]["pid"] == 2  # its own PID namespace
    steps = found["steps"]
    assert set(steps) == set(gpu_confined.STEPS)
    assert steps["torch_profiler"]["ok"] is True, steps["torch_profiler"]
    if not torch.cuda.is_available():
        assert "skipped" in steps["torch_matmul"]
        assert "by_layers" not in found  # only where the GPU disappears


@needs_namespaces
def test_a_partial_confinement_runs_only_the_device_steps():
    found = gpu_confined._run_child(["seccomp"])
    assert found["confinement"]["layers"] == ["seccomp"]
    assert set(found["steps"]) == {"devices", "torch_matmul"}


def test_grading_chooses_the_cpu_on_every_machine():
    assert GRADING_ENV["CUDA_VISIBLE_DEVICES"] == ""
