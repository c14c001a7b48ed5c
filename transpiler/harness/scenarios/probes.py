"""Scenarios carrying data a script reads but its workflow never does.

Each probe is the expected scenario (every backend answers as its readers
expect, every elicitation accepted) with one value added or changed where
the script reads it (:mod:`.scriptreads`): a path the script compares with
literals holds each literal in turn (a boolean literal also its opposite); a
path the script reads without comparing, that the answer does not hold,
holds a text. A path whose root is a tool changes that tool's answer; an
elicitation's, the accepted content; an unknown root, each of them in turn.
JSON text on the way is decoded, changed and encoded again.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from transpiler.harness.scenarios.scriptreads import ELICITATION, ITEMS, PARAMS, Read, ScriptReads
from transpiler.harness.scenarios.shapes import ToolShapes

#: At most this many probes per check, known roots first.
MAX_PROBES = 12
#: What a path the script reads without comparing holds in a probe.
PROBE_TEXT = "probe"


def probe_scenarios(
    first: dict[str, Any], shapes: ToolShapes, reads: ScriptReads
) -> list[dict[str, Any]]:
    """Up to :data:`MAX_PROBES` scenario documents: ``first`` (the expected scenario's
    document) with one value a script reads added or changed."""
    bodies = {tool: _body(first["backends"][tool]) for tool in shapes.tools}
    accepted = first.get("elicitations") or []
    if shapes.elicitation_steps and accepted and accepted[0].get("action") == "accept":
        bodies[ELICITATION] = accepted[0].get("content") or {}
    ordered = sorted(reads.reads, key=lambda read: read.root is None)
    probes: list[dict[str, Any]] = []
    seen = {json.dumps(first, sort_keys=True)}
    for target, body in _changes(ordered, reads, bodies):
        if target == ELICITATION:
            document = {**first, "elicitations": [{"action": "accept", "content": body}]}
        else:
            results = [shapes.success(target, body)]
            document = {**first, "backends": {**first["backends"], target: {"results": results}}}
        key = json.dumps(document, sort_keys=True)
        if key not in seen:
            seen.add(key)
            probes.append(document)
            if len(probes) >= MAX_PROBES:
                break
    return probes


def _changes(
    ordered: list[Read], reads: ScriptReads, bodies: dict[str, Any]
) -> Iterator[tuple[str, Any]]:
    for read in ordered:
        if read.root == PARAMS:
            continue
        targets = [read.root] if read.root is not None else list(bodies)
        literals = reads.compared.get(read, [])
        for target in targets:
            if target not in bodies:
                continue
            body = bodies[target]
            values = [*literals, *(not v for v in literals if isinstance(v, bool))]
            if not literals and not _held(body, read.path):
                values = [PROBE_TEXT]
            for value in values:
                changed = put_through(body, read.path, value)
                if changed is not None and changed != body:
                    yield target, changed


def _body(backend: dict[str, Any]) -> Any:
    """The answer a backend's first result carries (its structured content or JSON text)."""
    result = (backend.get("results") or [{}])[0]
    if "structuredContent" in result:
        return result["structuredContent"]
    for item in result.get("content") or []:
        decoded = _decoded(item.get("text"))
        if decoded is not None:
            return decoded
    return {}


def _decoded(text: Any) -> Any:
    """The map or list a JSON text holds, or None."""
    if not isinstance(text, str):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict | list) else None


def _held(body: Any, path: tuple[str, ...]) -> bool:
    if not path:
        return True
    decoded = _decoded(body)
    if decoded is not None:
        return _held(decoded, path)
    if path[0] == ITEMS:
        return isinstance(body, list) and all(_held(item, path[1:]) for item in body)
    return isinstance(body, dict) and path[0] in body and _held(body[path[0]], path[1:])


def put_through(body: Any, path: tuple[str, ...], value: Any) -> Any:
    """``body`` with ``value`` at ``path`` (maps made where missing, JSON text decoded and
    encoded, every item of a list at :data:`ITEMS`), or None where no map can hold it."""
    if not path:
        return value
    decoded = _decoded(body)
    if decoded is not None:
        inner = put_through(decoded, path, value)
        return None if inner is None else json.dumps(inner)
    head, rest = path[0], path[1:]
    if head == ITEMS:
        if not isinstance(body, list) or not body:
            return None
        items = [put_through(item, rest, value) for item in body]
        return None if any(item is None for item in items) else items
    if body is not None and not isinstance(body, dict):
        return None
    copy = dict(body or {})
    inner = put_through(copy.get(head), rest, value)
    if inner is None:
        return None
    copy[head] = inner
    return copy
