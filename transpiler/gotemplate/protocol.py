"""The JSON-lines protocol of ``template render`` and the Go oracle.

Request, one per line::

    {"template": "...", "context": <value>, "name": "expand"}

Response, one per line::

    {"ok": true, "out": "..."}                     (+ "out_base64" if not UTF-8)
    {"ok": false, "kind": KIND, "error": "..."}

``kind`` is ``parse`` or ``exec`` (Go's error text), ``size`` (vMCP's output
limit), ``request`` (a malformed line), and from our renderer only ``limit``
(:class:`~transpiler.gotemplate.errors.TemplateLimitError`) or
``unsupported`` (a ``time.Time`` method); the oracle may answer ``panic``.

A context value is JSON, read the way vMCP reads JSON (every number is a Go
float64), except for *tagged objects*: an object with exactly one key that
starts with ``$`` carries a Go value JSON cannot express:

=========================  =====================================================
``{"$int": "42"}``         Go ``int``
``{"$int64": "42"}``       Go ``int64``
``{"$float": "NaN"}``      float64 NaN; also ``"+Inf"``, ``"-Inf"``
``{"$nilmap": true}``      typed nil ``map[string]any``
``{"$nillist": true}``     typed nil ``[]any``
``{"$time": "<RFC3339>"}``  ``time.Time``
``{"$anykeymap": [[k, v]]}``  ``map[any]any`` (keys and values tagged alike)
``{"$bytes": "<base64>"}``  a string that is not valid UTF-8
``{"$map": {...}}``        a plain map whose keys would look like a tag
=========================  =====================================================
"""

from __future__ import annotations

import base64
import json
import math
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from transpiler.golang.runes import (
    from_go_bytes,
    go_bytes,
    is_valid_utf8,
    sanitize,
    to_valid_utf8,
)
from transpiler.golang.strconv import format_float
from transpiler.golang.timefmt import time_rfc3339_nano
from transpiler.golang.values import (
    NIL_LIST,
    NIL_MAP,
    AnyKeyMap,
    GoTime,
    GoValue,
    Int64,
    NilList,
    NilMap,
)

DEFAULT_NAME = "expand"


class ProtocolError(ValueError):
    """A request or value that does not follow the protocol."""


@dataclass(frozen=True)
class RenderRequest:
    """One template to render over one context."""

    template: str
    context: GoValue
    name: str = DEFAULT_NAME


@dataclass(frozen=True)
class RenderResult:
    """What rendering gave: the output, or an error of a kind with Go's text."""

    ok: bool
    out: str = ""
    kind: str = ""
    error: str = ""


# --- values --------------------------------------------------------------------


def encode_value(value: GoValue) -> Any:
    """A JSON-ready form of a Go value (tagging what JSON cannot express)."""
    root: list[Any] = [None]
    stack: list[tuple[Any, list[Any] | dict[str, Any], Any]] = [(value, root, 0)]
    while stack:
        item, parent, key = stack.pop()
        parent[key] = _encode_scalar_or_shell(item, stack)
    return root[0]


def _encode_scalar_or_shell(item: Any, stack: list[tuple[Any, Any, Any]]) -> Any:
    if item is None or isinstance(item, bool):
        return item
    if isinstance(item, Int64):
        return {"$int64": str(int(item))}
    if isinstance(item, int):
        return {"$int": str(item)}
    if isinstance(item, float):
        if math.isnan(item) or math.isinf(item):
            return {"$float": format_float(item, "g", -1)}
        return item
    if isinstance(item, str):
        if is_valid_utf8(item):
            return sanitize(item)
        return {"$bytes": base64.b64encode(go_bytes(item)).decode("ascii")}
    if isinstance(item, NilMap):
        return {"$nilmap": True}
    if isinstance(item, NilList):
        return {"$nillist": True}
    if isinstance(item, GoTime):
        return {"$time": time_rfc3339_nano(item)}
    if isinstance(item, dict):
        shell: dict[str, Any] = {}
        for key, child in item.items():
            shell[sanitize(key)] = None
            stack.append((child, shell, sanitize(key)))
        if len(shell) == 1 and next(iter(shell)).startswith("$"):
            return {"$map": shell}
        return shell
    if isinstance(item, list):
        items: list[Any] = [None] * len(item)
        stack.extend((child, items, i) for i, child in enumerate(item))
        return items
    if isinstance(item, AnyKeyMap):
        pairs: list[Any] = []
        for key, child in item.items:
            pair: list[Any] = [None, None]
            pairs.append(pair)
            stack.append((key, pair, 0))
            stack.append((child, pair, 1))
        return {"$anykeymap": pairs}
    raise ProtocolError(f"cannot encode a {type(item).__name__} as a context value")


def decode_value(data: Any) -> GoValue:
    """The Go value of a JSON-decoded context value (numbers must be floats)."""
    root: list[Any] = [None]
    stack: list[tuple[Any, Any, Any]] = [(data, root, 0)]
    while stack:
        item, parent, key = stack.pop()
        parent[key] = _decode_one(item, stack)
    return root[0]  # type: ignore[no-any-return]


def _decode_one(item: Any, stack: list[tuple[Any, Any, Any]]) -> Any:
    if isinstance(item, str):
        return sanitize(item)
    if isinstance(item, int) and not isinstance(item, bool):
        return float(item)
    if isinstance(item, float) and math.isinf(item):
        raise ProtocolError("a JSON number is out of the float64 range")
    if isinstance(item, list):
        items: list[Any] = [None] * len(item)
        stack.extend((child, items, i) for i, child in enumerate(item))
        return items
    if isinstance(item, dict):
        if len(item) == 1:
            tag, inner = next(iter(item.items()))
            if tag.startswith("$"):
                return _decode_tag(tag, inner, stack)
        shell: dict[str, Any] = {}
        for key, child in item.items():
            shell[sanitize(key)] = None
            stack.append((child, shell, sanitize(key)))
        return shell
    return item


def _decode_tag(tag: str, inner: Any, stack: list[tuple[Any, Any, Any]]) -> Any:
    try:
        if tag == "$int":
            return int(inner)
        if tag == "$int64":
            return Int64(int(inner))
        if tag == "$float":
            return float({"+Inf": "inf", "-Inf": "-inf"}.get(inner, inner))
        if tag == "$nilmap":
            return NIL_MAP
        if tag == "$nillist":
            return NIL_LIST
        if tag == "$time":
            return GoTime(datetime.fromisoformat(str(inner).replace("Z", "+00:00")))
        if tag == "$bytes":
            return from_go_bytes(base64.b64decode(inner, validate=True))
        if tag == "$map":
            if not isinstance(inner, dict):
                raise ProtocolError("$map needs an object")
            shell: dict[str, Any] = {}
            for key, child in inner.items():
                shell[sanitize(key)] = None
                stack.append((child, shell, sanitize(key)))
            return shell
        if tag == "$anykeymap":
            return _decode_any_key_map(inner)
    except (TypeError, ValueError) as error:
        raise ProtocolError(f"bad {tag} value: {error}") from None
    raise ProtocolError(f"unknown tag {tag!r}")


def _decode_any_key_map(inner: Any) -> AnyKeyMap:
    if not isinstance(inner, list) or not all(
        isinstance(pair, list) and len(pair) == 2 for pair in inner
    ):
        raise ProtocolError("$anykeymap needs a list of [key, value] pairs")
    return AnyKeyMap(tuple((decode_value(key), decode_value(value)) for key, value in inner))


# --- lines ---------------------------------------------------------------------


def _reject_constant(name: str) -> Any:
    raise ProtocolError(f"invalid JSON constant {name}")


def parse_request(line: str) -> RenderRequest:
    """Read one request line."""
    try:
        data = json.loads(line, parse_constant=_reject_constant)
    except json.JSONDecodeError as error:
        raise ProtocolError(f"invalid JSON: {error}") from None
    if not isinstance(data, dict) or not isinstance(data.get("template"), str):
        raise ProtocolError('a request is an object with a string "template"')
    name = data.get("name") or DEFAULT_NAME
    if not isinstance(name, str):
        raise ProtocolError('"name" must be a string')
    return RenderRequest(
        template=sanitize(data["template"]),
        context=decode_value(data.get("context")),
        name=sanitize(name),
    )


def request_line(request: RenderRequest) -> str:
    """One request as a JSON line (without the newline)."""
    payload: dict[str, Any] = {
        "template": request.template,
        "context": encode_value(request.context),
    }
    if request.name != DEFAULT_NAME:
        payload["name"] = request.name
    return json.dumps(payload, ensure_ascii=False)


def response_line(result: RenderResult) -> str:
    """One response as a JSON line (without the newline)."""
    if not result.ok:
        return json.dumps(
            {"ok": False, "kind": result.kind, "error": to_valid_utf8(result.error)},
            ensure_ascii=False,
        )
    payload: dict[str, Any] = {"ok": True, "out": to_valid_utf8(result.out)}
    if not is_valid_utf8(result.out):
        payload["out_base64"] = base64.b64encode(go_bytes(result.out)).decode("ascii")
    return json.dumps(payload, ensure_ascii=False)


def parse_response(line: str) -> RenderResult:
    """Read one response line (the exact bytes when ``out_base64`` is present)."""
    data = json.loads(line)
    if data.get("ok"):
        encoded = data.get("out_base64")
        out = from_go_bytes(base64.b64decode(encoded)) if encoded else data.get("out", "")
        return RenderResult(ok=True, out=out)
    return RenderResult(ok=False, kind=data.get("kind", ""), error=data.get("error", ""))
