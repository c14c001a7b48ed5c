"""Splices for one YAML document: the migration rules for configs, servers and definitions.

* vMCP config (and ``VirtualMCPServer`` ``spec.config``): ``compositeTools``
  items become ``scriptedTools`` items (:mod:`~transpiler.inputs.relocate`).
* ``VirtualMCPServer``: ``compositeToolRefs`` naming migrated definitions
  become ``scriptedToolRefs``.
* ``VirtualMCPCompositeToolDefinition``: the document becomes a
  ``VirtualMCPScriptedToolDefinition`` (or, when the composite is kept, a
  scripted copy is added right after it as a new document).

With ``keep`` (``--keep-composite``) nothing composite is removed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from transpiler.config.model import DocumentKind
from transpiler.inputs.relocate import ItemMove, relocate
from transpiler.inputs.textspan import Splice, Text, Unrewritable, apply_splices
from transpiler.inputs.yamlspan import SpanDocument, SpanKind, SpanNode
from transpiler.migrate.entry import ScriptedBody, tool_splices

COMPOSITE_KIND = DocumentKind.COMPOSITE_TOOL_DEFINITION.value
SCRIPTED_KIND = DocumentKind.SCRIPTED_TOOL_DEFINITION.value


@dataclass(frozen=True)
class ToolEdit:
    """One composite tool (by its path in the document): add its scripted form, remove it."""

    path: str
    body: ScriptedBody | None
    remove: bool


@dataclass(frozen=True)
class DocumentEdits:
    """Everything to change in one document; ``refs`` are definitions now scripted."""

    tools: tuple[ToolEdit, ...] = ()
    refs: frozenset[str] = frozenset()
    keep_refs: bool = False


def document_splices(
    text: Text, document: SpanDocument, end: int, edits: DocumentEdits
) -> list[Splice]:
    """Splices for ``document``, whose text ends at ``end`` (where the next one starts)."""
    root = document.root
    if root is None or root.kind is not SpanKind.MAPPING:
        return []
    splices: list[Splice] = []
    lists: dict[str, dict[int, ItemMove]] = {}
    for edit in edits.tools:
        if edit.path == "spec":
            splices.extend(_definition(text, document, end, edit))
            continue
        container, _, index = edit.path.rpartition("compositeTools[")
        inside = _tool(text, root, edit)
        move = ItemMove(tuple(inside), add=edit.body is not None, remove=edit.remove)
        lists.setdefault(container.rstrip("."), {})[int(index.rstrip("]"))] = move
    for container, moves in sorted(lists.items()):
        mapping = _at(root, container)
        splices.extend(relocate(text, mapping, "compositeTools", "scriptedTools", moves))
    if edits.refs:
        splices.extend(_refs(text, _at(root, "spec.config"), edits.refs, edits.keep_refs))
    return splices


def _tool(text: Text, root: SpanNode, edit: ToolEdit) -> list[Splice]:
    if edit.body is None:
        return []
    return tool_splices(text, _at(root, edit.path), edit.body)


def _at(root: SpanNode, path: str) -> SpanNode:
    """The node at a dotted path with ``[i]`` indices (``spec.config.compositeTools[1]``)."""
    node = root
    for part in filter(None, path.split(".")):
        name, _, index = part.partition("[")
        found = node.get(name)
        if found is None:
            raise Unrewritable(f"{path}: not found in the document")
        node = found
        if index:
            position = int(index.rstrip("]"))
            if node.kind is not SpanKind.SEQUENCE or position >= len(node.children):
                raise Unrewritable(f"{path}: not found in the document")
            node = node.children[position]
    return node


def _definition(text: Text, document: SpanDocument, end: int, edit: ToolEdit) -> list[Splice]:
    root = document.root
    assert root is not None
    if edit.body is None:
        return [Splice(_document_start(text, document), end, "")] if edit.remove else []
    inside = [*_kind(text, root), *tool_splices(text, _at(root, "spec"), edit.body)]
    if edit.remove:
        return inside
    start = text.line_start(root.start)
    stop = text.line_end(max(text.content_end(root) - 1, root.start))
    shifted = [Splice(s.start - start, s.end - start, s.replacement) for s in inside]
    copy = apply_splices(text.text[start:stop], shifted)
    lead = "" if text.text[:stop].endswith("\n") else text.newline
    tail = "" if copy.endswith("\n") else text.newline
    return [Splice(stop, stop, lead + "---" + text.newline + copy + tail)]


def _kind(text: Text, root: SpanNode) -> list[Splice]:
    """``kind`` renamed; a snippet without one gets ``kind:`` as its first line."""
    kind = root.get("kind")
    if kind is None:
        line = text.line_start(root.start)
        return [Splice(line, line, text.adjust(f"{' ' * root.column}kind: {SCRIPTED_KIND}\n"))]
    if kind.kind is not SpanKind.SCALAR or kind.value != COMPOSITE_KIND:
        raise Unrewritable(f"kind is not {COMPOSITE_KIND}")
    quote = 1 if kind.style in ("'", '"') else 0
    return [Splice(kind.start + quote, kind.end - quote, SCRIPTED_KIND)]


def _document_start(text: Text, document: SpanDocument) -> int:
    if document.marker is not None:
        return text.line_start(document.marker)
    assert document.root is not None
    return text.line_start(document.root.start)


def _refs(text: Text, config: SpanNode, names: frozenset[str], keep: bool) -> list[Splice]:
    refs = config.get("compositeToolRefs")
    if refs is None or refs.kind is not SpanKind.SEQUENCE:
        return []
    present = _names(config.get("scriptedToolRefs"))
    moves: dict[int, ItemMove] = {}
    for index, item in enumerate(refs.children):
        name = _name(item)
        if name in names:
            moves[index] = ItemMove(add=name not in present, remove=not keep)
    return relocate(text, config, "compositeToolRefs", "scriptedToolRefs", moves)


def _names(items: SpanNode | None) -> set[str]:
    if items is None or items.kind is not SpanKind.SEQUENCE:
        return set()
    return {name for name in map(_name, items.children) if name is not None}


def _name(item: SpanNode) -> str | None:
    value = item.get("name") if item.kind is SpanKind.MAPPING else None
    return value.text() if value is not None else None


def document_ends(text: Text, documents: Sequence[SpanDocument]) -> list[int]:
    """Where each document's text ends: the next document's ``---`` line, or the text's end."""
    ends: list[int] = []
    for following in documents[1:]:
        ends.append(
            text.line_start(following.marker) if following.marker is not None else len(text.text)
        )
    ends.append(len(text.text))
    return ends
