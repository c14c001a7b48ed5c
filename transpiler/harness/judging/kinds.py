"""Why two runs' backend calls differ where an argument differs in kind alone.

vMCP renders every templated argument to text and converts it only where the
backend's ``inputSchema`` types the argument (``integer``, ``number``,
``boolean``: rule S81-S82); a script sends its values with their own type. So
a hand-written script that sends ``params["pr"]`` where the workflow writes
``"{{.params.pr}}"`` sends the number 1 where vMCP sends the text ``"1"``,
unless the backend's schema says otherwise. :func:`kind_advice` says so, and
what decides it, for the difference a report prints.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from transpiler.golang.fmt import format_value
from transpiler.sim.scenario import Scenario
from transpiler.sim.trace import Trace, plain_json

#: The schema types vMCP converts a rendered argument's text to.
_CONVERTED = frozenset({"integer", "number", "boolean"})

Path = tuple[str | int, ...]


def kind_advice(composite: Trace, script: Trace, scenario: Scenario) -> str:
    """For each argument the script sends as a number or boolean where vMCP sends its text (or
    the other way round), what vMCP sends, why, and what to do; empty when no call differs
    that way."""
    advice: list[str] = []
    for tool, ours, theirs in _paired(composite, script):
        schema = scenario.backends[tool].input_schema if tool in scenario.backends else None
        for path, sent, own in _kind_leaves(ours, theirs, ()):
            advice.append(_advice(tool, path, sent, own, schema))
    return "; ".join(dict.fromkeys(advice))


def _paired(composite: Trace, script: Trace) -> Iterator[tuple[str, Any, Any]]:
    """The calls only one side made, paired by tool and attempt (each call once)."""
    ours = [(c.tool, c.attempt, plain_json(c.args)) for c in composite.calls]
    theirs = [(c.tool, c.attempt, plain_json(c.args)) for c in script.calls]
    for call in list(ours):
        if call in theirs:
            ours.remove(call)
            theirs.remove(call)
    for tool, attempt, args in ours:
        partner = next((c for c in theirs if c[:2] == (tool, attempt)), None)
        if partner is not None:
            theirs.remove(partner)
            yield tool, args, partner[2]


def _kind_leaves(ours: Any, theirs: Any, path: Path) -> Iterator[tuple[Path, Any, Any]]:
    """The positions where one side holds text and the other a number or boolean printing as
    that text (Go's ``%v``)."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        for key in ours.keys() & theirs.keys():
            yield from _kind_leaves(ours[key], theirs[key], (*path, key))
    elif isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs):
        for index, (left, right) in enumerate(zip(ours, theirs, strict=True)):
            yield from _kind_leaves(left, right, (*path, index))
    elif _scalar(ours) != _scalar(theirs) and _text(ours) == _text(theirs):
        yield path, ours, theirs


def _scalar(value: Any) -> str | None:
    """``text``, ``number`` or ``boolean`` for a JSON scalar (None for anything else)."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return "text" if isinstance(value, str) else None


def _text(value: Any) -> str | None:
    """The text vMCP renders a scalar as (Go's ``%v``), or None for anything else."""
    kind = _scalar(value)
    if kind is None:
        return None
    return value if kind == "text" else format_value(value)


def _advice(tool: str, path: Path, sent: Any, own: Any, schema: Any) -> str:
    name = ".".join(str(part) for part in path)
    typed = _typed(schema, path)
    if isinstance(sent, str):
        if schema is None:
            why = f"no inputSchema of {tool} types it; give `--tools` a tools/list dump"
        elif typed is None:
            why = f"the inputSchema of {tool} does not type it"
        else:
            why = f"the inputSchema of {tool} types it as {typed}"
        return f"vMCP sends `{name}` as the text {json.dumps(sent)}: {why}, or send `str(...)`"
    kind = _scalar(sent)
    why = (
        f"the inputSchema of {tool} types it as {typed}"
        if typed in _CONVERTED
        else "the workflow writes it so"
    )
    return f"vMCP sends `{name}` as the {kind} {_text(sent)} ({why}): send it as a {kind}"


def _typed(schema: Any, path: Path) -> str | None:
    """The ``type`` an inputSchema gives the argument at ``path`` (None: it gives none)."""
    for part in path:
        if not isinstance(schema, dict):
            return None
        if isinstance(part, int):
            schema = schema.get("items")
        else:
            properties = schema.get("properties")
            schema = properties.get(part) if isinstance(properties, dict) else None
    kind = schema.get("type") if isinstance(schema, dict) else None
    return kind if isinstance(kind, str) else None
