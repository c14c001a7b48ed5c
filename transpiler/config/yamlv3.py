"""YAML documents as yaml.v3 node trees, with positions and hard limits.

PyYAML's parser (libyaml when available) supplies events; this module builds
the nodes itself, iteratively, so that hostile input is stopped early:

* nesting deeper than :data:`MAX_DEPTH` mappings/sequences,
* an alias to an anchor that is still open (a self-containing value),
* an alias to an unknown anchor.

Node tags follow yaml.v3's parser: a plain scalar carries its resolved tag,
a quoted one ``!!str``, an explicitly tagged one its short tag.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Final

import yaml

from transpiler.config.yamlresolve import MAP_TAG, MERGE_TAG, SEQ_TAG, STR_TAG, resolve, short_tag
from transpiler.golang.strconv import quote

#: Deepest mapping/sequence nesting read. yaml.v3 (vMCP) reads 10,000 levels; the model
#: and its checks walk values recursively, which bounds ours (about 300 levels fit).
#: vMCP's own argument expansion stops at 100 (S80), so 200 covers every run vMCP makes.
MAX_DEPTH: Final = 200
#: Why a file past :data:`MAX_DEPTH` is not judged: a deviation from vMCP, named as such.
DEPTH_DEVIATION: Final = (
    f"nesting deeper than {MAX_DEPTH} levels: the transpiler reads no deeper (a deviation "
    "from vMCP, whose YAML reader yaml.v3 allows 10,000 levels, so vMCP may accept this "
    "file; its argument expansion fails past 100 levels at run time)"
)

_QUOTED_STYLES: Final = frozenset(("'", '"', "|", ">"))


class _PurePythonParser(yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser):
    """PyYAML's pure-Python event parser, used when libyaml is not installed."""

    def __init__(self, stream: bytes) -> None:
        yaml.reader.Reader.__init__(self, stream)
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)


#: libyaml's event parser, when PyYAML was built with it.
_LIBYAML_PARSER: Any = getattr(getattr(yaml, "_yaml", None), "CParser", None)
#: What libyaml 0.2.6 and later (bundled from PyYAML 6.0.3) say when they meet deep nesting
#: themselves: the scanner reads a run of flow openers ahead of the events, so it can refuse
#: a file before :data:`MAX_DEPTH` is reached in the nodes.
_LIBYAML_DEPTH_PROBLEM: Final = "exceeded maximum nesting depth"


class Kind(Enum):
    """yaml.v3 node kinds."""

    SCALAR = "scalar"
    MAPPING = "mapping"
    SEQUENCE = "sequence"
    ALIAS = "alias"


@dataclass(eq=False)
class Node:
    """One yaml.v3 node; ``content`` holds key, value, key, value... for mappings."""

    kind: Kind
    tag: str
    value: str
    line: int
    column: int
    quoted: bool = False
    tagged: bool = False
    content: list[Node] = field(default_factory=list)
    anchor: str | None = None
    target: Node | None = None

    def short_tag(self) -> str:
        """yaml.v3 ``Node.ShortTag``."""
        if self.kind is Kind.ALIAS and self.target is not None:
            return self.target.short_tag()
        if self.indicated_string():
            return STR_TAG
        if self.tag in ("", "!"):
            return {Kind.MAPPING: MAP_TAG, Kind.SEQUENCE: SEQ_TAG}.get(self.kind, "")
        return short_tag(self.tag)

    def indicated_string(self) -> bool:
        """Quoted, block-literal or ``!!str``: always a string."""
        return self.kind is Kind.SCALAR and (
            short_tag(self.tag) == STR_TAG or (self.tag in ("", "!") and self.quoted)
        )

    def resolved(self) -> Node:
        """The node an alias stands for (itself otherwise)."""
        node = self
        while node.kind is Kind.ALIAS and node.target is not None:
            node = node.target
        return node


@dataclass(frozen=True)
class Document:
    """One document of a stream: its 0-based index, first line and root node."""

    index: int
    line: int
    root: Node | None


def already_defined(key: str, line: int, earlier: int) -> str:
    """yaml.v3's words for a mapping that gives a key twice (1-based lines)."""
    return f"line {line}: mapping key {quote(key)} already defined at line {earlier}"


class YamlSyntaxError(Exception):
    """The stream cannot be parsed; ``message`` is what yaml.v3 would say."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


class YamlLimitError(YamlSyntaxError):
    """The stream is past a transpiler limit (``rule``: nesting deeper than :data:`MAX_DEPTH`,
    or another limit of the loader), not past yaml.v3's."""

    def __init__(self, message: str, line: int, column: int, rule: str = "LIMIT.depth") -> None:
        super().__init__(message, line, column)
        self.rule = rule


class _ParserDepthLimit(Exception):
    """libyaml refused the nesting itself; carries where, for the rare case it must be said."""

    def __init__(self, line: int, column: int) -> None:
        super().__init__(line, column)
        self.line = line
        self.column = column


def parse_documents(data: bytes, *, pure_python: bool = False) -> Iterator[Document]:
    """Yield the documents of a YAML stream, raising :class:`YamlSyntaxError` where it breaks.

    libyaml reads the stream when PyYAML has it (``pure_python`` asks for PyYAML's own
    parser). Deep nesting is refused by :data:`MAX_DEPTH` alone, whatever the PyYAML: where
    libyaml refuses it first, the stream is read again by the pure-Python parser, which has
    no limit of its own, so the same node is refused with the same message.
    """
    if pure_python or _LIBYAML_PARSER is None:
        yield from _documents(data, _PurePythonParser)
        return
    yielded = 0
    try:
        for document in _documents(data, _LIBYAML_PARSER):
            yield document
            yielded += 1
    except _ParserDepthLimit as limit:
        for document in _documents(data, _PurePythonParser):
            if document.index >= yielded:
                yield document
        # libyaml's limit is deeper than ours, so the pass above has raised; this is a guard.
        raise YamlLimitError(DEPTH_DEVIATION, limit.line, limit.column) from None


def _documents(data: bytes, parser_type: Any) -> Iterator[Document]:
    """The documents one parser reads."""
    parser = parser_type(data)
    try:
        yield from _Composer(parser, data).documents()
    finally:
        dispose = getattr(parser, "dispose", None)
        if dispose is not None:
            dispose()


class _Composer:
    """Builds :class:`Node` trees from parser events without recursion."""

    def __init__(self, parser: Any, data: bytes) -> None:
        self._parser = parser
        self._data = data

    def _next_event(self) -> Any:
        try:
            event = self._parser.get_event()
        except yaml.MarkedYAMLError as error:
            if error.problem == _LIBYAML_DEPTH_PROBLEM:
                mark = error.problem_mark
                line, column = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
                raise _ParserDepthLimit(line, column) from None
            raise _syntax_error(error) from None
        except yaml.reader.ReaderError as error:
            line, column = _offset_position(self._data, error.position)
            raise YamlSyntaxError(f"yaml: {error.reason}", line, column) from None
        except yaml.YAMLError as error:
            raise YamlSyntaxError(f"yaml: {error}", 1, 1) from None
        return event

    def documents(self) -> Iterator[Document]:
        index = 0
        while True:
            event = self._next_event()
            if isinstance(event, yaml.StreamEndEvent):
                return
            if isinstance(event, yaml.DocumentStartEvent):
                line = _position(event)[0]
                root = self._compose_document()
                yield Document(index, line, root)
                index += 1

    def _compose_document(self) -> Node | None:
        anchors: dict[str, Node] = {}
        open_nodes: set[int] = set()
        stack: list[Node] = []
        root: Node | None = None
        while True:
            event = self._next_event()
            if isinstance(event, yaml.DocumentEndEvent):
                return root
            if isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                open_nodes.discard(id(stack.pop()))
                continue
            node = self._node_for(event, anchors, open_nodes)
            if stack:
                stack[-1].content.append(node)
            else:
                root = node
            if node.kind in (Kind.MAPPING, Kind.SEQUENCE):
                if len(stack) >= MAX_DEPTH:
                    raise YamlLimitError(DEPTH_DEVIATION, node.line, node.column)
                stack.append(node)
                open_nodes.add(id(node))

    def _node_for(self, event: Any, anchors: dict[str, Node], open_nodes: set[int]) -> Node:
        line, column = _position(event)
        if isinstance(event, yaml.AliasEvent):
            name = event.anchor or ""
            target = anchors.get(name)
            if target is None:
                raise YamlSyntaxError(f"yaml: unknown anchor '{name}' referenced", line, column)
            if id(target) in open_nodes:
                raise YamlSyntaxError(f"yaml: anchor '{name}' value contains itself", line, column)
            return Node(Kind.ALIAS, "", name, line, column, target=target)
        explicit = event.tag if event.tag not in (None, "!") else ""
        if isinstance(event, yaml.ScalarEvent):
            quoted = event.style in _QUOTED_STYLES
            if explicit:
                tag = short_tag(explicit)
            elif quoted:
                tag = STR_TAG
            elif event.value == "<<":
                tag = MERGE_TAG
            else:
                tag = resolve("", event.value)[0]
            node = Node(Kind.SCALAR, tag, event.value, line, column, quoted, bool(explicit))
        elif isinstance(event, yaml.MappingStartEvent):
            node = Node(
                Kind.MAPPING, short_tag(explicit) if explicit else MAP_TAG, "", line, column
            )
        else:
            node = Node(
                Kind.SEQUENCE, short_tag(explicit) if explicit else SEQ_TAG, "", line, column
            )
        node.tagged = bool(explicit)
        anchor = getattr(event, "anchor", None)
        if anchor is not None:
            node.anchor = anchor
            anchors[anchor] = node
        return node


def _position(event: yaml.Event) -> tuple[int, int]:
    """1-based line and column where an event starts."""
    mark = event.start_mark
    return (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)


def _syntax_error(error: yaml.MarkedYAMLError) -> YamlSyntaxError:
    """yaml.v3's ``yaml: line N: problem`` (its line arithmetic too), at the problem's position."""
    scanner = isinstance(error, yaml.scanner.ScannerError)
    go_line = 0
    for mark in (error.context_mark, error.problem_mark):
        if mark is not None and mark.line != 0:
            go_line = mark.line + (1 if scanner else 0)
            break
    problem = error.problem or "unknown problem parsing YAML content"
    where = f"line {go_line}: " if go_line else ""
    mark = error.problem_mark or error.context_mark
    line = mark.line + 1 if mark is not None else 1
    column = mark.column + 1 if mark is not None else 1
    return YamlSyntaxError(f"yaml: {where}{problem}", line, column)


def _offset_position(data: bytes, offset: int) -> tuple[int, int]:
    """1-based line and column of a byte offset."""
    before = data[: max(offset, 0)]
    line_start = before.rfind(b"\n") + 1
    return before.count(b"\n") + 1, len(before) - line_start + 1
