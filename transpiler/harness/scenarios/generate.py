"""Scenarios for a tool, generated inside the script's claimed domain.

For each backend tool the workflow calls: results that fill the fields its
templates read (or leave them out, or give them other shapes), text results
(plain or JSON-as-text), ``isError`` results, transport errors, transient
failures that succeed on a later attempt, and short delays. Parameters follow
the parameter schema (required ones always, optional ones sometimes).
Elicitation answers accept with content, decline or cancel.

What every script's domain notes exclude is never generated: no elicitation
timeouts, no elicitation answer nested deeper than vMCP accepts (a client
following MCP answers a flat form), no ``inputSchema`` (``check`` gives each backend the one
``--tools`` declares, the schema its script was written against), no tool results
carrying both ``structuredContent`` and content items, no ``structuredContent``
from a tool whose ``.content`` is read (:meth:`ToolShapes.success`), no
negative zero. Delays are at most a second, and for a tool a step with a
deadline no script keeps calls (its ``timeout``, or vMCP's default for a step
that retries or loops), a second past that deadline and past a script's
5-minute call limit (:attr:`ToolShapes.slow`: where the ``step-timeout`` class
shows);
a tool whose workflow timeout is a few seconds can meet that deadline too, on
both sides alike.

Each generator (:mod:`.draws`) reads as a hypothesis strategy (to shrink) and
as a cheap seeded draw (to search in bulk).
"""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any

from transpiler.composite.elicitation import MAX_DEPTH
from transpiler.harness.scenarios import draws as gen
from transpiler.harness.scenarios.draws import Gen
from transpiler.harness.scenarios.shapes import ToolShapes, Trie
from transpiler.sim.scenario import scenario_from_document

SCALARS = gen.one_of(
    gen.sampled_from(["", "a", "ok", '<b>&"x"', "é 漢字", "1e6", "true", "null"]),
    gen.text(max_size=8),
    gen.sampled_from([0, 1, -3, 2.5, 1_000_000, 1e21, 1e-7]),
    gen.booleans(),
    gen.none(),
)
JSON_VALUES = gen.recursive(
    SCALARS,
    lambda inner: gen.one_of(
        gen.lists(inner, max_size=3),
        gen.dictionaries(gen.sampled_from(list("abcxyz")), inner, max_size=3),
    ),
    max_leaves=6,
)


_ABSENT = object()


def _leaf(literals: list[str]) -> Gen:
    if literals:
        return gen.one_of(gen.sampled_from(literals), JSON_VALUES)
    return JSON_VALUES


def object_for(trie: Trie, literals: list[str], lists: Collection[str] = ()) -> Gen:
    """A JSON object with (usually) the fields the trie names."""
    parts: dict[str, Gen] = {}
    for name, children in trie.items():
        if name in lists:
            value: Gen = gen.one_of(gen.lists(_leaf(literals), max_size=3), _leaf(literals))
        elif children:
            value = gen.one_of(object_for(children, literals), _leaf(literals))
        else:
            value = _leaf(literals)
        parts[name] = gen.one_of(value, gen.just(_ABSENT))
    return gen.fixed_dictionaries(parts, optional={"extra": JSON_VALUES}).map(
        lambda d: {k: v for k, v in d.items() if v is not _ABSENT}
    )


def result_entry(shapes: ToolShapes, tool: str) -> Gen:
    """One answer of a backend tool."""
    fields = shapes.output_fields.get(tool, {})
    lists = shapes.collection_fields.get(tool, set())
    structured = object_for(fields, shapes.literals, lists)
    return gen.one_of(
        structured.map(lambda body: shapes.success(tool, body)),
        structured.map(lambda body: {"content": [{"type": "text", "text": json.dumps(body)}]}),
        gen.text(max_size=12).map(lambda text: {"content": [{"type": "text", "text": text}]}),
        gen.text(min_size=1, max_size=12).map(
            lambda text: {"isError": True, "content": [{"type": "text", "text": text}]}
        ),
        gen.just({"isError": True}),
        gen.sampled_from(["connection reset", "backend unavailable"]).map(
            lambda cause: {"transportError": cause}
        ),
    )


def backend(shapes: ToolShapes, tool: str) -> Gen:
    """The results of one tool: a first answer used 1-2 times, then a lasting one."""
    delays = ["100ms", "250ms", "1s", *shapes.slow.get(tool, ())]
    timed = gen.fixed_dictionaries({}, optional={"delay": gen.sampled_from(delays)})
    entry = gen.tuples(result_entry(shapes, tool), timed).map(lambda pair: {**pair[0], **pair[1]})
    transient = gen.tuples(entry, gen.integers(1, 2), entry).map(
        lambda parts: [{**parts[0], "times": parts[1]}, parts[2]]
    )
    return gen.one_of(entry.map(lambda e: [e]), transient).map(lambda results: {"results": results})


def elicitation_answer(shapes: ToolShapes) -> Gen:
    """An answer a client gives to an elicitation request (never a timeout, never deeper
    than vMCP accepts)."""
    content = object_for(shapes.elicitation_fields, shapes.literals).map(_within_depth)
    return gen.one_of(
        content.map(lambda body: {"action": "accept", "content": body}),
        gen.sampled_from([{"action": "decline"}, {"action": "cancel"}]),
    )


def _within_depth(content: dict[str, Any]) -> dict[str, Any]:
    """``content`` with every map or list that would hold values deeper than vMCP's answer
    limit (:data:`MAX_DEPTH` levels below the content) replaced by null."""

    def cut(value: Any, depth: int) -> Any:
        if not isinstance(value, dict | list) or not value:
            return value
        if depth >= MAX_DEPTH:
            return None
        if isinstance(value, dict):
            return {key: cut(item, depth + 1) for key, item in value.items()}
        return [cut(item, depth + 1) for item in value]

    return {key: cut(item, 1) for key, item in content.items()}


def value_for(schema: Any) -> Gen:
    """A JSON value conforming to a (simple) JSON Schema."""
    if not isinstance(schema, dict):
        return JSON_VALUES
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return gen.sampled_from(schema["enum"])
    kind = schema.get("type")
    if kind == "string":
        return gen.one_of(gen.sampled_from(["main", "svc-1", "<x&y>"]), gen.text(max_size=8))
    if kind == "integer":
        return gen.one_of(gen.integers(-5, 100), gen.just(1_000_000))
    if kind == "number":
        return gen.one_of(gen.integers(-5, 100), gen.floats(-1e3, 1e3).map(lambda f: f or 0.0))
    if kind == "boolean":
        return gen.booleans()
    if kind == "array":
        return gen.lists(value_for(schema.get("items")), max_size=3)
    if kind == "object":
        return params_for(schema)
    return JSON_VALUES


def params_for(schema: Any) -> Gen:
    """Arguments conforming to a ``type: object`` schema."""
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        return gen.just({})
    required = set(schema.get("required") or [])
    properties = schema["properties"]
    return gen.fixed_dictionaries(
        {str(k): value_for(v) for k, v in properties.items() if k in required},
        optional={str(k): value_for(v) for k, v in properties.items() if k not in required},
    )


def scenarios(shapes: ToolShapes, parameters: Any, name: str) -> Gen:
    """Whole scenarios for one tool, inside the domain every script claims."""
    backends = gen.fixed_dictionaries({tool: backend(shapes, tool) for tool in shapes.tools})
    answers = gen.lists(elicitation_answer(shapes), min_size=1, max_size=3)
    return gen.builds(
        lambda params, backs, said: scenario_from_document(
            {"tool": name, "params": params, "backends": backs, "elicitations": said}
        ),
        params_for(parameters),
        backends,
        answers if shapes.elicitation_steps else gen.just([]),
    )
