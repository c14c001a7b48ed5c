"""Whether a script loads as a scripted tool: it parses, and it defines ``run(params)``.

THV-0051 has vMCP parse every script when it loads its configuration and
verify that ``run(params)`` exists. The parse here is starlark-rust's, in the
dialect the ``rust`` engine runs (:data:`DIALECT`: top-level statements,
``load()`` does not re-export); ``while``, which vMCP's options allow and
starlark-rust does not parse, is read with Python's parser instead (the
Starlark grammar is Python's, less some statements). ``run`` must be a
top-level ``def`` that takes one argument.
"""

from __future__ import annotations

import ast
import re
import warnings
from dataclasses import dataclass
from typing import Final

import starlark as sl

DIALECT: Final = sl.Dialect.standard()
DIALECT.enable_top_level_stmt = True
DIALECT.enable_load_reexport = False

_POSITION = re.compile(r"-->\s*[^\n]*?:(?P<line>\d+):(?P<column>\d+)")
_WHILE = "reserved keyword `while`"


@dataclass(frozen=True)
class ScriptProblem:
    """Why a script does not load: the message, and its 1-based line and column in the script
    (0 when unknown)."""

    message: str
    line: int = 0
    column: int = 0

    def render(self) -> str:
        """``line 3, column 5: ...``."""
        if self.line <= 0:
            return self.message
        return f"line {self.line}, column {self.column}: {self.message}"


def syntax_problem(source: str, filename: str = "script.star") -> ScriptProblem | None:
    """Why ``source`` does not parse as Starlark, or None."""
    try:
        sl.parse(filename, source, DIALECT)
        return None
    except sl.StarlarkError as error:
        text = str(error)
        if _WHILE not in text:
            return _problem(text)
    return _python_problem(source)


def run_problem(source: str) -> ScriptProblem | None:
    """Why ``source`` (which parses) has no ``run(params)`` vMCP can call, or None."""
    tree = _python_tree(source)
    if tree is None:
        return None  # parsed as Starlark, not as Python: nothing more is read from it
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "run":
            arguments = node.args
            positional = [*arguments.posonlyargs, *arguments.args]
            required = len(positional) - len(arguments.defaults)
            if required <= 1 and (positional or arguments.vararg is not None):
                return None
            return ScriptProblem(
                "run must take one argument, the tool's parameters: def run(params)",
                node.lineno,
                node.col_offset + 1,
            )
    return ScriptProblem("the script defines no run(params) function at top level")


def _problem(text: str) -> ScriptProblem:
    """starlark-rust's error: its first line, at the position it points to."""
    first = text.strip().splitlines()[0] if text.strip() else "does not parse"
    message = first.removeprefix("error: ").split(", expected one of")[0].strip()
    found = _POSITION.search(text)
    if found is None:
        return ScriptProblem(message)
    return ScriptProblem(message, int(found["line"]), int(found["column"]))


def _python_tree(source: str) -> ast.Module | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # invalid escape sequences are Starlark's to judge
        try:
            return ast.parse(source)
        except (SyntaxError, ValueError):
            return None


def _python_problem(source: str) -> ScriptProblem | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ast.parse(source)
        except SyntaxError as error:
            return ScriptProblem(f"Parse error: {error.msg}", error.lineno or 0, error.offset or 0)
        except ValueError as error:
            return ScriptProblem(f"Parse error: {error}")
    return None
