"""The GPUs the lessons model: public spec-sheet figures, one :class:`GPUSpec` each."""

from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class GPUSpec:
    """Public figures for one GPU. What the model adds to them (efficiencies,
    host costs) is in :data:`course.gpumodel.cost.CONSTANTS`."""

    name: str
    memory_gbps: float  # device memory bandwidth, GB/s
    fp32_tflops: float  # peak FP32 without tensor cores, TFLOP/s
    fp64_tflops: float  # peak FP64 on the FP64 units, TFLOP/s
    #: peak FP64 matrix products on FP64 tensor cores (0: the chip has none)
    fp64_tensor_tflops: float = 0.0
    #: host <-> device from pageable memory, GB/s, both ways (None: the
    #: recorded H200 box's, per direction, from CONSTANTS)
    pcie_gbps: float | None = None
    source: str = ""
    #: dense tensor-core peaks (no sparsity), TFLOP/s, as ``(precision,
    #: figure)`` pairs for "tf32", "bf16" and "fp16" (FP32 accumulate); a
    #: precision left out: the chip has no such tensor cores, or its sheet
    #: gives no figure
    tensor_tflops: tuple[tuple[str, float], ...] = ()

    def peak_flops(self, dtype: torch.dtype, matrix: bool = False) -> float:
        """FLOP/s in ``dtype``: FP64 on tensor cores for matrix products where
        the chip has them, else FP64 units; bfloat16 and float16 matrix
        products on the chip's tensor cores for that format, dense, where it
        has them; FP32 otherwise."""
        sixteen = {torch.bfloat16: "bf16", torch.float16: "fp16"}.get(dtype)
        if matrix and sixteen in dict(self.tensor_tflops):
            return dict(self.tensor_tflops)[sixteen] * 1e12
        if dtype != torch.float64:
            return self.fp32_tflops * 1e12
        tensor = self.fp64_tensor_tflops if matrix else 0.0
        return max(tensor, self.fp64_tflops) * 1e12

    def peak(self, precision: str) -> float:
        """Peak FLOP/s for one of :data:`PRECISIONS`: "fp32" and "fp64" on
        the chip's plain units (FP64 on tensor cores where it has them),
        "tf32", "bf16" and "fp16" on its tensor cores, dense.

        Raises:
            ValueError: ``precision`` is not one of :data:`PRECISIONS`.
            LookupError: the chip has no tensor cores for it, or its sheet
                gives no figure (the message says which chip).
        """
        if precision not in PRECISIONS:
            raise ValueError(
                f"precision must be one of {PRECISIONS}, not {precision!r}"
            )
        if precision == "fp32":
            return self.fp32_tflops * 1e12
        if precision == "fp64":
            return self.peak_flops(torch.float64, matrix=True)
        figure = dict(self.tensor_tflops).get(precision)
        if figure is None:
            raise LookupError(
                f"{self.name}: no {precision} tensor-core peak (the chip has "
                "none, or its spec sheet gives no figure)"
            )
        return figure * 1e12


#: Precisions :meth:`GPUSpec.peak` knows.
PRECISIONS = ("fp64", "fp32", "tf32", "bf16", "fp16")


def utilisation(flops_per_second: float, gpu: str, precision: str) -> float:
    """Model FLOP utilisation: achieved FLOP/s over ``gpu``'s peak (a key of
    :data:`GPUS`) in ``precision`` (see :meth:`GPUSpec.peak`), as a fraction.

    Raises:
        KeyError: ``gpu`` is not a key of :data:`GPUS` (the message lists them).
        ValueError, LookupError: as :meth:`GPUSpec.peak`.
    """
    if gpu not in GPUS:
        raise KeyError(f"no GPU {gpu!r} in the model; it knows {sorted(GPUS)}")
    return flops_per_second / GPUS[gpu].peak(precision)


GPUS: dict[str, GPUSpec] = {
    "rtx3050-laptop": GPUSpec(
        "NVIDIA GeForce RTX 3050 Laptop (seed 004's GPU)",
        memory_gbps=192.0,
        fp32_tflops=5.5,
        fp64_tflops=5.5 / 64,
        pcie_gbps=6.0,
        source="spec: 128-bit GDDR6 at 12 Gbps, about 5.5 TFLOP/s FP32 at a "
        "mid boost clock (laptop clocks vary with power), FP64 1/64 of FP32 "
        "(Ampere GeForce, no FP64 tensor cores); PCIe 4.0 x8, pageable copies "
        "assumed at 6 GB/s",
    ),
    "t4": GPUSpec(
        "NVIDIA T4 (Colab's GPU)",
        memory_gbps=320.0,
        fp32_tflops=8.1,
        fp64_tflops=0.25,
        pcie_gbps=6.0,
        tensor_tflops=(("fp16", 65.0),),
        source="spec: 320 GB/s GDDR6, 8.1 TFLOP/s FP32, 0.25 TFLOP/s FP64 (no "
        "FP64 tensor cores), 65 TFLOP/s FP16 mixed precision on tensor cores "
        "(no TF32 or BF16: Turing); PCIe 3.0 x16, pageable copies assumed at "
        "6 GB/s",
    ),
    "a100": GPUSpec(
        "NVIDIA A100 40 GB PCIe",
        memory_gbps=1555.0,
        fp32_tflops=19.5,
        fp64_tflops=9.7,
        fp64_tensor_tflops=19.5,
        pcie_gbps=10.0,
        tensor_tflops=(("tf32", 156.0), ("bf16", 312.0), ("fp16", 312.0)),
        source="spec: 1,555 GB/s HBM2, 19.5 TFLOP/s FP32, 9.7 TFLOP/s FP64, "
        "19.5 on FP64 tensor cores, dense tensor cores TF32 156, BF16 and FP16 "
        "312 TFLOP/s; PCIe 4.0 x16, pageable copies assumed at 10 GB/s",
    ),
    "h200": GPUSpec(
        "NVIDIA H200",
        memory_gbps=4800.0,
        fp32_tflops=67.0,
        fp64_tflops=34.0,
        fp64_tensor_tflops=67.0,
        tensor_tflops=(("tf32", 494.5), ("bf16", 989.5), ("fp16", 989.5)),
        source="spec: 4.8 TB/s HBM3e, 67 TFLOP/s FP32, 34 TFLOP/s FP64, 67 on "
        "FP64 tensor cores, tensor cores TF32 989 and BF16/FP16 1,979 TFLOP/s "
        "with sparsity, half that dense; pageable copies as recorded on the "
        "H200 box",
    ),
    "h100": GPUSpec(
        "NVIDIA H100 SXM",
        memory_gbps=3350.0,
        fp32_tflops=67.0,
        fp64_tflops=34.0,
        fp64_tensor_tflops=67.0,
        tensor_tflops=(("tf32", 494.5), ("bf16", 989.5), ("fp16", 989.5)),
        source="spec: 3.35 TB/s HBM3, 67 TFLOP/s FP32, 34 TFLOP/s FP64, 67 on "
        "FP64 tensor cores, tensor cores TF32 989 and BF16/FP16 1,979 TFLOP/s "
        "with sparsity, half that dense; pageable copies assumed as recorded "
        "on the H200 box",
    ),
}
"""The seed's laptop GPU, Colab's, and three data-centre GPUs."""


def spec_key(device_name: str) -> str | None:
    """The key of :data:`GPUS` for a CUDA device's name
    (``torch.cuda.get_device_name()``), or None where the model holds no
    figures for that card. An H100 counts only as SXM (its name says SXM or
    HBM3): PCIe and NVL cards have lower peaks."""
    name = device_name.lower()
    if "h100" in name:
        return "h100" if "sxm" in name or "hbm3" in name else None
    for key, word in (("h200", "h200"), ("a100", "a100"), ("t4", " t4")):
        if word in name:
            return key
    if "rtx 3050" in name and "laptop" in name:
        return "rtx3050-laptop"
    return None
