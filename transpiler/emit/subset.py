"""The Starlark subset migrated scripts use, enforced on every emitted script.

No ``while``, no recursion, no ``load`` but a top-level one of helpers from
``vmcp_compat.star``, no name outside the profile's builtins, the Starlark
built-ins both interpreters share, the loaded helpers and the script's own
definitions (grammar/starlark-subset.md).

The check reads the script with Python's own parser (``ast``: the subset is
Python syntax), a millisecond for a typical script.
"""

from __future__ import annotations

import ast
import warnings

from transpiler.diagnostics import TranspilerError
from transpiler.emit.library import LIBRARY_NAME, helper_library
from transpiler.profile import HOST_BUILTINS

#: The host's builtins, the modules both interpreters predeclare, and ``fail``.
PROFILE_BUILTINS = frozenset({*HOST_BUILTINS, "json", "struct", "fail"})
SHARED_BUILTINS = frozenset(
    {
        "None",
        "True",
        "False",
        "bool",
        "dict",
        "enumerate",
        "float",
        "getattr",
        "hasattr",
        "int",
        "len",
        "list",
        "max",
        "min",
        "ord",
        "chr",
        "range",
        "repr",
        "reversed",
        "sorted",
        "str",
        "tuple",
        "type",
        "zip",
        "any",
        "all",
    }
)


class SubsetViolation(TranspilerError):
    """An emitted script strays outside the subset (a bug in the emitter)."""


def check_subset(code: str | ast.Module, provided: frozenset[str] = frozenset()) -> None:
    """Raise :class:`SubsetViolation` if ``code`` (or its parse) uses anything outside the
    subset.

    ``provided`` names definitions the script gets from the helper library
    (checked on their own, once).
    """
    checker = _Checker()
    checker.visit(parse_script(code) if isinstance(code, str) else code)
    allowed = PROFILE_BUILTINS | SHARED_BUILTINS | checker.bound | provided
    for node in checker.read:
        if node not in checker.loads and node.id not in allowed:
            checker.problems.append(f"unknown name {node.id}")
    if checker.problems:
        problems = "; ".join(sorted(set(checker.problems)))
        raise SubsetViolation(f"emitted script outside the Starlark subset: {problems}")


def parse_script(code: str) -> ast.Module:
    """The script's syntax tree (escape-sequence warnings aside: Starlark has its own)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(code)


class _Checker(ast.NodeVisitor):
    """Finds forbidden constructs, the names the script reads and every name it binds."""

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.bound: set[str] = set()
        self.read: list[ast.Name] = []
        self.function_stack: list[str] = []
        self.loads: set[ast.Name] = set()

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            self.read.append(node)

    def visit_While(self, node: ast.While) -> None:
        self.problems.append("while loop")
        self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        self.problems.append("import")

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        self.problems.append("import")

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self.bound.add(node.name)
        self.function_stack.append(node.name)
        self.generic_visit(node)
        self.function_stack.pop()

    def visit_arg(self, node: ast.arg) -> None:
        self.bound.add(node.arg)

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            self._bind(target)
        self.generic_visit(node)

    def visit_For(self, node: ast.For) -> None:
        self._bind(node.target)
        self.generic_visit(node)

    def visit_comprehension(self, node: ast.comprehension) -> None:
        self._bind(node.target)
        self.generic_visit(node)

    def _bind(self, target: ast.expr) -> None:
        for name in _names(target):
            self.bound.add(name)

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Name):
            name = node.func.id
            if name == "load":
                self._load(node)
            if name in self.function_stack:
                self.problems.append(f"recursive call of {name}")
        self.generic_visit(node)

    def _load(self, node: ast.Call) -> None:
        """A top-level ``load`` of library helpers binds them; any other load is refused."""
        texts = [
            arg.value if isinstance(arg, ast.Constant) and isinstance(arg.value, str) else None
            for arg in node.args
        ]
        names = texts[1:]
        if (
            self.function_stack
            or node.keywords
            or any(isinstance(arg, ast.Starred) for arg in node.args)
            or not texts
            or texts[0] != LIBRARY_NAME
            or not all(isinstance(name, str) and name in helper_library() for name in names)
        ):
            self.problems.append(f"load() other than of {LIBRARY_NAME} helpers")
            return
        assert isinstance(node.func, ast.Name)
        self.loads.add(node.func)
        self.bound.update(name for name in names if isinstance(name, str))


def _names(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Starred):
        return _names(target.value)
    if isinstance(target, ast.Tuple | ast.List):
        return [name for element in target.elts for name in _names(element)]
    return []
