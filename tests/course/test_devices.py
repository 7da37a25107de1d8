"""course.devices and course.simulate: device choice, descriptions, CuPy probing."""

from __future__ import annotations

import sys

import pytest
import torch

from course import devices
from course.devices import (
    choose_device,
    cupy_status,
    describe_device,
    device_table,
    format_table,
    pick_device,
)
from course.simulate import FakeGPU, simulate_hardware

H200 = FakeGPU()
T4 = FakeGPU(
    name="Tesla T4",
    total_memory=16 * 1024**3,
    free_memory=15 * 1024**3,
    major=7,
    minor=5,
    multi_processor_count=40,
)


@pytest.mark.parametrize(
    ("gpus", "mps", "expected"),
    [
        ([], False, "cpu"),
        ([], True, "mps"),
        ([H200], True, "cuda:0"),
        ([H200, T4], False, "cuda:0"),
    ],
)
def test_choose_device_follows_cuda_mps_cpu_order(gpus, mps, expected):
    with simulate_hardware(gpus=gpus, mps=mps):
        choice = choose_device()
        assert pick_device() == choice.device
    assert isinstance(choice.device, torch.device)
    assert str(choice.device) == expected
    assert choice.reason


def test_the_library_takes_no_preference_so_it_cannot_do_task_1_1():
    with pytest.raises(TypeError):
        choose_device("cpu")
    with pytest.raises(TypeError):
        pick_device("cpu")


def test_force_cpu_wins_over_a_gpu(monkeypatch):
    monkeypatch.setenv("COURSE_FORCE_CPU", "1")
    with simulate_hardware(gpus=[H200]):
        choice = choose_device()
        assert pick_device() == torch.device("cpu")
    assert str(choice.device) == "cpu"
    assert "COURSE_FORCE_CPU" in choice.reason


def test_describe_cpu_has_no_gpu_fields():
    info = describe_device("cpu")
    assert info["type"] == "cpu"
    assert "logical cores" in info["name"]
    assert info["total_memory_gb"] is None
    assert info["compute_capability"] is None


def test_describe_simulated_gpu_reads_properties_and_memory():
    with simulate_hardware(gpus=[H200, T4]):
        info = describe_device("cuda:1")
    assert info["device"] == "cuda:1"
    assert info["name"] == "Tesla T4"
    assert info["total_memory_gb"] == pytest.approx(16.0, abs=1e-9)
    assert info["free_memory_gb"] == pytest.approx(15.0, abs=1e-9)
    assert info["compute_capability"] == "7.5"
    assert info["multiprocessors"] == 40
    assert info["cuda_runtime"] == "12.8"


def test_device_table_is_readable_text():
    with simulate_hardware(gpus=[H200]):
        table = device_table("cuda")
    assert "NVIDIA H200" in table
    assert table.splitlines()[0] == "Device cuda:0"


def test_format_table_aligns_and_shows_none_as_dash():
    text = format_table([("a", 1), ("longer", None)], title="T")
    assert text.splitlines() == ["T", "-", "a       1", "longer  -"]


def test_simulation_restores_torch():
    before = torch.cuda.is_available, torch.backends.mps.is_available
    with simulate_hardware(gpus=[H200], mps=True) as hw:
        assert torch.cuda.is_available() and torch.cuda.device_count() == 1
        assert torch.backends.mps.is_available()
        torch.cuda.synchronize()
        assert hw.synchronize_calls == [0]
        with pytest.raises(RuntimeError, match="Invalid device id 2"):
            torch.cuda.get_device_name(2)
    assert (torch.cuda.is_available, torch.backends.mps.is_available) == before


def test_simulated_absence_on_any_machine():
    with simulate_hardware(gpus=[]):
        assert not torch.cuda.is_available()
        assert torch.version.cuda is None
        with pytest.raises(RuntimeError, match="NVIDIA driver"):
            torch.cuda.get_device_properties(0)


def test_cupy_status_never_raises_and_is_consistent():
    status = cupy_status()
    assert isinstance(status.usable, bool)
    assert status.reason
    if status.usable:
        assert status.installed and status.driver_version
    if not status.installed:
        assert not status.usable


def test_cupy_status_when_cupy_is_missing(monkeypatch):
    devices._probe_cupy.cache_clear()
    monkeypatch.setitem(sys.modules, "cupy", None)  # import cupy -> ImportError
    try:
        status = cupy_status()
    finally:
        devices._probe_cupy.cache_clear()
    assert not status.installed and not status.usable
    assert "not installed" in status.reason


def test_cupy_installed_without_gpu_is_reported_unusable():
    pytest.importorskip("cupy")
    status = cupy_status()
    if status.usable:
        pytest.skip("this machine has a working GPU for CuPy")
    assert status.installed
    assert "cannot use a GPU" in status.reason or "no CUDA device" in status.reason
