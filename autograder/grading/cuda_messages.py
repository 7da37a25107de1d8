"""numba-cuda's refusals to compile a kernel, reworded for students.

:func:`explain` keeps the first relevant line of numba's message, adds the
kernel's line it is about where it can find it, and, for the mistakes the
simulator lets through (NumPy calls, Python lists and dicts, shared arrays sized
at run time, arrays created inside a kernel), says what to write instead.
Used by :mod:`autograder.grading.cuda_compile`.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from typing import Any

#: Lines of numba's messages that only say where in numba the error came from.
_SKIP = (
    "Failed in ",
    "During:",
    "- Resolution failure",
    "There are ",
    "- Of which",
    "<numba.",
)
#: NumPy functions that create an array.
_ALLOCATING = {
    "zeros",
    "empty",
    "ones",
    "full",
    "array",
    "asarray",
    "copy",
    "arange",
    "linspace",
    "zeros_like",
    "empty_like",
    "ones_like",
    "full_like",
    "concatenate",
    "stack",
    "hstack",
    "vstack",
    "outer",
    "where",
}
_LIST = re.compile(
    r"List\(|reflected list|build_list|list\(undefined|of type list|build_set"
    r"|DictType|build_map|of type dict"
)
NO_LIST = (
    "a Python list or dict cannot be used inside a kernel: pass the values as a "
    "NumPy array argument, or use cuda.local.array with a constant size for a "
    "thread's scratch space"
)
NO_ALLOC = (
    "a kernel cannot create arrays ({what}): write into an output array passed "
    "in, or use cuda.local.array / cuda.shared.array with a constant size"
)


def first_line(text: str) -> str:
    """The first line of numba's message that says what is wrong (or '')."""
    lines = [line.strip() for line in text.splitlines()]
    for i, line in enumerate(lines):
        if not line or line.startswith(_SKIP):
            continue
        if line.endswith("found for signature:"):
            call = next((x for x in lines[i + 1 :] if x.startswith(">>>")), "")
            line = f"{line} {call[3:].strip()}"
        return _clean(line)
    lowering = next((x for x in lines if x.startswith("During: lowering")), "")
    return _clean(lowering[len("During: ") :])


def _clean(line: str) -> str:
    line = re.sub(r" at 0x[0-9a-f]+", "", line)
    line = re.sub(r" at \S+ \(\d+\)$", "", line)  # a temporary file's path
    return line[:300]


def _hint(text: str, source: str) -> tuple[str | None, str | None]:
    """(what to tell the student, a pattern for the kernel's line) or Nones."""
    match = re.search(r"Function\(<function (shared|local)\.array", text)
    if match:
        kind = match.group(1)
        return (
            f"cuda.{kind}.array needs a size known when the kernel is compiled: "
            "use a constant (a global or a literal), and a NumPy dtype such as "
            "np.float64",
            rf"{kind}\.array\(",
        )
    match = re.search(r"Untyped global name '(\w+)':.*?<class '(\w+)'>", text)
    if match:
        name, kind = match.groups()
        if kind in ("list", "dict", "set"):
            return f"{name} is a Python {kind}; {NO_LIST}", None
        if kind == "function":
            return (
                f"{name} is a plain Python function: a kernel can call only "
                "functions decorated with @cuda.jit(device=True)",
                None,
            )
        return f"{name} (a {kind}) cannot be used inside a kernel", None
    if _LIST.search(text):
        return NO_LIST, None
    match = re.search(r"Function\(<(?:built-in )?function (\w+)", text)
    name = match.group(1) if match else ""
    if name.startswith("array_") and re.search(rf"\.{name[6:]}\(", source):
        return _method(name[6:])
    if name and re.search(rf"\.{name}\(", source):
        if name in _ALLOCATING:
            return NO_ALLOC.format(what=f"np.{name}"), rf"\.{name}\("
        return (
            f"np.{name} is not supported inside a CUDA kernel: write the loop yourself",
            rf"\.{name}\(",
        )
    match = re.search(r"Unknown attribute '(\w+)' of type array", text)
    if match:
        return _method(match.group(1))
    if "NRT required but not enabled" in text:
        return NO_ALLOC.format(what="np.zeros, x * 2, x + y on whole arrays"), None
    if re.search(r"No conversion from \S+ to none", text):
        return (
            "a kernel cannot return a value: write the result into an output array",
            r"^\s*return\s+\S",
        )
    if "printing unimplemented" in text:
        return (
            "print in a kernel takes only numbers and string literals",
            r"(?<![\w.])print\(",
        )
    return None, None


def _method(name: str) -> tuple[str, str]:
    return (
        f"the array method .{name}() is not supported inside a CUDA kernel: "
        "write the loop yourself",
        rf"\.{name}\(",
    )


def explain(
    name: str,
    signature: str,
    exc: BaseException,
    pyfunc: Any,
    path: Path | None = None,
) -> str:
    """A student's message for numba's refusal to compile ``pyfunc``.

    ``path`` is the file the answer was loaded from: a line number numba gives
    for that file is shown with the line's text.
    """
    text = str(exc)
    try:
        lines, start = inspect.getsourcelines(pyfunc)
    except (OSError, TypeError):
        lines, start = [], 0
    hint, pattern = _hint(text, "".join(lines))
    number = None
    for match in re.finditer(r'File "([^"]+)", line (\d+)|at (\S+) \((\d+)\)', text):
        file = match.group(1) or match.group(3)
        if path is None or Path(file).name == path.name:
            number = int(match.group(2) or match.group(4))
            break
    if number is None and pattern:
        found = [i for i, line in enumerate(lines) if re.search(pattern, line)]
        number = start + found[0] if found else None
    where = ""
    if number is not None and start <= number < start + len(lines):
        where = f" (line {number}: `{lines[number - start].strip()}`)"
    said = first_line(text) or type(exc).__name__
    head = f"{name} does not compile for CUDA with {signature}{where}"
    if hint:
        return f"{head}: {hint}. numba says: {said}"
    return f"{head}. numba says: {said}"
