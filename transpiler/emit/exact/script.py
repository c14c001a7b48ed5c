"""A whole script: header comment, the helpers it uses, ``def run(params)``.

The helpers come from ``vmcp_compat.star``: the script loads the names its
code refers to, or (``inline_helpers``) carries their definitions after
``run()``, self-contained. The script's own code is parsed once (Python's
``ast``, the subset being Python syntax): that parse is checked against the
Starlark subset we emit (grammar/starlark-subset.md), names the helpers used,
and places each statement of ``run()`` for the source map back to the
workflow's steps.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import libcst as cst

from transpiler.config.model import CompositeToolConfig
from transpiler.emit import ir
from transpiler.emit.exact.emitter import header_lines, run_function
from transpiler.emit.exact.layout import LINE_WIDTH
from transpiler.emit.exact.nodes import TEMPLATE_LAYOUT
from transpiler.emit.exact.scope import EmitState
from transpiler.emit.fixes import checked_fixes
from transpiler.emit.library import LIBRARY_NAME, Library, helper_library, library_text
from transpiler.emit.limits import EmitterLimit
from transpiler.emit.literals import string_literal
from transpiler.emit.naming import Namer
from transpiler.emit.report import EmitResult, SourceMapEntry
from transpiler.emit.subset import check_subset, parse_script
from transpiler.inert import comment_lines as inert_lines

HELPERS_INTRO = """\
# ---------------------------------------------------------------------------
# Helpers. They reproduce what vMCP's Go engine does (Go templates, vMCP's
# step semantics), so the script above behaves exactly like the composite tool.
# ---------------------------------------------------------------------------
"""
LOAD_INTRO = """\
# Helpers that reproduce what vMCP's Go engine does (Go templates, vMCP's step
# semantics), from vmcp_compat.star (`vmcp-transpile library --out DIR` writes it).
"""


def emit_script(
    tool: CompositeToolConfig,
    source: str,
    tool_schemas: Mapping[str, Any] | None = None,
    fixes: Iterable[str] = (),
    inline_helpers: bool = False,
) -> EmitResult:
    """The migrated script for one validated tool.

    ``tool_schemas`` maps backend tool names to their ``inputSchema`` (from a
    ``tools/list``); without it the script does not convert argument types.
    ``fixes`` names quirks to fix instead of reproducing (see ``fixes.FIXES``).
    The script loads its helpers from ``vmcp_compat.star`` (given in the
    result's ``modules``), or carries them when ``inline_helpers``.
    """
    try:
        return _emit(tool, source, tool_schemas, fixes, inline_helpers)
    except RecursionError:
        raise EmitterLimit(
            "the tool nests too deeply for the emitter (a transpiler limit, not vMCP's)"
        ) from None


def _emit(
    tool: CompositeToolConfig,
    source: str,
    tool_schemas: Mapping[str, Any] | None,
    fixes: Iterable[str],
    inline_helpers: bool,
) -> EmitResult:
    library = helper_library()
    namer = Namer(frozenset(library.definitions))
    state = EmitState(tool, namer, tool_schemas, checked_fixes(fixes))
    run, owners = run_function(state)
    definitions = [ir.print_statements([d], TEMPLATE_LAYOUT).text for d in state.definitions]
    own_code = "\n\n".join([*definitions, cst.Module(body=[run]).code.strip("\n")])
    tree = parse_script(own_code)
    check_subset(tree, frozenset(library.definitions))
    used = _names_used(tree, library)
    header = "".join(
        line.strip() + "\n" if line.strip() == "#" else line.rstrip() + "\n"
        for line in comment_lines_text(header_lines(tool, state, source))
    )
    loads = bool(used) and not inline_helpers
    code = header + "\n" + (LOAD_INTRO + load_statement(sorted(used)) + "\n" if loads else "")
    code += own_code + "\n"
    run_offset = code.count("\n", 0, code.index("\ndef run(") + 1)
    if used and inline_helpers:
        code += "\n\n" + HELPERS_INTRO + "\n" + library.source(used) + "\n"
    return EmitResult(
        tool=tool.name,
        script=code,
        source_map=_source_map(tree, owners, state, run_offset),
        notes=tuple(state.notes),
        modules={LIBRARY_NAME: library_text()} if loads else {},
    )


def load_statement(names: Sequence[str]) -> str:
    """``load("vmcp_compat.star", ...)`` of ``names``: one line, or one name a line."""
    arguments = [string_literal(LIBRARY_NAME), *(string_literal(name) for name in names)]
    line = f"load({', '.join(arguments)})\n"
    if len(line) <= LINE_WIDTH + 1:
        return line
    return "load(\n" + "".join(f"    {argument},\n" for argument in arguments) + ")\n"


def comment_lines_text(lines: list[str]) -> list[str]:
    """Header lines as ``#`` comments (each made inert)."""
    return [f"# {line}" if line else "#" for text in lines for line in inert_lines(text)]


def _names_used(tree: ast.Module, library: Library) -> set[str]:
    """Library definitions the script's own code refers to (by name, not in strings)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            name = node.id
        elif isinstance(node, ast.FunctionDef):
            name = node.name
        elif isinstance(node, ast.arg):
            name = node.arg
        else:
            continue
        if name in library:
            found.add(name)
    return found


def _source_map(
    tree: ast.Module, owners: dict[int, str], state: EmitState, offset: int
) -> tuple[SourceMapEntry, ...]:
    """Which script lines implement which step, from the parse of the script's own code
    (``offset``: lines of the whole script before ``def run``)."""
    run = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "run")
    shift = offset - run.lineno + 1
    by_id = {step.id: step for step in state.tool.steps}
    entries: list[SourceMapEntry] = []
    for index, statement in enumerate(run.body):
        owner = owners.get(index)
        step = by_id.get(owner) if owner is not None else None
        entries.append(
            SourceMapEntry(
                first_line=statement.lineno + shift,
                last_line=(statement.end_lineno or statement.lineno) + shift,
                part="step" if owner is not None else "run",
                step=owner,
                location=step.where.at if step is not None else None,
            )
        )
    return tuple(_merge(entries))


def _merge(entries: list[SourceMapEntry]) -> list[SourceMapEntry]:
    merged: list[SourceMapEntry] = []
    for entry in entries:
        if merged and merged[-1].step == entry.step and merged[-1].part == entry.part:
            last = merged[-1]
            merged[-1] = SourceMapEntry(
                last.first_line, entry.last_line, last.part, last.step, last.location
            )
        else:
            merged.append(entry)
    return merged
