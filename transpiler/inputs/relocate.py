"""Move items of one block list of a mapping to a sibling list (``compositeTools`` to
``scriptedTools``, ``compositeToolRefs`` to ``scriptedToolRefs``), as splices.

When every item moves and the target list does not exist yet, the source key
is renamed in place and the items are edited where they are, so comments and
blank lines between them stay put. Otherwise moved items (with the comment
lines directly above them) are cut from the source list, which disappears
when emptied, and appended to the target list, created right after the
source list when absent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from transpiler.inputs.textspan import (
    Splice,
    Text,
    Unrewritable,
    apply_splices,
    dash_offset,
    reindent,
)
from transpiler.inputs.yamlspan import SpanKind, SpanNode


@dataclass(frozen=True)
class ItemMove:
    """One item of the source list: edits inside it, whether it is added and/or removed."""

    inside: tuple[Splice, ...] = ()
    add: bool = False
    remove: bool = False


def relocate(
    text: Text,
    mapping: SpanNode,
    source: str,
    target: str,
    moves: Mapping[int, ItemMove],
) -> list[Splice]:
    """Splices that carry out ``moves`` (by item index) from ``source`` to ``target``."""
    entry = mapping.entry(source)
    if entry is None or not any(m.add or m.remove for m in moves.values()):
        return []
    key, items = entry
    if items.kind is not SpanKind.SEQUENCE or items.flow:
        raise Unrewritable(f"{source} is not a block list; migrate rewrites block YAML")
    regions = item_regions(text, key, items)
    everything = set(range(len(items.children)))
    adding = [i for i in sorted(moves) if moves[i].add]
    removing = {i for i in moves if moves[i].remove}
    if mapping.entry(target) is None and removing == everything and set(adding) == everything:
        return _in_place(key, target, moves)
    splices: list[Splice] = []
    if removing == everything:
        line = text.line_start(key.start)
        splices.append(Splice(line, text.entry_end(key, items), ""))
    else:
        splices.extend(Splice(*regions[i], "") for i in sorted(removing))
    if adding:
        copies = [_copy(text, regions[i], moves[i].inside) for i in adding]
        splices.append(_append(text, mapping, key, items, target, copies))
    return splices


def item_regions(text: Text, key: SpanNode, items: SpanNode) -> list[tuple[int, int]]:
    """Each item's lines, with the comment lines directly above its ``-``."""
    regions: list[tuple[int, int]] = []
    floor = text.line_end(key.start)
    for item in items.children:
        dash_line = text.line_start(dash_offset(text, item))
        start = text.comments_above(dash_line, floor)
        end = text.line_end(max(text.content_end(item) - 1, item.start))
        regions.append((start, end))
        floor = end
    return regions


def _in_place(key: SpanNode, target: str, moves: Mapping[int, ItemMove]) -> list[Splice]:
    quote = key.style if key.style in ("'", '"') else ""
    inner_start = key.start + len(quote)
    inner_end = key.end - len(quote)
    splices = [Splice(inner_start, inner_end, target)]
    for move in moves.values():
        splices.extend(move.inside)
    return splices


def _copy(text: Text, region: tuple[int, int], inside: Sequence[Splice]) -> str:
    start, end = region
    shifted = [Splice(s.start - start, s.end - start, s.replacement) for s in inside]
    copied = apply_splices(text.text[start:end], shifted)
    return copied if copied.endswith("\n") else copied + text.newline


def _append(
    text: Text,
    mapping: SpanNode,
    key: SpanNode,
    items: SpanNode,
    target: str,
    copies: list[str],
) -> Splice:
    source_dash = dash_column(text, items.children[0])
    existing = mapping.entry(target)
    if existing is None:
        at = text.entry_end(key, items)
        head = text.adjust(" " * key.column + target + ":\n")
        return Splice(at, at, _joined(text, at, head + "".join(copies)))
    target_key, value = existing
    if value.kind is SpanKind.SEQUENCE and not value.flow and value.children:
        delta = dash_column(text, value.children[0]) - source_dash
        at = text.entry_end(target_key, value)
    elif value.kind is SpanKind.SCALAR and value.value == "" and not value.style:
        delta = target_key.column + (source_dash - key.column) - source_dash
        at = text.line_end(target_key.start)
    else:
        raise Unrewritable(f"{target} is not a block list; migrate cannot append to it")
    moved = "".join(reindent(copy, delta) for copy in copies)
    return Splice(at, at, _joined(text, at, moved))


def _joined(text: Text, at: int, addition: str) -> str:
    """``addition`` after a line break when ``at`` is not at the start of a line."""
    lead = "" if at == 0 or text.text[at - 1] == "\n" else text.newline
    return lead + addition


def dash_column(text: Text, item: SpanNode) -> int:
    """Column of the ``-`` of a block-list item."""
    dash = dash_offset(text, item)
    return dash - text.line_start(dash)
