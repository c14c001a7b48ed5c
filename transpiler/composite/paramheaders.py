"""SEP-2243 ``x-mcp-header`` parameters (``pkg/mcp/xmcpheader.go``, S84).

A backend tool's ``inputSchema`` may mark parameters for mirroring into
``Mcp-Param-<name>`` headers. vMCP's client drops a tool whose annotations are
invalid (it is then unknown to routing), and a composite step whose argument
cannot be mirrored fails before any attempt with
``deriving parameter headers for step "<s>" tool "<t>": <err>``. The headers
themselves do not reach the simulated backends; only these failures matter.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from transpiler.golang.fmt import format_value
from transpiler.golang.strconv import quote
from transpiler.golang.types import type_name

ANNOTATION = "x-mcp-header"
MAX_SCHEMA_DEPTH = 64
MAX_SAFE_INTEGER = (1 << 53) - 1
UNMIRRORABLE = "parameter value cannot be mirrored into an HTTP header"
_COMBINATORS = ("oneOf", "anyOf", "allOf")
_TOKEN_PUNCTUATION = "!#$%&'*+-.^_`|~"


class AnnotationError(ValueError):
    """The schema's annotations break SEP-2243 (the client drops the tool)."""


@dataclass(frozen=True)
class ParamHeader:
    """One annotated parameter: its path in the arguments, header name and declared type."""

    path: tuple[str, ...]
    name: str
    type: str


def param_headers(schema: Any) -> list[ParamHeader]:
    """``ParamHeaders``: annotations sorted by dotted path; raises :class:`AnnotationError`."""
    if not isinstance(schema, dict) or not schema:
        return []
    found: list[ParamHeader] = []
    seen: dict[str, str] = {}
    stack: list[tuple[dict[str, Any], tuple[str, ...], int]] = [(schema, (), 0)]
    while stack:
        node, path, depth = stack.pop()
        if depth > MAX_SCHEMA_DEPTH:
            raise AnnotationError(
                f"tool inputSchema exceeds maximum inspection depth ({MAX_SCHEMA_DEPTH})"
            )
        if path and ANNOTATION in node:
            found.append(_parse_annotation(node[ANNOTATION], node, path, seen))
        stack.extend(reversed(_children(node, path, depth)))
    found.sort(key=lambda header: ".".join(header.path))
    return found


def _children(
    node: dict[str, Any], path: tuple[str, ...], depth: int
) -> list[tuple[dict[str, Any], tuple[str, ...], int]]:
    children: list[tuple[dict[str, Any], tuple[str, ...], int]] = []
    properties = node.get("properties")
    if isinstance(properties, dict):
        for name, sub in properties.items():
            if isinstance(sub, dict):
                children.append((sub, (*path, name), depth + 1))
    items = node.get("items")
    if isinstance(items, dict):
        children.append((items, (*path, "[]"), depth + 1))
    for combinator in _COMBINATORS:
        branches = node.get(combinator)
        if isinstance(branches, list):
            for index, branch in enumerate(branches):
                if isinstance(branch, dict):
                    children.append((branch, (*path, f"{combinator}[{index}]"), depth + 1))
    return children


def _parse_annotation(
    raw: Any, node: dict[str, Any], path: tuple[str, ...], seen: dict[str, str]
) -> ParamHeader:
    where = ".".join(path)
    if not isinstance(raw, str):
        raise AnnotationError(
            f"parameter {quote(where)}: {ANNOTATION} must be a string, got {_go_type(raw)}"
        )
    if raw == "":
        raise AnnotationError(f"parameter {quote(where)}: {ANNOTATION} must not be empty")
    bad = next(
        (char for char in raw.encode("utf-8", "surrogateescape") if not _is_token(char)), None
    )
    if bad is not None:
        raise AnnotationError(
            f"parameter {quote(where)}: {ANNOTATION} value {quote(raw)} is not a valid HTTP "
            f"field-name token (offending character {quote(chr(bad))})"
        )
    folded = raw.lower()
    if folded in seen:
        raise AnnotationError(
            f"{ANNOTATION} value {quote(raw)} on parameter {quote(where)} collides "
            f"case-insensitively with parameter {quote(seen[folded])}"
        )
    seen[folded] = where
    declared = node.get("type")
    if not isinstance(declared, str):
        raise AnnotationError(
            f"parameter {quote(where)}: {ANNOTATION} requires a declared primitive type "
            "(string, integer, or boolean)"
        )
    if declared not in ("string", "integer", "boolean"):
        raise AnnotationError(
            f"parameter {quote(where)}: {ANNOTATION} is not permitted on type {quote(declared)} "
            "(only string, integer, or boolean)"
        )
    return ParamHeader(path, raw, declared)


def _is_token(byte: int) -> bool:
    char = chr(byte)
    return (byte < 0x80 and char.isalnum()) or char in _TOKEN_PUNCTUATION


def mirror_error(headers: list[ParamHeader], arguments: dict[str, Any] | None) -> str | None:
    """``MirrorParamHeaders``: the error text when a present value cannot be mirrored."""
    if not headers or not arguments:
        return None
    for header in headers:
        if "[]" in header.path:
            continue
        found, value = _resolve(arguments, header.path)
        if found:
            problem = _render_problem(header, value)
            if problem is not None:
                return f"{UNMIRRORABLE}: {problem}"
    return None


def _resolve(arguments: dict[str, Any], path: tuple[str, ...]) -> tuple[bool, Any]:
    current: Any = arguments
    for segment in path:
        if any(segment.startswith(c + "[") and segment.endswith("]") for c in _COMBINATORS):
            continue
        if not isinstance(current, dict) or segment not in current:
            return False, None
        current = current[segment]
    return True, current


def _render_problem(header: ParamHeader, value: Any) -> str | None:
    where = quote(".".join(header.path))
    if header.type == "string":
        if not isinstance(value, str):
            return f"parameter {where} is declared string but got {_go_type(value)}"
        control = next((c for c in value if ord(c) < 0x20 or ord(c) == 0x7F), None)
        if control is not None:
            return f"parameter {where} contains a control character ({quote(control)})"
        return None
    if header.type == "boolean":
        if not isinstance(value, bool):
            return f"parameter {where} is declared boolean but got {_go_type(value)}"
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return f"parameter {where} is declared integer but got {_go_type(value)}"
    number = float(value)
    if math.isnan(number) or math.isinf(number) or number != math.trunc(number):
        return f"parameter {where} is declared integer but got {format_value(number)}"
    if abs(number) > MAX_SAFE_INTEGER:
        return f"parameter {where} value {format_value(number)} is outside the safe integer range"
    return None


def _go_type(value: Any) -> str:
    """``%T`` of a value (``<nil>`` for nil)."""
    return "<nil>" if value is None else type_name(value)
