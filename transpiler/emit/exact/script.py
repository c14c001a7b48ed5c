"""A whole script: header comment, the helpers it uses, ``def run(params)``.

The helpers come from ``vmcp_compat.star``: the script loads the names its
code refers to, or (``inline_helpers``) carries their definitions after
``run()``, self-contained. The script's own code is IR nodes: the names they
use say which helpers to load, and the printer's statement lines place each
statement of ``run()`` for the source map back to the workflow's steps. The
printed code is checked against the Starlark subset we emit
(grammar/starlark-subset.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from transpiler.config.model import CompositeToolConfig
from transpiler.deviations import Deviation
from transpiler.emit import ir
from transpiler.emit.exact.emitter import header_text, run_function
from transpiler.emit.exact.nodes import LAYOUT, TEMPLATE_LAYOUT, names_in
from transpiler.emit.exact.scope import EmitState
from transpiler.emit.fixes import checked_fixes
from transpiler.emit.library import LIBRARY_NAME, helper_library, library_text
from transpiler.emit.limits import EmitterLimit
from transpiler.emit.naming import Namer
from transpiler.emit.report import EmitResult, SourceMapEntry
from transpiler.emit.subset import check_subset

_RULE = "-" * 75
HELPERS_INTRO = ir.Comment(
    f"{_RULE}\n"
    "Helpers. They reproduce what vMCP's Go engine does (Go templates, vMCP's\n"
    "step semantics), so the script above behaves exactly like the composite tool.\n"
    f"{_RULE}"
)
LOAD_INTRO = ir.Comment(
    "Helpers that reproduce what vMCP's Go engine does (Go templates, vMCP's step\n"
    "semantics), from vmcp_compat.star (`vmcp-transpile library --out DIR` writes it)."
)


def emit_script(
    tool: CompositeToolConfig,
    source: str,
    tool_schemas: Mapping[str, Any] | None = None,
    fixes: Iterable[str] = (),
    inline_helpers: bool = False,
    entry: Mapping[Deviation, str] | None = None,
) -> EmitResult:
    """The migrated script for one validated tool.

    ``tool_schemas`` maps backend tool names to their ``inputSchema`` (from a
    ``tools/list``); without it the script does not convert argument types.
    ``fixes`` names quirks to fix instead of reproducing (see ``fixes.FIXES``).
    The script loads its helpers from ``vmcp_compat.star`` (given in the
    result's ``modules``), or carries them when ``inline_helpers``. ``entry``: the classes
    its scripted tool's entry shows, declared with their sentences.
    """
    try:
        return _emit(tool, source, tool_schemas, fixes, inline_helpers, entry or {})
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
    entry: Mapping[Deviation, str],
) -> EmitResult:
    library = helper_library()
    namer = Namer(frozenset(library.definitions))
    state = EmitState(tool, namer, tool_schemas, checked_fixes(fixes))
    run, owners = run_function(state)
    for deviation, sentence in sorted(entry.items()):
        state.note("deviation", deviation, sentence)
    run_printed = ir.print_statements([run], LAYOUT)
    definitions = [ir.print_statements([d], TEMPLATE_LAYOUT).text for d in state.definitions]
    own_code = "\n\n".join([*definitions, run_printed.text])
    check_subset(own_code, frozenset(library.definitions))
    used = names_in([*state.definitions, run]) & set(library.definitions)
    header = header_text(tool, state, source)
    loads = bool(used) and not inline_helpers
    code = header + "\n"
    if loads:
        load = ir.Load(LIBRARY_NAME, tuple(sorted(used)))
        code += ir.print_statements([LOAD_INTRO, load], LAYOUT).text + "\n"
    run_offset = code.count("\n") + sum(text.count("\n") + 2 for text in definitions)
    code += own_code
    if used and inline_helpers:
        intro = ir.print_statements([HELPERS_INTRO], LAYOUT).text
        code += "\n\n" + intro + "\n" + library.source(used) + "\n"
    return EmitResult(
        tool=tool.name,
        script=code,
        source_map=_source_map(run, run_printed, owners, state, run_offset),
        notes=tuple(state.notes),
        modules={LIBRARY_NAME: library_text()} if loads else {},
    )


def _source_map(
    run: ir.Def, printed: ir.Printed, owners: dict[int, str], state: EmitState, offset: int
) -> tuple[SourceMapEntry, ...]:
    """Which script lines implement which step, from the lines the printer gave each statement
    of ``run`` (``offset``: lines of the whole script before ``def run``)."""
    by_id = {step.id: step for step in state.tool.steps}
    entries: list[SourceMapEntry] = []
    for index, statement in enumerate(run.body):
        if isinstance(statement, ir.Comment | ir.Blank):
            continue
        first, last = printed.spans[(0, index)]
        owner = owners.get(index)
        step = by_id.get(owner) if owner is not None else None
        entries.append(
            SourceMapEntry(
                first_line=first + offset,
                last_line=last + offset,
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
