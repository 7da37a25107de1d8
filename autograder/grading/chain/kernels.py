"""Compile, for a real GPU, every CUDA kernel the tests launched.

Grading runs numba-cuda kernels in the simulator, which runs Python and so
accepts what CUDA never would (``np.dot`` in a kernel, a list shared between
threads, a shared array sized at run time). The simulated GPU's store ran
each launch a test made and kept the kernel's source (with the values it read
from outside, a kernel defined inside a function as well) and the types of
the arrays and numbers it ran it with (:func:`course.simkernels.launched`):
that record, and nothing the kernel's process sends, is what is compiled.
Each distinct kernel is compiled on its own with numba-cuda's
``compile_ptx`` (no GPU needed; :mod:`autograder.grading.cuda_compile`), with
its own time budget: a kernel that does not compile fails the tests that
launched it, with a message that names it, and no other.
"""

from __future__ import annotations

from typing import Any

#: Seconds one kernel's compile may take.
KERNEL_SECONDS = 60.0


def compile_launches(records: dict[str, dict[str, Any]]) -> dict[str, str]:
    """Compile what ``records`` launched; fail each test whose kernel does not
    compile (its record's ``error``). Returns ``{kernel: why}`` for the failures."""
    wanted: dict[tuple[str, str], list[str]] = {}
    for record in records.values():
        for launch in record.get("launches") or []:
            if not (isinstance(launch, list) and len(launch) == 3):
                continue
            name, signature, source = (str(x) for x in launch)
            signatures = wanted.setdefault((name, source), [])
            if signature not in signatures:
                signatures.append(signature)
    if not wanted:
        return {}
    from autograder.grading.cuda_compile import CompilerUnavailable, compile_kernels

    problems: dict[tuple[str, str], str] = {}
    for (name, source), signatures in wanted.items():
        unsupported = [s for s in signatures if s.startswith("unsupported: ")]
        if unsupported:
            problems[(name, source)] = unsupported[0].removeprefix("unsupported: ")
            continue
        try:
            found = compile_kernels(
                source, {name: signatures}, timeout=KERNEL_SECONDS, remember=True
            )
        except (CompilerUnavailable, RuntimeError) as exc:
            found = {name: f"it could not be compiled for CUDA here ({exc})"}
        if found.get(name):
            problems[(name, source)] = str(found[name])
    for record in records.values():
        if record.get("error"):
            continue
        for launch in record.get("launches") or []:
            key = (str(launch[0]), str(launch[2])) if len(launch) == 3 else None
            if key in problems:
                record["error"] = (
                    f"your kernel {key[0]} does not compile for a CUDA GPU (it ran "
                    f"only in the simulator): {problems[key]}"
                )
                break
    return {name: why for (name, _), why in problems.items()}


__all__ = ["KERNEL_SECONDS", "compile_launches"]
