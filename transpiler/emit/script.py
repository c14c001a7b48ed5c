"""A whole script: header comment, the helpers it uses, ``def run(params)``.

Assembled as one libcst module, checked against the Starlark subset we emit
(grammar/starlark-subset.md), and mapped back to the workflow's steps.
"""

from __future__ import annotations

import re
from functools import cache

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from transpiler.config.model import CompositeToolConfig
from transpiler.diagnostics import TranspilerError
from transpiler.emit.emitter import header_lines, run_function
from transpiler.emit.library import Library
from transpiler.emit.naming import Namer
from transpiler.emit.report import EmitResult, SourceMapEntry
from transpiler.emit.scope import EmitState
from transpiler.emit.statements import comment_lines
from transpiler.emit.subset import check_subset

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
LIBRARY_FILES = ("golib.star", "strconvlib.star", "vmcplib.star")


@cache
def helper_library() -> Library:
    """Every helper a script may include (Go semantics, strconv, vMCP's engine)."""
    from importlib import resources

    package = resources.files("transpiler.emit")
    return Library("\n\n".join(package.joinpath(name).read_text() for name in LIBRARY_FILES))


class EmitError(TranspilerError):
    """The tool cannot be expressed as a script (the message says why)."""


def emit_script(tool: CompositeToolConfig, source: str) -> EmitResult:
    """The migrated script for one validated tool."""
    library = helper_library()
    state = EmitState(tool, Namer(frozenset(library.definitions)))
    run, owners = run_function(state)
    own_code = cst.Module(body=[run]).code + "\n".join(state.definitions)
    helpers = library.source(_names_used(own_code, library) | state.helpers)
    statements: list[cst.BaseStatement] = []
    for source_text in (helpers, *state.definitions):
        if source_text:
            statements.extend(cst.parse_module(source_text).body)
    statements.append(run)
    module = cst.Module(
        body=statements,
        header=[*comment_lines("\n".join(header_lines(tool, state, source))), cst.EmptyLine()],
    )
    code = module.code
    check_subset(code)
    return EmitResult(
        tool=tool.name,
        script=code,
        source_map=_source_map(module, run, owners, state),
        notes=tuple(state.notes),
    )


def _names_used(code: str, library: Library) -> set[str]:
    """Library definitions the script's own code mentions."""
    return {word for word in _WORD.findall(code) if word in library}


def _source_map(
    module: cst.Module, run: cst.BaseStatement, owners: dict[int, str], state: EmitState
) -> tuple[SourceMapEntry, ...]:
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    assert isinstance(run, cst.FunctionDef)
    body = run.body.body
    by_id = {step.id: step for step in state.tool.steps}
    entries: list[SourceMapEntry] = []
    for index, statement in enumerate(body):
        where = positions[statement]
        owner = owners.get(index)
        step = by_id.get(owner) if owner is not None else None
        entries.append(
            SourceMapEntry(
                first_line=where.start.line,
                last_line=where.end.line,
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
