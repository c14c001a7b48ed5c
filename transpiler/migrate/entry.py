"""Turn one composite tool's mapping into a scripted tool's, as splices on the original text.

``name``, ``description``, ``parameters``, ``timeout`` and every comment
stay exactly as written; ``steps`` goes; ``output`` becomes its JSON Schema in
place; ``annotations`` becomes what the target's scripted entry holds
(:func:`transpiler.listing.entry_annotations`): gone where the target has none,
else vMCP's advertised hints, in place or added (kept as written when they are
those); ``script: |`` (or ``scriptFile:``) is added after the last entry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from transpiler.config.yamltext import block, literal_block, scalar
from transpiler.inputs.textspan import Splice, Text, Unrewritable, indent_step
from transpiler.inputs.yamlspan import SpanKind, SpanNode


@dataclass(frozen=True)
class ScriptedBody:
    """What replaces the workflow: the script (inline or a file path), the output schema and the
    annotations the scripted entry holds (wire form; None: none)."""

    script: str
    script_file: str | None
    output: dict[str, Any] | None
    annotations: dict[str, Any] | None = None


def tool_splices(text: Text, tool: SpanNode, body: ScriptedBody) -> list[Splice]:
    """Splices that make the block mapping ``tool`` a scripted tool."""
    if tool.kind is not SpanKind.MAPPING or tool.flow:
        raise Unrewritable("the tool is written in flow style ({...}); migrate rewrites block YAML")
    anchored = [n for n in tool.walk() if n.anchor is not None or n.kind is SpanKind.ALIAS]
    if anchored:
        raise Unrewritable(
            f"line {anchored[0].line + 1}: the tool uses YAML anchors or aliases; "
            "rewriting it could break references"
        )
    step = indent_step(tool)
    column = tool.column
    pairs = tool.pairs()
    keys = [key.value for key, _ in pairs]
    written = pairs[keys.index("annotations")][1].plain() if "annotations" in keys else None
    gone = {index for index, key in enumerate(keys) if key == "steps"}
    if body.annotations is None and "annotations" in keys:
        gone.add(keys.index("annotations"))
    splices = _remove_entries(text, pairs, gone)
    for index, (key, value) in enumerate(pairs):
        if key.value == "output" and body.output is not None:
            rendered = "output:\n" + block(body.output, column + step, step)
            splices.append(Splice(key.start, text.entry_end(key, value), text.adjust(rendered)))
        elif key.value == "annotations" and index not in gone and written != body.annotations:
            assert body.annotations is not None
            rendered = "annotations:\n" + block(body.annotations, column + step, step)
            splices.append(Splice(key.start, text.entry_end(key, value), text.adjust(rendered)))
    end = text.line_end(max(text.content_end(tool) - 1, tool.start))
    added = ""
    if body.annotations is not None and "annotations" not in keys:
        added = f"{' ' * column}annotations:\n" + block(body.annotations, column + step, step)
    if body.script_file is not None:
        added += f"{' ' * column}scriptFile: {scalar(body.script_file)}\n"
    else:
        added += literal_block("script", body.script, column, step)
    lead = "" if text.text[:end].endswith("\n") else "\n"
    splices.append(Splice(end, end, text.adjust(lead + added)))
    return splices


def _remove_entries(
    text: Text, pairs: list[tuple[SpanNode, SpanNode]], gone: set[int]
) -> list[Splice]:
    """Remove the entries ``gone`` (by index): each its lines; the first entry of a ``- key:``
    line hands its place on to the next entry that stays."""
    splices: list[Splice] = []
    covered: set[int] = set()
    for index in sorted(gone - covered):
        if index in covered:
            continue
        key, value = pairs[index]
        if not text.text[text.line_start(key.start) : key.start].strip():
            splices.append(Splice(text.line_start(key.start), text.entry_end(key, value), ""))
            continue
        kept = [later for later in range(index + 1, len(pairs)) if later not in gone]
        if not kept:
            raise Unrewritable("the tool has nothing but its steps")
        covered.update(range(index + 1, kept[0]))
        following = pairs[kept[0]][0]
        end = text.entry_end(*pairs[kept[0] - 1])
        between = text.text[end : text.line_start(following.start)]
        splices.append(Splice(key.start, following.start, ""))
        if between.strip():
            line = text.line_start(key.start)
            splices.append(Splice(line, line, between))
    return splices
