"""The readable style: the script a careful engineer writes against THV-0051.

Facade: :func:`emit_readable`. The workflow part (:mod:`.workflow`) lays out
steps and levels; the template part (:mod:`.templates`) turns each Go
template into a plain expression. Where a plain script differs from vMCP, the
difference is a named deviation class (``transpiler.deviations``) the script
declares in its header and in ``EmitResult.deviations``; behaviour of vMCP's
that is fixed when the script is written (a field no step has) is kept and
said so. A construct with no plain form raises :class:`NotReadable`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from transpiler.config.model import CompositeToolConfig
from transpiler.declaration import TITLE as DECLARATION_TITLE
from transpiler.deviations import Deviation
from transpiler.emit.header import header_comment
from transpiler.emit.limits import EmitterLimit, check_template
from transpiler.emit.readable.helpers import helpers
from transpiler.emit.readable.state import State
from transpiler.emit.readable.templates import NotReadable
from transpiler.emit.readable.workflow import run_function
from transpiler.emit.report import EmitResult, Note, SourceMapEntry
from transpiler.emit.timeouts import WITHIN_TIMEOUTS, timeouts_text
from transpiler.gotemplate import TemplateSyntaxError, parse
from transpiler.inert import comment_text
from transpiler.plan.dataflow import template_sites

__all__ = ["NotReadable", "emit_readable"]


def emit_readable(
    tool: CompositeToolConfig,
    source: str,
    tool_schemas: Mapping[str, Any] | None = None,
    fixes: Iterable[str] = (),
    entry: Mapping[Deviation, str] | None = None,
) -> EmitResult:
    """The readable script for one validated tool (raises :class:`NotReadable`); ``entry``:
    the classes its scripted tool's entry shows, declared with their sentences."""
    _within_limits(tool)
    state = State(tool, tool_schemas)
    _domain(state)
    run, spans = run_function(state)
    decoded_again = frozenset(text for text, sites in state.decodes.items() if sites > 1)
    if decoded_again:  # write it again, decoding each of those texts once
        state = State(tool, tool_schemas, decoded_again)
        _domain(state)
        run, spans = run_function(state)
    dropped = timeouts_text(tool)
    sentences = dict(entry or {})
    if dropped is not None:
        state.declare(Deviation.STEP_TIMEOUT)
        sentences[Deviation.STEP_TIMEOUT] = dropped
    state.declare(*sentences)
    for deviation in sorted(state.declared):
        summary = sentences.get(deviation, deviation.about.summary)
        state.notes.append(Note("deviation", deviation, summary))
    helper_sources = [helpers()[h] for h in sorted(state.helpers)]
    header = _header(tool, source, state)
    script = header + "\n" + run + "".join("\n\n" + helper for helper in helper_sources)
    offset = header.count("\n") + 1
    by_id = {step.id: step for step in tool.steps}
    source_map = tuple(
        SourceMapEntry(
            first + offset,
            last + offset,
            "step",
            steps,
            by_id[steps].where.at if steps in by_id else None,
        )
        for steps, first, last in spans
    )
    return EmitResult(tool.name, script, source_map, tuple(state.notes), style="readable")


def _within_limits(tool: CompositeToolConfig) -> None:
    """Refuse, naming the step, a template past the emitter's limits (as the exact style does)."""
    by_id = {step.id: step for step in tool.steps}
    for site in template_sites(tool):
        try:
            tree = parse(site.text)
        except TemplateSyntaxError:
            continue
        try:
            check_template({id(t): t for t in (tree.root, *tree.trees.values())}.values())
        except EmitterLimit as error:
            step = by_id.get(site.reader)
            if step is None:
                raise EmitterLimit(f"output {site.site}: {error}") from None
            where = step.where.at
            raise EmitterLimit(f"step {step.id} ({where.file}:{where.line}): {error}") from None


def _domain(state: State) -> None:
    state.note(
        "domain",
        "tools-exist",
        "every tool the workflow calls exists (vMCP hides the composite tool otherwise)",
    )
    state.note("domain", "within-timeouts", WITHIN_TIMEOUTS)
    state.note(
        "domain",
        "no-negative-zero",
        "no JSON number the tool receives is -0 (the scripted-tool host reads it as 0)",
    )


#: The most characters of a description's first line the header repeats.
MAX_SUMMARY_CHARS = 200


def _summary(description: str) -> str:
    """A description's first line (at most :data:`MAX_SUMMARY_CHARS`): the header stays short
    however long the description, which the config keeps beside the script anyway."""
    first = description.strip().split("\n", 1)[0].strip()
    return first if len(first) <= MAX_SUMMARY_CHARS else first[:MAX_SUMMARY_CHARS] + "..."


#: The width the header's bullets wrap at (after their ``# ``).
HEADER_WIDTH = 96


def _header(tool: CompositeToolConfig, source: str, state: State) -> str:
    intro = [
        comment_text(f"{tool.name}: {_summary(tool.description)}".rstrip(": ")),
        "",
        comment_text(f"Migrated from the vMCP composite tool at {source}."),
    ]
    deviations = [comment_text(f"{n.name}: {n.text}") for n in state.notes if n.kind == "deviation"]
    findings = [comment_text(n.text) for n in state.notes if n.kind == "finding"]
    sections = (
        (DECLARATION_TITLE, deviations),
        ("vMCP behaviour it keeps on purpose (see the findings of `check`):", findings),
    )
    return header_comment(intro, sections, HEADER_WIDTH)
