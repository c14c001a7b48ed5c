"""YAML documents as trees of nodes that know their exact character span in the text.

The loader's YAML layer (:mod:`transpiler.config.yamlv3`) records where a node
starts; rewriting text also needs where it ends. This module composes PyYAML
events (the same parser) into :class:`SpanNode` trees with start and end
offsets, so edits can be spliced into the original text and everything else
stays byte-identical. Document indices match the loader's.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import yaml

from transpiler.config.yamlresolve import ResolveError, resolve
from transpiler.config.yamlv3 import (
    DEPTH_DEVIATION,
    MAX_DEPTH,
    YamlLimitError,
    YamlSyntaxError,
    already_defined,
)

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class SpanKind(Enum):
    """Node kinds (aliases are kept as aliases, never resolved)."""

    SCALAR = "scalar"
    MAPPING = "mapping"
    SEQUENCE = "sequence"
    ALIAS = "alias"


@dataclass(eq=False)
class SpanNode:
    """A node: its kind, ``[start, end)`` character span, 0-based line/column, children.

    Mappings hold key, value, key, value... in ``children``. ``style`` is the
    scalar style (``""`` plain, ``'``, ``"``, ``|``, ``>``); ``flow`` marks
    ``[...]``/``{...}`` collections.
    """

    kind: SpanKind
    start: int
    end: int
    line: int
    column: int
    value: str = ""
    style: str = ""
    flow: bool = False
    anchor: str | None = None
    tag: str | None = None
    children: list[SpanNode] = field(default_factory=list)

    def pairs(self) -> list[tuple[SpanNode, SpanNode]]:
        """A mapping's (key, value) pairs in source order; empty for anything else."""
        if self.kind is not SpanKind.MAPPING:
            return []
        items = self.children
        return [(items[i], items[i + 1]) for i in range(0, len(items) - 1, 2)]

    def entry(self, key: str) -> tuple[SpanNode, SpanNode] | None:
        """The first entry whose key is the plain text ``key``."""
        return next(
            (
                pair
                for pair in self.pairs()
                if pair[0].kind is SpanKind.SCALAR and pair[0].value == key
            ),
            None,
        )

    def get(self, key: str) -> SpanNode | None:
        """The value of ``key``, or ``None``."""
        found = self.entry(key)
        return found[1] if found is not None else None

    def text(self) -> str | None:
        """A scalar's value; ``None`` for anything else."""
        return self.value if self.kind is SpanKind.SCALAR else None

    def plain(self) -> Any:
        """The node's plain value as yaml.v3 resolves it (an alias reads as None: nothing that
        is compared by value needs one)."""
        if self.kind is SpanKind.ALIAS:
            return None
        if self.kind is SpanKind.MAPPING:
            return {key.value: value.plain() for key, value in self.pairs()}
        if self.kind is SpanKind.SEQUENCE:
            return [child.plain() for child in self.children]
        if self.style:
            return self.value
        try:
            return resolve(self.tag or "", self.value)[1]
        except ResolveError:
            return self.value

    def walk(self) -> Iterator[SpanNode]:
        """This node and every descendant, depth first."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))


def repeated_key(root: SpanNode) -> str | None:
    """Where a mapping in ``root`` (itself included) gives a key twice, in yaml.v3's words
    (:func:`~transpiler.config.yamlv3.already_defined`); None when none does."""
    for node in root.walk():
        seen: dict[str, SpanNode] = {}
        for key, _ in node.pairs():
            if key.kind is not SpanKind.SCALAR or key.value == "<<":
                continue
            earlier = seen.setdefault(key.value, key)
            if earlier is not key:
                return already_defined(key.value, key.line + 1, earlier.line + 1)
    return None


@dataclass(frozen=True)
class SpanDocument:
    """One document: index, where its ``---`` marker is (``None`` when implicit), its root."""

    index: int
    marker: int | None
    root: SpanNode | None


def parse_spans(text: str) -> list[SpanDocument]:
    """Every document of ``text``; raises :class:`YamlSyntaxError` where the text breaks."""
    documents: list[SpanDocument] = []
    stack: list[SpanNode] = []
    root: SpanNode | None = None
    marker: int | None = None
    try:
        for event in yaml.parse(text, Loader=_Loader):
            if isinstance(event, yaml.DocumentStartEvent):
                marker = _offset(event.start_mark) if event.explicit else None
                root = None
            elif isinstance(event, yaml.DocumentEndEvent):
                documents.append(SpanDocument(len(documents), marker, root))
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                closed = stack.pop()
                if closed.flow:
                    closed.end = _offset(event.end_mark)
                _extend(stack, closed.end)
            elif isinstance(event, yaml.NodeEvent):
                node = _node(event)
                if stack:
                    stack[-1].children.append(node)
                    _extend(stack, node.end)
                else:
                    root = node
                if node.kind in (SpanKind.MAPPING, SpanKind.SEQUENCE):
                    if len(stack) >= MAX_DEPTH:
                        raise YamlLimitError(DEPTH_DEVIATION, node.line + 1, node.column + 1)
                    stack.append(node)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        raise YamlSyntaxError(f"yaml: {error.problem or error}", line, column) from None
    except yaml.YAMLError as error:
        raise YamlSyntaxError(f"yaml: {error}", 1, 1) from None
    return documents


def _offset(mark: Any) -> int:
    """A mark's character offset (PyYAML types marks as optional; the parser always sets them)."""
    return int(mark.index)


def _node(event: Any) -> SpanNode:
    start, end = event.start_mark, event.end_mark
    common: dict[str, Any] = {
        "start": start.index,
        "end": end.index,
        "line": start.line,
        "column": start.column,
        "anchor": getattr(event, "anchor", None)
        if not isinstance(event, yaml.AliasEvent)
        else None,
        "tag": getattr(event, "tag", None),
    }
    if isinstance(event, yaml.AliasEvent):
        return SpanNode(SpanKind.ALIAS, value=event.anchor or "", **common)
    if isinstance(event, yaml.ScalarEvent):
        return SpanNode(SpanKind.SCALAR, value=event.value, style=event.style or "", **common)
    kind = SpanKind.MAPPING if isinstance(event, yaml.MappingStartEvent) else SpanKind.SEQUENCE
    return SpanNode(kind, flow=bool(event.flow_style), **common)


def _extend(stack: list[SpanNode], end: int) -> None:
    """Block collections end where their last child ends (PyYAML's end mark overshoots).

    Only the innermost open collection is extended: it passes its end on to
    its parent when it closes, so each event costs the same at any depth.
    """
    if stack and not stack[-1].flow:
        stack[-1].end = max(stack[-1].end, end)
