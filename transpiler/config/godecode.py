"""Decode yaml.v3 nodes into Go values the way ``yaml.v3`` (and Kubernetes) would.

:class:`GoDecoder` mirrors yaml.v3's decoder for the target kinds vMCP's
config uses (``string``, ``int``, ``bool``, ``[]T``, structs, ``map[string]any``
and ``any``): it collects yaml.v3's *type errors* (``line N: cannot unmarshal
...``) and its *fatal* errors in decode order, counts alias expansion with
yaml.v3's own "excessive aliasing" rule, and stops at a hard budget.

The Kubernetes dialect models the manifest path: kubectl reads YAML 1.1
(``yes`` is a bool), the API server stores JSON (string keys, float64
numbers) and the operator writes the vMCP config back with yaml.v3, so a
number re-reads as ``int`` or ``float`` from its ``%g`` text.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, TypeVar

from transpiler.config.yamlresolve import (
    BINARY_TAG,
    FLOAT_TAG,
    INT_TAG,
    MERGE_TAG,
    STR_TAG,
    ResolveError,
    decode_binary,
    go_format_float,
    resolve,
)
from transpiler.config.yamlv3 import Kind, Node
from transpiler.golang.strconv import quote
from transpiler.golang.values import AnyKeyMap, GoTime, GoValue

#: Most node visits one document may cost, alias expansion included.
MAX_DECODE_STEPS: Final = 1_000_000
_INT64_MAX: Final = (1 << 63) - 1
_INT64_MIN: Final = -(1 << 63)
_T = TypeVar("_T")


@dataclass(frozen=True)
class DecodeIssue:
    """A yaml.v3 decode error; ``go_text`` is exactly how yaml.v3 words it."""

    message: str
    line: int
    column: int
    fatal: bool

    @property
    def go_text(self) -> str:
        """``line N: <message>`` for a type error; the error itself for a fatal one."""
        return self.message if self.fatal else f"line {self.line}: {self.message}"


class DecodeAborted(Exception):
    """Decoding stopped: alias expansion or size past the limits."""

    def __init__(self, issue: DecodeIssue) -> None:
        super().__init__(issue.message)
        self.issue = issue


def _allowed_alias_ratio(decode_count: int) -> float:
    """yaml.v3 ``allowedAliasRatio``."""
    low, high = 400_000, 4_000_000
    if decode_count <= low:
        return 0.99
    if decode_count >= high:
        return 0.10
    return 0.99 - 0.89 * ((decode_count - low) / (high - low))


class GoDecoder:
    """Turns nodes into Go values, recording yaml.v3's errors in the order it meets them."""

    def __init__(self, *, kubernetes: bool = False) -> None:
        self.kubernetes = kubernetes
        self.issues: list[DecodeIssue] = []
        self._decode_count = 0
        self._alias_count = 0
        self._alias_depth = 0

    # -- bookkeeping -----------------------------------------------------

    def type_error(self, node: Node, message: str) -> None:
        """Record a collected yaml.v3 type error at ``node``."""
        self.issues.append(DecodeIssue(message, node.line, node.column, fatal=False))

    def fatal(self, node: Node, message: str) -> None:
        """Record an error that makes yaml.v3 stop decoding (it reports only this one)."""
        self.issues.append(DecodeIssue(message, node.line, node.column, fatal=True))

    def cannot_unmarshal(self, node: Node, go_type: str) -> None:
        """yaml.v3 ``terror``: ``cannot unmarshal !!seq into []string`` (at an alias's target)."""
        target = node.resolved()
        tag = target.tag or target.short_tag()
        shown = ""
        if tag not in ("!!seq", "!!map"):
            raw = target.value.encode("utf-8", "surrogateescape")
            value = raw[:7].decode("utf-8", "replace") + "..." if len(raw) > 10 else target.value
            shown = f" `{value}`"
        self.type_error(target, f"cannot unmarshal {tag}{shown} into {go_type}")

    def visit(self, node: Node, decode: Callable[[Node], _T]) -> _T:
        """Count one decode step like yaml.v3's ``unmarshal`` and follow aliases."""
        self._decode_count += 1
        if self._alias_depth > 0:
            self._alias_count += 1
        if (
            self._alias_count > 100
            and self._decode_count > 1000
            and self._alias_count / self._decode_count > _allowed_alias_ratio(self._decode_count)
        ):
            raise DecodeAborted(
                DecodeIssue(
                    "yaml: document contains excessive aliasing", node.line, node.column, True
                )
            )
        if self._decode_count > MAX_DECODE_STEPS:
            raise DecodeAborted(
                DecodeIssue(
                    f"document expands to more than {MAX_DECODE_STEPS} values (transpiler limit)",
                    node.line,
                    node.column,
                    True,
                )
            )
        if node.kind is Kind.ALIAS and node.target is not None:
            self._alias_depth += 1
            try:
                return self.visit(node.target, decode)
            finally:
                self._alias_depth -= 1
        return decode(node)

    # -- scalars ------------------------------------------------------------

    def scalar_value(self, node: Node) -> object:
        """The Go value of a scalar (yaml.v3 ``resolve``, ``!!binary``); ``Ellipsis`` on failure."""
        plain = not node.quoted and not node.tagged
        if node.indicated_string() and not (self.kubernetes and plain):
            return node.value
        try:
            tag, value = resolve(
                node.tag if node.tagged else "", node.value, yaml11_bools=self.kubernetes
            )
        except ResolveError as error:
            self.fatal(node, f"yaml: {error}")
            return Ellipsis
        if tag == BINARY_TAG:
            decoded = decode_binary(node.value)
            if decoded is None:
                self.fatal(node, "yaml: !!binary value contains invalid base64 data")
                return Ellipsis
            return decoded
        if self.kubernetes:
            return _through_json(node.value, value)
        return value

    def string(self, node: Node) -> str:
        """A Go ``string`` field: any scalar's text (decoded for ``!!binary``); null is ``""``."""
        return self.visit(node, self._string)

    def _string(self, node: Node) -> str:
        if node.kind is not Kind.SCALAR:
            self.cannot_unmarshal(node, "string")
            return ""
        value = self.scalar_value(node)
        if value is None or value is Ellipsis:
            return ""
        if node.short_tag() == BINARY_TAG and isinstance(value, str):
            return value
        return node.value

    def integer(self, node: Node) -> int:
        """A Go ``int`` field: ints, and floats truncated, as yaml.v3 allows."""
        return self.visit(node, self._integer)

    def _integer(self, node: Node) -> int:
        if node.kind is not Kind.SCALAR:
            self.cannot_unmarshal(node, "int")
            return 0
        value = self.scalar_value(node)
        if value is None or value is Ellipsis:
            return 0
        if (
            isinstance(value, int)
            and not isinstance(value, bool)
            and _INT64_MIN <= value <= _INT64_MAX
        ):
            return value
        if isinstance(value, float) and not math.isnan(value) and value <= _INT64_MAX:
            return int(value) if _INT64_MIN <= value < 2.0**63 else _INT64_MIN
        self.cannot_unmarshal(node, "int")
        return 0

    def boolean(self, node: Node) -> bool | None:
        """A Go ``*bool`` field (annotations): YAML bools and the YAML 1.1 words."""
        return self.visit(node, self._boolean)

    def _boolean(self, node: Node) -> bool | None:
        if node.kind is not Kind.SCALAR:
            self.cannot_unmarshal(node, "bool")
            return None
        value = self.scalar_value(node)
        if value is None or value is Ellipsis:
            return None
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value in _YAML11_WORDS:
            return _YAML11_WORDS[value]
        self.cannot_unmarshal(node, "bool")
        return None

    # -- collections --------------------------------------------------------

    def sequence(self, node: Node, go_type: str) -> list[Node] | None:
        """The items of a sequence node; ``None`` (with a type error) for anything else but null."""
        return self.visit(node, lambda target: self._sequence(target, go_type))

    def _sequence(self, node: Node, go_type: str) -> list[Node] | None:
        if node.kind is Kind.SEQUENCE:
            return node.content
        if node.kind is Kind.SCALAR and node.short_tag() == "!!null":
            return None
        self.cannot_unmarshal(node, go_type)
        return None

    def mapping(self, node: Node, go_type: str) -> list[tuple[Node, Node]] | None:
        """Key/value pairs of a mapping node after merges, duplicates reported and dropped."""
        return self.visit(node, lambda target: self._mapping(target, go_type))

    def _mapping(self, node: Node, go_type: str) -> list[tuple[Node, Node]] | None:
        if node.kind is Kind.MAPPING:
            return self.pairs(node)
        if node.kind is Kind.SCALAR and node.short_tag() == "!!null":
            return None
        self.cannot_unmarshal(node, go_type)
        return None

    def pairs(self, node: Node) -> list[tuple[Node, Node]]:
        """yaml.v3 mapping semantics: unique keys, own keys first, then ``<<`` merges."""
        own: list[tuple[Node, Node]] = []
        merges: list[Node] = []
        seen: dict[tuple[Kind, str], Node] = {}
        for index in range(0, len(node.content) - 1, 2):
            key, value = node.content[index], node.content[index + 1]
            if key.kind is Kind.SCALAR and key.value == "<<" and key.tag in ("", "!", MERGE_TAG):
                merges.append(value)
                continue
            earlier = seen.get((key.kind, key.value))
            if earlier is not None:
                self.type_error(
                    key, f"mapping key {quote(key.value)} already defined at line {earlier.line}"
                )
                if self.kubernetes:
                    own = [(k, v) for k, v in own if k is not earlier]
                    own.append((key, value))
                    seen[(key.kind, key.value)] = key
                continue
            seen[(key.kind, key.value)] = key
            own.append((key, value))
        present = {key.resolved().value for key, _ in own}
        for source in merges:
            for key, value in self._merge_sources(source):
                if key.resolved().value not in present:
                    present.add(key.resolved().value)
                    own.append((key, value))
        return own

    def _merge_sources(self, source: Node) -> list[tuple[Node, Node]]:
        target = source.resolved()
        if target.kind is Kind.MAPPING:
            return self.visit(source, self.pairs)
        if target.kind is Kind.SEQUENCE and all(
            item.resolved().kind is Kind.MAPPING for item in target.content
        ):
            merged: list[tuple[Node, Node]] = []
            for item in target.content:
                merged.extend(self.visit(item, self.pairs))
            return merged
        self.fatal(source, "yaml: map merge requires map or sequence of maps as the value")
        return []

    # -- free values -------------------------------------------------------

    def string_map(self, node: Node) -> dict[str, GoValue] | None:
        """A ``thvjson.Map`` (``map[string]any``) field; ``None`` when null or mistyped."""
        return self.visit(node, self._string_map)

    def _string_map(self, node: Node) -> dict[str, GoValue] | None:
        if node.kind is Kind.SCALAR and node.short_tag() == "!!null":
            return None
        if node.kind is not Kind.MAPPING:
            self.cannot_unmarshal(node, "map[string]interface {}")
            return None
        result: dict[str, GoValue] = {}
        for key, value in self.pairs(node):
            name = self.visit(key, self._map_key_string)
            if name is None:
                continue
            result[name] = self.any_value(value)
        return result

    def _map_key_string(self, key: Node) -> str | None:
        if key.kind is not Kind.SCALAR:
            self.cannot_unmarshal(key, "string")
            return None
        if key.short_tag() == "!!null":
            return None
        return self._key_text(key) if self.kubernetes else key.value

    def any_value(self, node: Node) -> GoValue:
        """A value decoded into Go ``any``."""
        return self.visit(node, self._any)

    def _any(self, node: Node) -> GoValue:
        if node.kind is Kind.SCALAR:
            value = self.scalar_value(node)
            return None if value is Ellipsis else value  # type: ignore[return-value]
        if node.kind is Kind.SEQUENCE:
            return [self.any_value(item) for item in node.content]
        pairs = self.pairs(node)
        if self.kubernetes or all(self._is_string_key(key) for key, _ in pairs):
            mapping: dict[str, GoValue] = {}
            for key, value in pairs:
                text = self._key_text(key) if self.kubernetes else key.resolved().value
                mapping[text] = self.any_value(value)
            return mapping
        items: list[tuple[object, GoValue]] = []
        for key, value in pairs:
            key_value = self.any_value(key)
            if isinstance(key_value, (dict, list, AnyKeyMap)):
                self.fatal(key, f"yaml: invalid map key: {type(key_value).__name__}")
                continue
            items.append((key_value, self.any_value(value)))
        return AnyKeyMap(tuple(items))

    @staticmethod
    def _is_string_key(key: Node) -> bool:
        return key.short_tag() in (STR_TAG, MERGE_TAG)

    def _key_text(self, key: Node) -> str:
        """A mapping key as JSON has it (Kubernetes path): scalars spelled as JSON would."""
        value = self.scalar_value(key) if key.resolved().kind is Kind.SCALAR else key.value
        if isinstance(value, bool):
            return "true" if value else "false"
        if value is None:
            return "null"
        if isinstance(value, (int, float)):
            return go_format_float(float(value))
        return key.resolved().value


_YAML11_WORDS: Final[dict[str, bool]] = {
    **{word: True for word in ("y", "Y", "yes", "Yes", "YES", "on", "On", "ON")},
    **{word: False for word in ("n", "N", "no", "No", "NO", "off", "Off", "OFF")},
}


def _through_json(text: str, value: object) -> object:
    """A scalar after Kubernetes' JSON storage and the operator's yaml.v3 re-write.

    Timestamps stay their text (go-yaml v2 keeps them strings); numbers become
    float64 and re-read from their ``%g`` spelling (``5`` is an int again,
    ``1000000`` comes back as the float ``1e+06``).
    """
    if isinstance(value, GoTime):
        return text
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    tag, reread = resolve("", go_format_float(float(value)))
    return reread if tag in (INT_TAG, FLOAT_TAG) else value
