"""Skip markers shared by test modules."""

from __future__ import annotations

import pytest
import torch

from course.devices import cupy_status

needs_cupy_gpu = pytest.mark.skipif(
    not cupy_status().usable,
    reason=f"CuPy cannot run here: {cupy_status().reason}",
)
needs_torch_cuda = pytest.mark.skipif(
    not torch.cuda.is_available(), reason="no CUDA device for torch"
)
