"""Benchmark: Day 08's from-scratch NumPy MLP against the same PyTorch MLP, on CPU.

Run ``python -m autograder.bench_mlp`` (or ``make bench-mlp``). Both networks get
the same architecture, initial weights, data and learning rate, and are timed
with :func:`course.timing.benchmark` (warm-up, repeats, median). Prints the time
per epoch of each and their ratio. The target: from scratch within 1.5x of
PyTorch. It is a benchmark, not a test: nothing fails on a slow machine.
"""

from __future__ import annotations

import argparse
import platform
from collections.abc import Sequence

import numpy as np
import torch

from autograder.lesson_code import lesson_namespace
from course.timing import benchmark

TARGET_RATIO = 1.5


def run(
    sizes: Sequence[int] = (20, 256, 256, 1),
    n_samples: int = 4096,
    epochs: int = 10,
    repeat: int = 5,
) -> dict[str, float]:
    """Time both MLPs; return seconds per epoch and the ratio."""
    lesson = lesson_namespace("08_neural_network")
    rng = np.random.default_rng(0)
    X = rng.standard_normal((n_samples, sizes[0]), dtype=np.float32)
    y = rng.standard_normal((n_samples, sizes[-1]), dtype=np.float32)
    params = lesson["init_params"](list(sizes), seed=0)
    model = lesson["torch_copy"](params)
    Xt, yt = torch.from_numpy(X), torch.from_numpy(y)
    ours = benchmark(
        lambda: lesson["train"](params, X, y, lr=1e-3, num_epochs=epochs),
        repeat=repeat,
        label="from scratch (NumPy)",
    )
    theirs = benchmark(
        lambda: lesson["torch_train"](model, Xt, yt, lr=1e-3, num_epochs=epochs),
        repeat=repeat,
        label="PyTorch (CPU)",
    )
    return {
        "numpy_s_per_epoch": ours.median / epochs,
        "torch_s_per_epoch": theirs.median / epochs,
        "ratio": ours.median / theirs.median,
    }


DEFAULT_CASES = (
    ((5, 32, 1), 800),  # Day 08's regression network
    ((20, 128, 128, 1), 2048),
    ((20, 256, 256, 1), 4096),
    ((20, 512, 512, 1), 4096),
)


def main(argv: Sequence[str] | None = None) -> int:
    """Print the comparison for each case; exit status 0 whatever the ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes", help="layer sizes, e.g. 20,256,256,1 (default: four networks)"
    )
    parser.add_argument("--samples", type=int, default=4096)
    parser.add_argument("--epochs", type=int, default=10, help="epochs per timed run")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs")
    args = parser.parse_args(argv)
    cases = DEFAULT_CASES
    if args.sizes:
        cases = ((tuple(int(s) for s in args.sizes.split(",")), args.samples),)
    cpu = platform.processor() or platform.machine()
    print(
        f"CPU {cpu}, torch {torch.__version__} ({torch.get_num_threads()} threads), "
        f"numpy {np.__version__}, float32, full batch"
    )
    print(
        f"{'network':>20} {'samples':>8} {'NumPy ms':>9} {'torch ms':>9} {'ratio':>6}"
    )
    for sizes, samples in cases:
        result = run(sizes, samples, args.epochs, args.repeat)
        verdict = "ok" if result["ratio"] <= TARGET_RATIO else f"> {TARGET_RATIO}x"
        print(
            f"{str(list(sizes)):>20} {samples:>8} "
            f"{result['numpy_s_per_epoch'] * 1e3:>9.3f} "
            f"{result['torch_s_per_epoch'] * 1e3:>9.3f} "
            f"{result['ratio']:>6.2f} {verdict}"
        )
    print(f"ms per epoch; ratio = from scratch / PyTorch, target <= {TARGET_RATIO}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
