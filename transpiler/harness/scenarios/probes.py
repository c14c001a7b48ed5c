"""Scenarios carrying data a script reads but its workflow never does.

Each probe is the expected scenario (every backend answers as its readers
expect, every elicitation accepted) with one value added or changed where
the script reads it (:mod:`.scriptreads`), derived from the script's own
literals and comparisons: a path the script compares with literals holds each
literal in turn (a boolean literal also its opposite; a text compared after
``lower()``, ``strip()``... also in other case and padded with spaces); a path
compared with a number by ``<``, ``<=``, ``>``, ``>=`` holds that number, one
less and one more; a list whose length the script compares with a whole
number, or slices at one, holds that many items, one less and one more; a
path whose printed text the script slices holds values printed one character
longer than the cut, whatever the workflow prints: what it holds resized (a
text, else a list), a text, and a whole number (up to :data:`MAX_DIGITS`
digits); a path whose truth decides something
holds a text where the answer holds nothing truthy, and the falsy value of each
JSON kind, null and no key at all (:data:`FALSY`), while the other paths of its
root the script reads and the answer does not hold hold a text (what a script
may fall back on; a list whose items are tested, one falsy item more); a path
an answer's value is taken from with a default holds null, and no key at all;
a path the script makes a whole number (``int(x)``, ``"%d" % x``) holds a number
half a unit past its own (else 7.5); a path a text method changes holds its text
with what the method names (spaces,
a prefix, a suffix, a separator) put around it; a path whose type the script
compares holds a value of each other JSON
kind but null (:data:`KINDS`); a path the script reads without comparing, that the
answer does not hold, holds a text. A path whose root is
a tool changes each of that tool's answers; an elicitation's, each accepted
content; the parameters', the call's arguments, where they still conform to
the parameter schema that declares them (the scripted-tool host validates
them); an unknown root, each tool and elicitation whose values hold the path's
first key, else each in turn. JSON text on the way is decoded,
changed and encoded again.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from transpiler.harness.scenarios.scriptreads import ELICITATION, ITEMS, PARAMS, Read, ScriptReads
from transpiler.harness.scenarios.shapes import ToolShapes

#: At most this many probes of the first scenario, known roots first.
MAX_PROBES = 24
#: At most this many probes of the other bases (:func:`probe_scenarios`).
MAX_BASED_PROBES = 12
#: What a path the script reads without comparing holds in a probe.
PROBE_TEXT = "probe"
#: The most digits a probe's whole number has (float64, which vMCP decodes JSON numbers to,
#: holds them exactly).
MAX_DIGITS = 15
#: A value of each JSON kind but null (the combinations hold each field null already:
#: :mod:`.paths`), for a path whose type the script compares.
KINDS = (PROBE_TEXT, 2, True, [PROBE_TEXT], {PROBE_TEXT: PROBE_TEXT})

#: What a change gives for a key it takes out of its map.
ABSENT = object()
#: The falsy value of each JSON kind, null and no key at all, for a path whose truth the
#: script tests (or, but a missing key, one it takes with a default).
FALSY: tuple[Any, ...] = ("", 0, False, [], {}, None, ABSENT)

#: A change of one value: the value a body holds at a path (None: nothing there) to its
#: replacement.
Change = Callable[[Any], Any]


def probe_scenarios(
    first: dict[str, Any],
    shapes: ToolShapes,
    reads: ScriptReads,
    parameters: Any = None,
    bases: Sequence[dict[str, Any]] = (),
) -> list[dict[str, Any]]:
    """Scenario documents: up to :data:`MAX_PROBES` of ``first`` (the expected scenario's
    document) with one value a script reads added or changed (``parameters``: the tool's
    parameter schema, which changed parameters must conform to), then up to
    :data:`MAX_BASED_PROBES` of the other bases so changed: each of ``bases`` (the
    scenarios the path enumeration runs a step in that ``first`` skips), and each probe that
    changes a value the script branches on (compares or tests), so a read only such a step
    makes, or only such a branch of the script, meets its probes too. Each set is taken in
    rounds: every read has its first probe before any its second."""
    targets = [tool for tool in shapes.tools if tool in first.get("backends", {})]
    accepted = first.get("elicitations") or []
    if shapes.elicitation_steps and any(a.get("action") == "accept" for a in accepted):
        targets.append(ELICITATION)

    def probed(base: dict[str, Any]) -> list[Iterator[dict[str, Any]]]:
        ordered = sorted(reads.reads, key=lambda read: read.root is None)
        return [_probed(base, read, shapes, reads, parameters, targets) for read in ordered]

    others = [documents for base in bases for documents in probed(base)]
    for read in reads.reads:
        if _branches(read, reads):
            for base in _probed(first, read, shapes, reads, parameters, targets):
                others += probed(base)
    seen = {json.dumps(first, sort_keys=True)}
    firsts = _in_rounds(probed(first), seen, MAX_PROBES)
    return firsts + _in_rounds(others, seen, MAX_BASED_PROBES)


def _in_rounds(
    streams: list[Iterator[dict[str, Any]]], seen: set[str], most: int
) -> list[dict[str, Any]]:
    """Up to ``most`` documents not ``seen`` yet, the n-th of each stream in round n (each
    added to ``seen``)."""
    taken: list[dict[str, Any]] = []
    while streams and len(taken) < most:
        kept = []
        for documents in streams:
            document = next(documents, None)
            if document is None:
                continue
            kept.append(documents)
            key = json.dumps(document, sort_keys=True)
            if key not in seen:
                seen.add(key)
                taken.append(document)
        streams = kept
    return taken[:most]


def _probed(
    base: dict[str, Any],
    read: Read,
    shapes: ToolShapes,
    reads: ScriptReads,
    parameters: Any,
    targets: list[str],
) -> Iterator[dict[str, Any]]:
    """``base`` changed where ``read`` reads, in each way its comparisons call for."""
    roots = [read.root] if read.root is not None else _holders(base, read, targets)
    for root in roots:
        if root != PARAMS and root not in targets:
            continue
        for path, change in _changes(read, reads, _bodies(base, root)):
            document = _changed(base, root, path, change, shapes, parameters)
            if document is not None:
                yield document


def _holders(base: dict[str, Any], read: Read, targets: list[str]) -> list[str]:
    """The roots a read of unknown root is probed at: those whose values hold its first key,
    else every one."""
    first = read.path[:1]
    holders = [root for root in targets if _value_at(_bodies(base, root), first) is not None]
    return holders or targets


def _branches(read: Read, reads: ScriptReads) -> bool:
    """Whether the script decides something on what ``read`` reads."""
    return (
        bool(reads.compared.get(read) or reads.ordered.get(read))
        or read in reads.tested
        or read in reads.typed
    )


def _changes(
    read: Read, reads: ScriptReads, bodies: list[Any]
) -> Iterator[tuple[tuple[str, ...], Change]]:
    """The changes of what ``read`` reads that its comparisons call for, each with the path
    it changes (``bodies``: what the expected scenario holds at the read's root)."""
    path = read.path
    literals = reads.compared.get(read, [])
    values = [*literals, *(not v for v in literals if isinstance(v, bool))]
    if read in reads.normalized:
        values += [v.swapcase() for v in literals if isinstance(v, str) and v.swapcase() != v]
        values += [f" {v} " for v in literals if isinstance(v, str)]
    for number in reads.ordered.get(read, []):
        values += [number - 1, number, number + 1]
    for value in values:
        yield path, _constant(value)
    for length in reads.lengths.get(read, []):
        for count in dict.fromkeys([max(length - 1, 0), length, length + 1]):
            yield path, _resized(count)
    held = _value_at(bodies, path)
    for length in reads.printed.get(read, []):
        yield path, _resized(length + 1)
        if not isinstance(held, str):
            yield path, _constant(_resized(length + 1)(""))
        if length < MAX_DIGITS:
            yield path, _constant(int(("1234567890" * 2)[: length + 1]))
    if read in reads.tested and path and path[-1] == ITEMS:
        yield path[:-1], _with_falsy_item
    elif read in reads.tested or (read in reads.defaulted and read.root != PARAMS):
        if read in reads.tested and not held:
            yield path, _constant(PROBE_TEXT)
        fill = _filled(read, reads, bodies) if read.root != PARAMS else []
        tried = FALSY if read in reads.tested else (None, ABSENT)
        own = [f for f in tried if f is not ABSENT and _kind(f) == _kind(held)]
        for falsy in [*own, *(f for f in tried if f is ABSENT or _kind(f) != _kind(held))]:
            yield ((), _along(fill, path, _constant(falsy))) if fill else (path, _constant(falsy))
    for before, after in reads.transformed.get(read, []):
        yield path, _affixed(before, after)
    if read in reads.whole:
        yield path, _fraction
    if read in reads.typed:
        for value in KINDS:
            if _kind(value) != _kind(held):
                yield path, _constant(value)
    compared = values or read in reads.lengths or read in reads.printed or read in reads.tested
    if not compared and read not in reads.typed and held is None:
        yield path, _constant(PROBE_TEXT)


def _filled(read: Read, reads: ScriptReads, bodies: list[Any]) -> list[tuple[str, ...]]:
    """The other paths of ``read``'s root the script reads, that the answer does not hold and
    whose value it does not compare: what a script may fall back on where ``read`` is falsy."""
    return [
        other.path
        for other in reads.reads
        if other.root == read.root
        and other != read
        and _value_at(bodies, other.path) is None
        and not (reads.compared.get(other) or reads.ordered.get(other))
        and not {other} & {*reads.lengths, *reads.printed, *reads.typed}
    ]


def _along(fill: list[tuple[str, ...]], path: tuple[str, ...], change: Change) -> Change:
    """``change`` at ``path``, with :data:`PROBE_TEXT` at each path of ``fill`` (where a map
    can hold it)."""

    def changed(body: Any) -> Any:
        for other in fill:
            body = put_through(body, other, _constant(PROBE_TEXT)) or body
        return put_through(body, path, change)

    return changed


def _fraction(held: Any) -> Any:
    """A number held, half a unit past (else 7.5): what a whole-number reading of it loses."""
    number = isinstance(held, int | float) and not isinstance(held, bool)
    return held + 0.5 if number else 7.5


def _affixed(before: str, after: str) -> Change:
    """A text held (else :data:`PROBE_TEXT`) with ``before`` and ``after`` around it."""
    return lambda held: before + (held if isinstance(held, str) else PROBE_TEXT) + after


#: The characters a text is filled out with (:func:`_resized`).
_FILL = "abcdefghijklmnopqrstuvwxyz0123456789"


def _constant(value: Any) -> Change:
    return lambda _: value


def _resized(count: int) -> Change:
    """A list of ``count`` items: those held, then copies of the first that differ from it; a
    text of ``count`` characters: the text held, cut or filled out."""

    def change(held: Any) -> Any:
        if isinstance(held, str):
            return (held + "".join(_FILL[n % len(_FILL)] for n in range(count)))[:count]
        items = held if isinstance(held, list) and held else [PROBE_TEXT]
        return [items[n] if n < len(items) else _nth(items[0], n) for n in range(count)]

    return change


def _nth(value: Any, nth: int) -> Any:
    """``value`` made the ``nth`` of several: its texts end in ``-n``, its numbers grow by n."""
    if isinstance(value, dict):
        return {key: _nth(item, nth) for key, item in value.items()}
    if isinstance(value, str):
        return f"{value}-{nth}"
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value + nth
    return value


def _kind(value: Any) -> str:
    """The JSON kind of ``value``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return "text" if isinstance(value, str) else "list" if isinstance(value, list) else "map"


def _with_falsy_item(items: Any) -> Any:
    """A list with one falsy item more, of its first item's kind (None: not a list of any)."""
    return [*items, _falsy(items[0])] if isinstance(items, list) and items else None


def _falsy(value: Any) -> Any:
    if isinstance(value, bool):
        return False
    if isinstance(value, int | float):
        return 0
    return {} if isinstance(value, dict) else [] if isinstance(value, list) else ""


def _bodies(first: dict[str, Any], root: str | None) -> list[Any]:
    """What the expected scenario gives at ``root``: each answer of a tool (its structured
    content or JSON text), each accepted elicitation content, or the parameters."""
    if root == PARAMS:
        return [first.get("params") or {}]
    if root == ELICITATION:
        return [a.get("content") or {} for a in first.get("elicitations") or [] if _accepts(a)]
    return [_body(result) for result in first["backends"][root].get("results") or []]


def _accepts(answer: dict[str, Any]) -> bool:
    return answer.get("action") == "accept"


def _value_at(bodies: list[Any], path: tuple[str, ...]) -> Any:
    """What the first of ``bodies`` that holds ``path`` holds there (the whole list at
    :data:`ITEMS`), None if none does."""
    for body in bodies:
        found = _at(body, path)
        if found is not None:
            return found
    return None


def _at(body: Any, path: tuple[str, ...]) -> Any:
    if not path:
        return body
    decoded = _decoded(body)
    if decoded is not None:
        return _at(decoded, path)
    head, rest = path[0], path[1:]
    if head == ITEMS:
        return _at(body[0], rest) if isinstance(body, list) and body else None
    return _at(body[head], rest) if isinstance(body, dict) and head in body else None


def _changed(
    first: dict[str, Any],
    root: str,
    path: tuple[str, ...],
    change: Change,
    shapes: ToolShapes,
    parameters: Any,
) -> dict[str, Any] | None:
    """``first`` with ``change`` applied at ``path`` of each value at ``root``, or None where
    it changes nothing (or gives parameters the schema refuses)."""
    if root == PARAMS:
        params = first.get("params") or {}
        changed = put_through(params, path, change) if _declared(parameters, path) else None
        if changed is None or changed == params or not _conforms(changed, parameters):
            return None
        return {**first, "params": changed}
    if root == ELICITATION:
        answers = []
        for answer in first.get("elicitations") or []:
            content = answer.get("content") or {}
            new = put_through(content, path, change) if _accepts(answer) else None
            answers.append(answer if new is None else {**answer, "content": new})
        if answers == first.get("elicitations"):
            return None
        return {**first, "elicitations": answers}
    results = []
    for result in first["backends"][root].get("results") or []:
        body = _body(result)
        new = put_through(body, path, change)
        kept = {k: v for k, v in result.items() if k in ("when", "delay", "times")}
        changed = new is not None and new != body
        results.append({**kept, **shapes.success(root, new)} if changed else result)
    if results == first["backends"][root].get("results"):
        return None
    return {**first, "backends": {**first["backends"], root: {"results": results}}}


def _declared(parameters: Any, path: tuple[str, ...]) -> bool:
    """Whether the parameter schema declares the parameter ``path`` starts at (a client sends
    those it lists)."""
    properties = parameters.get("properties") if isinstance(parameters, dict) else None
    return bool(path) and isinstance(properties, dict) and path[0] in properties


def _body(result: dict[str, Any]) -> Any:
    """The answer one result carries (its structured content or JSON text)."""
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


def put_through(body: Any, path: tuple[str, ...], change: Change) -> Any:
    """``body`` with what ``change`` makes of what it holds at ``path`` (None when nothing is)
    there (maps made where missing, JSON text decoded and encoded, every item of a list at
    :data:`ITEMS`), or None where no map can hold it."""
    if not path:
        return change(body)
    decoded = _decoded(body)
    if decoded is not None:
        inner = put_through(decoded, path, change)
        return None if inner is None else json.dumps(inner)
    head, rest = path[0], path[1:]
    if head == ITEMS:
        if not isinstance(body, list) or not body:
            return None
        items = [put_through(item, rest, change) for item in body]
        return None if any(item is None for item in items) else items
    if body is not None and not isinstance(body, dict):
        return None
    copy = dict(body or {})
    inner = put_through(copy.get(head), rest, change)
    if inner is None:
        return None
    if inner is ABSENT:
        copy.pop(head, None)
    else:
        copy[head] = inner
    return copy


#: The JSON Schema keywords :func:`_conforms` judges; a schema with any other (a pattern, a
#: format, a combinator) is not probed.
_JUDGED = frozenset(
    {
        "type",
        "enum",
        "items",
        "properties",
        "required",
        "minItems",
        "maxItems",
        "minLength",
        "maxLength",
        "minimum",
        "maximum",
        "description",
        "default",
        "title",
        "additionalProperties",
    }
)
_KINDS: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: (
        isinstance(v, int | float) and not isinstance(v, bool) and float(v).is_integer()
    ),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}


def _conforms(value: Any, schema: Any) -> bool:
    """Whether ``value`` surely conforms to ``schema`` (False where it cannot tell)."""
    if schema is None:
        return True
    if not isinstance(schema, dict) or not set(schema) <= _JUDGED:
        return False
    kind = schema.get("type")
    if kind is not None:
        judge = _KINDS.get(kind) if isinstance(kind, str) else None
        if judge is None or not judge(value):
            return False
    if isinstance(schema.get("enum"), list) and value not in schema["enum"]:
        return False
    size = len(value) if isinstance(value, str | list) else None
    low = schema.get("minItems" if isinstance(value, list) else "minLength")
    high = schema.get("maxItems" if isinstance(value, list) else "maxLength")
    if size is not None and (
        (isinstance(low, int) and size < low) or (isinstance(high, int) and size > high)
    ):
        return False
    if isinstance(value, int | float) and not isinstance(value, bool):
        minimum, maximum = schema.get("minimum"), schema.get("maximum")
        if (isinstance(minimum, int | float) and value < minimum) or (
            isinstance(maximum, int | float) and value > maximum
        ):
            return False
    if isinstance(value, list):
        return all(_conforms(item, schema.get("items")) for item in value)
    if isinstance(value, dict) and kind == "object":
        properties = schema.get("properties") or {}
        required = schema.get("required") or []
        if any(name not in value for name in required):
            return False
        if schema.get("additionalProperties") is False and set(value) - set(properties):
            return False
        return all(_conforms(item, properties.get(name)) for name, item in value.items())
    return True
