"""``vmcp_compat.star``, the helper library of exact scripts, and its definitions.

The library is one ``.star`` file of top-level definitions (``def`` or
constant assignments), each introduced by the comment directly above it;
comment blocks separated from a definition by a blank line are section
headings. A script loads the names it uses from the file, or (inline form)
carries the definitions it uses plus what those use, in file order, so the
same set of names always gives the same text. The file is read with libcst
(comments included), imported only when the library is read.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    import libcst as cst

    Statement: TypeAlias = cst.SimpleStatementLine | cst.BaseCompoundStatement

LIBRARY_NAME = "vmcp_compat.star"


@dataclass(frozen=True)
class Definition:
    """One top-level definition: its name, source (with its comment) and the names it uses."""

    name: str
    source: str
    uses: frozenset[str]


class Library:
    """The definitions of one ``.star`` file, in file order."""

    def __init__(self, text: str) -> None:
        import libcst as cst

        units = [(_defined_name(statement), statement) for statement in statements(text)]
        names = {name for name, _ in units}
        self.definitions: dict[str, Definition] = {}
        for name, statement in units:
            own = statement.with_changes(
                leading_lines=_trailing_comment_block(statement.leading_lines)
            )
            source = cst.Module(body=[own]).code.strip("\n") + "\n"
            used = _names_in(statement) & names - {name}
            self.definitions[name] = Definition(name, source, frozenset(used))
        self._order = [name for name, _ in units]

    def closure(self, names: Iterable[str]) -> list[str]:
        """The requested names plus everything they use, in file order."""
        wanted: set[str] = set()
        pending = [n for n in names if n in self.definitions]
        while pending:
            name = pending.pop()
            if name in wanted:
                continue
            wanted.add(name)
            pending.extend(self.definitions[name].uses)
        return [name for name in self._order if name in wanted]

    def source(self, names: Iterable[str]) -> str:
        """The source of :meth:`closure`, definitions separated by blank lines."""
        return "\n\n".join(self.definitions[name].source for name in self.closure(names))

    def __contains__(self, name: object) -> bool:
        return name in self.definitions


@cache
def library_text() -> str:
    """The text of ``vmcp_compat.star`` as shipped (what scripts load)."""
    return resources.files("transpiler.emit").joinpath(LIBRARY_NAME).read_text(encoding="utf-8")


@cache
def helper_library() -> Library:
    """Every helper an exact script may use (Go semantics, strconv, vMCP's engine)."""
    return Library(library_text())


def statements(text: str) -> list[Statement]:
    """The top-level statements of Starlark source, each with the comment above it.

    libcst files the comment above a module's first statement under the
    module header; it is moved back onto that statement.
    """
    import libcst as cst

    module = cst.parse_module(text)
    body: list[Statement] = list(module.body)
    if body:
        intro = _trailing_comment_block(module.header)
        body[0] = body[0].with_changes(leading_lines=[*intro, *body[0].leading_lines])
    return body


def _trailing_comment_block(lines: Sequence[cst.EmptyLine]) -> list[cst.EmptyLine]:
    """The comment lines right before a definition (above a blank line: a heading)."""
    block: list[cst.EmptyLine] = []
    for line in reversed(lines):
        if line.comment is None:
            break
        block.insert(0, line)
    return block


def _defined_name(statement: cst.CSTNode) -> str:
    import libcst as cst

    if isinstance(statement, cst.FunctionDef):
        return statement.name.value
    if isinstance(statement, cst.SimpleStatementLine):
        assign = statement.body[0]
        if isinstance(assign, cst.Assign) and isinstance(assign.targets[0].target, cst.Name):
            return assign.targets[0].target.value
    raise ValueError(f"a helper library may only hold defs and constants, not {statement!r}")


def _names_in(node: cst.CSTNode) -> set[str]:
    import libcst as cst

    found: set[str] = set()

    class Collector(cst.CSTVisitor):
        def visit_Name(self, name: cst.Name) -> None:
            found.add(name.value)

    node.visit(Collector())
    return found
