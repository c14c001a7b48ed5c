"""Turn one composite tool's mapping into a scripted tool's, as splices on the original text.

``name``, ``description``, ``parameters``, ``timeout`` and every comment
stay exactly as written; ``steps`` goes; ``output`` becomes its JSON Schema in
place; ``annotations`` becomes the hints vMCP advertised for the composite tool
(:mod:`transpiler.listing`), in place or added, when they differ from those
written; ``script: |`` (or ``scriptFile:``) is added after the last entry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from transpiler.config.yamltext import block, literal_block, scalar
from transpiler.inputs.textspan import Splice, Text, Unrewritable, indent_step
from transpiler.inputs.yamlspan import SpanKind, SpanNode


@dataclass(frozen=True)
class ScriptedBody:
    """What replaces the workflow: the script (inline or a file path) and the output schema."""

    script: str
    script_file: str | None
    output: dict[str, Any] | None
    #: The annotations to write (wire form), when they differ from those written.
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
    splices: list[Splice] = []
    for index, (key, value) in enumerate(pairs):
        if key.value == "steps":
            splices.extend(_remove_entry(text, pairs, index))
        elif key.value == "output" and body.output is not None:
            rendered = "output:\n" + block(body.output, column + step, step)
            splices.append(Splice(key.start, text.entry_end(key, value), text.adjust(rendered)))
        elif key.value == "annotations" and body.annotations is not None:
            rendered = "annotations:\n" + block(body.annotations, column + step, step)
            splices.append(Splice(key.start, text.entry_end(key, value), text.adjust(rendered)))
    end = text.line_end(max(text.content_end(tool) - 1, tool.start))
    added = ""
    if body.annotations is not None and all(key.value != "annotations" for key, _ in pairs):
        added = f"{' ' * column}annotations:\n" + block(body.annotations, column + step, step)
    if body.script_file is not None:
        added += f"{' ' * column}scriptFile: {scalar(body.script_file)}\n"
    else:
        added += literal_block("script", body.script, column, step)
    lead = "" if text.text[:end].endswith("\n") else "\n"
    splices.append(Splice(end, end, text.adjust(lead + added)))
    return splices


def _remove_entry(text: Text, pairs: list[tuple[SpanNode, SpanNode]], index: int) -> list[Splice]:
    """Remove an entry's lines; the first entry of a ``- key:`` line hands its place on."""
    key, value = pairs[index]
    end = text.entry_end(key, value)
    starts_line = not text.text[text.line_start(key.start) : key.start].strip()
    if starts_line:
        return [Splice(text.line_start(key.start), end, "")]
    if index + 1 == len(pairs):
        raise Unrewritable("the tool has nothing but its steps")
    following = pairs[index + 1][0]
    between = text.text[end : text.line_start(following.start)]
    moved = [Splice(key.start, following.start, "")]
    if between.strip():
        line = text.line_start(key.start)
        moved.append(Splice(line, line, between))
    return moved
