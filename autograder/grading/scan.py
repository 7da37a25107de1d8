"""A static look at answer cells for code that reaches into the interpreter.

No lesson needs ``ctypes``, frame objects, tracing hooks, IPython's input
transformers, ``builtins``, the environment, ``/proc``, sockets or subprocesses
to answer a task. Code that does is listed for the instructor to review: the
flags go into ``grades.csv`` and the run summary, whatever the score.

A scan can be evaded (``getattr(__import__("sy" + "s"), ...)``). It does not
have to be airtight: grades are decided outside the kernel, so evading it earns
nothing; it only tells the instructor where to look.
"""

from __future__ import annotations

import ast
import re

#: Modules whose import is flagged, with the reason shown to the instructor.
MODULES = {
    "ctypes": "ctypes (raw memory and C calls)",
    "gc": "gc (reaching objects by reference)",
    "builtins": "builtins",
    "socket": "sockets",
    "subprocess": "subprocess",
    "multiprocessing": "new processes",
    "inspect": "inspect (frames)",
    "importlib": "importlib",
    "signal": "signal",
    "pty": "pty",
    "ipykernel": "the kernel's internals (ipykernel)",
    "autograder": "the grader's own modules (autograder)",
}
#: Submodules whose import is flagged (``IPython.display`` is fine).
SUBMODULES = {
    "IPython.core": "IPython's internals",
    "IPython.terminal": "IPython's internals",
}
#: Attribute and name uses that are flagged.
NAMES = {
    "_getframe": "sys._getframe (frames)",
    "settrace": "tracing hooks (settrace)",
    "setprofile": "profiling hooks (setprofile)",
    "get_ipython": "get_ipython() (the kernel's shell)",
    "input_transformers_post": "IPython input transformers",
    "input_transformers_cleanup": "IPython input transformers",
    "ast_transformers": "IPython AST transformers",
    "__builtins__": "builtins",
    "__import__": "__import__",
    "environ": "os.environ",
    "getenv": "os.getenv",
    "f_globals": "frame globals",
    "f_back": "frames",
    "gi_frame": "frames",
    "tb_frame": "frames",
    "excepthook": "sys.excepthook",
    "showtraceback": "IPython's traceback display",
    "_showtraceback": "IPython's traceback display",
    "showsyntaxerror": "IPython's traceback display",
}
#: ``os.<name>`` calls that are flagged (other modules' ``system`` are fine).
OS_CALLS = {"system", "popen", "fork", "execv", "execl", "spawnl", "kill", "_exit"}
_TEXT = [
    (re.compile(r"/proc\b"), "/proc"),
    (re.compile(r"\bget_ipython\b"), "get_ipython() (the kernel's shell)"),
    (re.compile(r"\bctypes\b"), "ctypes (raw memory and C calls)"),
    (re.compile(r"\bsubprocess\b"), "subprocess"),
    (re.compile(r"\bsocket\b"), "sockets"),
    (re.compile(r"\bsys\.exit\b"), "sys.exit (leaving the kernel)"),
]


def _module_aliases(tree: ast.AST) -> dict[str, str]:
    """Names that an import binds to a module: ``{"_cc": "course.checks"}``."""
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                aliases[alias.asname or alias.name.split(".")[0]] = alias.name
    return aliases


def _patches(tree: ast.AST) -> set[str]:
    """Assignments to an attribute of an imported module (monkeypatching)."""
    aliases = _module_aliases(tree)
    found = set()
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for target in targets:
            base = target
            while isinstance(base, ast.Attribute):
                base = base.value
            if isinstance(target, ast.Attribute) and isinstance(base, ast.Name):
                module = aliases.get(base.id)
                if module is not None:
                    found.add(f"replaces {module}.{target.attr} (monkeypatching)")
    return found


def _from_ast(tree: ast.AST) -> set[str]:
    found = _patches(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        else:
            names = []
        for name in names:
            top = name.split(".")[0]
            if top in MODULES:
                found.add(MODULES[top])
            for prefix, reason in SUBMODULES.items():
                if name == prefix or name.startswith(prefix + "."):
                    found.add(reason)
        if isinstance(node, ast.Attribute) and node.attr in NAMES:
            found.add(NAMES[node.attr])
        elif (
            isinstance(node, ast.Attribute)
            and node.attr == "exit"
            and isinstance(node.value, ast.Name)
            and node.value.id == "sys"
        ):
            found.add("sys.exit (leaving the kernel)")
        elif (
            isinstance(node, ast.Attribute)
            and node.attr in OS_CALLS
            and isinstance(node.value, ast.Name)
            and node.value.id == "os"
        ):
            found.add(f"os.{node.attr}")
        elif isinstance(node, ast.Name) and node.id in NAMES:
            found.add(NAMES[node.id])
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if "/proc" in node.value:
                found.add("/proc")
    return found


def scan_source(source: str) -> list[str]:
    """What in one cell's code deserves a look, sorted (empty: nothing)."""
    try:
        found = _from_ast(ast.parse(source))
    except SyntaxError:  # IPython syntax (magics, !shell): fall back to the text
        found = {reason for pattern, reason in _TEXT if pattern.search(source)}
        if re.search(r"^\s*[!%]", source, re.MULTILINE):
            found.add("shell or magic commands")
    return sorted(found)


def scan_answers(cells: list[tuple[str, str]]) -> list[str]:
    """``["<grade_id>: <what>", ...]`` for ``(grade_id, source)`` answer cells."""
    return [f"{gid}: {what}" for gid, source in cells for what in scan_source(source)]
