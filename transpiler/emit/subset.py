"""The Starlark subset migrated scripts use, enforced on every emitted script.

No ``while``, no recursion, no ``load`` but a top-level one of helpers from
``vmcp_compat.star``, no name outside the profile's builtins, the Starlark
built-ins both interpreters share, the loaded helpers and the script's own
definitions (grammar/starlark-subset.md).
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import ExpressionContext, ExpressionContextProvider, MetadataWrapper

from transpiler.diagnostics import TranspilerError
from transpiler.emit.library import LIBRARY_NAME, helper_library

PROFILE_BUILTINS = frozenset(
    {"call_tool", "try_call_tool", "retry", "elicit", "parallel", "log", "json", "struct", "fail"}
)
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


def check_subset(code: str, provided: frozenset[str] = frozenset()) -> None:
    """Raise :class:`SubsetViolation` if ``code`` uses anything outside the subset.

    ``provided`` names definitions the script gets from the helper library
    (checked on their own, once).
    """
    wrapper = MetadataWrapper(cst.parse_module(code))
    contexts = wrapper.resolve(ExpressionContextProvider)
    checker = _Checker()
    wrapper.module.visit(checker)
    allowed = PROFILE_BUILTINS | SHARED_BUILTINS | checker.bound | provided
    for node, context in contexts.items():
        if (
            isinstance(node, cst.Name)
            and context is ExpressionContext.LOAD
            and node not in checker.keywords
            and node not in checker.loads
        ) and node.value not in allowed:
            checker.problems.append(f"unknown name {node.value}")
    if checker.problems:
        problems = "; ".join(sorted(set(checker.problems)))
        raise SubsetViolation(f"emitted script outside the Starlark subset: {problems}")


class _Checker(cst.CSTVisitor):
    """Finds forbidden constructs and collects every name the script binds."""

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.bound: set[str] = set()
        self.function_stack: list[str] = []
        self.keywords: set[cst.Name] = set()
        self.loads: set[cst.Name] = set()

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self.keywords.add(node.keyword)

    def visit_While(self, node: cst.While) -> None:
        self.problems.append("while loop")

    def visit_Import(self, node: cst.Import) -> None:
        self.problems.append("import")

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self.problems.append("import")

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.bound.add(node.name.value)
        self.function_stack.append(node.name.value)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.function_stack.pop()

    def visit_Param(self, node: cst.Param) -> None:
        self.bound.add(node.name.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._bind(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._bind(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._bind(node.target)

    def _bind(self, target: cst.BaseExpression) -> None:
        for name in _names(target):
            self.bound.add(name)

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name):
            name = node.func.value
            if name == "load":
                self._load(node)
            if name in self.function_stack:
                self.problems.append(f"recursive call of {name}")

    def _load(self, node: cst.Call) -> None:
        """A top-level ``load`` of library helpers binds them; any other load is refused."""
        values = [arg.value for arg in node.args]
        texts = [v.evaluated_value if isinstance(v, cst.SimpleString) else None for v in values]
        names = texts[1:]
        if (
            self.function_stack
            or any(arg.keyword is not None or arg.star for arg in node.args)
            or not texts
            or texts[0] != LIBRARY_NAME
            or not all(isinstance(name, str) and name in helper_library() for name in names)
        ):
            self.problems.append(f"load() other than of {LIBRARY_NAME} helpers")
            return
        assert isinstance(node.func, cst.Name)
        self.loads.add(node.func)
        self.bound.update(name for name in names if isinstance(name, str))


def _names(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, cst.Tuple | cst.List):
        return [name for element in target.elements for name in _names(element.value)]
    return []
