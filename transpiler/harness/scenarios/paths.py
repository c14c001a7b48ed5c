"""Path-exhaustive scenarios: every combination of step outcomes, up to a limit.

Each backend tool gets a small set of outcomes — first the answers its readers
expect (fields of the kinds templates use, forEach items with the fields the
inner step reads, JSON text that ``fromJson`` parses into what is read of it;
lists of one item, none, three, a forEach's ``maxIterations`` and one more),
then the first of them with one field at a time missing, null or falsy; then
success with the read fields set to one template literal, to another, or to a
text no template compares with (so every condition can go either way with
every field present), success with the fields missing, an ``isError`` result,
a transport error, (for a tool several calls reach, each its own answer)
``isError`` for one of those calls alone, (for retried tools) a failure that
succeeds on the next attempt, and (for tools a step with a ``timeout`` calls)
the expected answer
after a delay that crosses that timeout or a script's call limit; then
*unexpected* answers: the first expected one with values of other kinds
(:class:`transpiler.harness.scenarios.happy.Reshape`), and with the fields only some
template reads present but falsy. forEach collections come as 0, 1
and 3 items. Each elicitation gets accept, decline and cancel. The
combinations are enumerated in a fixed order (beyond the limit: the expected
one, those one ordinary outcome from it, then each *base*, a combination where a
step the expected one skips may run (each other elicitation answer; the expected
answers with a read that a template compares with another read at the other's
boundary, ordinary or ``defaultResults``, and past it), with one other tool
failing each way; then those one unexpected answer from the expected one,
those where a forEach's collection of another length meets a failure of its
inner tool, each base with one other tool answering each other way, then
samples drawn with the seed); the control-flow path a
scenario takes is read off the composite trace (each step's status and the
number of calls per tool), so coverage is "distinct paths reached out of
combinations run".
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from transpiler.config.model import DEFAULT_MAX_ITERATIONS
from transpiler.harness.scenarios.shapes import ToolShapes, Trie
from transpiler.sim.scenario import Scenario, scenario_from_document
from transpiler.sim.trace import Trace

_T = TypeVar("_T")


def _filled(trie: Trie, value: Any, lists: set[str], size: int) -> dict[str, Any]:
    body: dict[str, Any] = {}
    for name, children in trie.items():
        if name in lists:
            body[name] = [_filled(children, value, set(), 0) if children else value] * size
        elif children:
            body[name] = _filled(children, value, set(), size)
        else:
            body[name] = value
    return body


def tool_answers(
    shapes: ToolShapes,
    tool: str,
    expected: Sequence[dict[str, Any]] = (),
    keyed: Sequence[dict[str, Any]] = (),
    keyed_others: Sequence[Sequence[dict[str, Any]]] = (),
) -> list[dict[str, Any]]:
    """The distinct successful answers of one backend tool: first the ``expected`` ones (what
    its readers expect, :func:`transpiler.harness.scenarios.happy.expected`; the first after the
    answers ``keyed`` to each call of the ordinary run, each other after those of
    ``keyed_others``), then the first of them with one field changed at a time; then the
    fields read filled with template literals, and left out."""
    trie = shapes.output_fields.get(tool, {})
    lists = shapes.collection_fields.get(tool, set())
    literals = shapes.literals or ["x"]
    other = next(text for text in ("other", "other-1", "other-2") if text not in literals)
    bodies = [*expected, *(leaf_variants(expected[0]) if expected else [])]
    outcomes: list[dict[str, Any]] = [{"results": [shapes.success(tool, b)]} for b in bodies]
    for index, entries in enumerate([keyed, *keyed_others][: len(expected)]):
        if entries:
            outcomes[index] = {"results": [*entries, *outcomes[index]["results"]]}
    for size in (1, 0, 3) if lists else (1,):
        for value in dict.fromkeys([literals[0], literals[-1], other]):
            outcomes.append({"results": [shapes.success(tool, _filled(trie, value, lists, size))]})
    outcomes.append({"results": [shapes.success(tool, {})]})
    return _distinct(outcomes)


def unexpected_answers(
    shapes: ToolShapes,
    tool: str,
    expected: Sequence[dict[str, Any]],
    reshaped: Sequence[dict[str, Any]] = (),
) -> list[dict[str, Any]]:
    """Answers of one backend tool whose values its readers do not expect: the first
    ``expected`` answer with values of other kinds (``reshaped``), then with the fields only
    some template reads present but falsy, then with odd values (:func:`odd_values`), then
    the first reshaped answer holding a number inside JSON text with those numbers as
    fractions and as :data:`BIG_NUMBER`."""
    if not expected:
        return []
    trie = shapes.output_fields.get(tool, {})
    bodies = [*reshaped, *unread_falsy(expected[0], trie), *odd_values(expected[0])]
    # The first reshaped answer holding a number inside JSON text (where a text is expected):
    # with the numbers there as fractions, and as a large whole number.
    numbered = [body for body in reshaped if _numbers_in_text(body, _below) != body][:1]
    bodies += [_numbers_in_text(body, change) for body in numbered for change in (_below, _big)]
    return _distinct([{"results": [shapes.success(tool, body)]} for body in bodies])


def _distinct(outcomes: list[_T]) -> list[_T]:
    return [o for i, o in enumerate(outcomes) if o not in outcomes[:i]]


#: An ``isError`` answer.
FAILED: dict[str, Any] = {"isError": True, "content": [{"type": "text", "text": "failed"}]}


def tool_failures(shapes: ToolShapes, tool: str, answer: dict[str, Any]) -> list[dict[str, Any]]:
    """How one backend tool fails: an ``isError`` result, a transport error, (where
    ``answer``, an outcome of :func:`tool_answers`, answers several calls each its own way)
    ``isError`` for one of those calls alone, (when a step retries it) a failure its next
    attempt recovers from, and (when a step calling it sets a ``timeout``) its answer to any
    call given first after a delay that crosses a deadline (:attr:`ToolShapes.slow`), then
    at once."""
    failures: list[dict[str, Any]] = [
        {"results": [FAILED]},
        {"results": [{"transportError": "connection reset"}]},
    ]
    given = answer["results"]
    failures += [
        {"results": [*given[:index], {"when": result["when"], **FAILED}, *given[index + 1 :]]}
        for index, result in enumerate(given)
        if "when" in result
    ]
    success = given[-1]
    if tool in shapes.retried_tools:
        failures.append({"results": [{"transportError": "busy", "times": 1}, success]})
    failures += [
        {"results": [{**success, "delay": delay, "times": 1}, success]}
        for delay in shapes.slow.get(tool, ())
    ]
    return failures


#: Present but falsy values, each given at once to every field a template reads that the
#: expected answer does not hold (a template's ``if`` takes them all as false).
FALSY: tuple[Any, ...] = ("", 0, False, [], {})


def unread_falsy(body: dict[str, Any], trie: Trie) -> list[dict[str, Any]]:
    """``body`` with the fields ``trie`` names that it does not hold (read where the walk of
    the templates cannot follow: through a variable, under ``with``) present, each answer
    with one of the :data:`FALSY` values in all of them."""
    unread = _unread(body, trie)
    if not unread:
        return []
    variants = []
    for falsy in FALSY:
        variant = body
        for path in unread:
            variant = _put(variant, path, falsy)
        variants.append(variant)
    return variants


def _unread(body: Any, trie: Trie, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """The leaf paths of ``trie`` that ``body`` does not hold as maps down to them."""
    found: list[tuple[str, ...]] = []
    for name, children in trie.items():
        here = (*path, name)
        held = isinstance(body, dict) and name in body
        if held and isinstance(body[name], list):
            continue  # what is read of items is not this answer's fields
        if children:
            found += _unread(body[name] if held else None, children, here)
        elif not held:
            found.append(here)
    return found


def _put(body: Any, path: tuple[str, ...], value: Any) -> dict[str, Any]:
    """``body`` (a map, or made one) with ``value`` at ``path``."""
    copy = dict(body) if isinstance(body, dict) else {}
    copy[path[0]] = value if len(path) == 1 else _put(copy.get(path[0]), path[1:], value)
    return copy


#: A whole number past a million that is not a round one, where Go writes ``1.5e+06``.
BIG_NUMBER = 1_500_000.0


def leaf_variants(body: dict[str, Any]) -> list[dict[str, Any]]:
    """``body`` with one field changed at a time: left out, null, or present but falsy (``""``,
    ``0``, ``false``); then with every number a large whole one. Fields inside list items are
    changed in the first item, fields inside JSON text in the text (which is encoded again)."""
    variants = _one_leaf_changes(body)
    big = _numbers(body, _big)
    if big != body:
        variants.append(big)
    return variants


def _one_leaf_changes(body: Any) -> list[Any]:
    variants: list[Any] = []
    for path, value in _leaves(body):
        inner = _decoded(value)
        if inner is not None:
            variants += [_with(body, path, json.dumps(v)) for v in _one_leaf_changes(inner)]
            continue
        falsy = False if isinstance(value, bool) else 0 if isinstance(value, int | float) else ""
        variants += [_without(body, path), _with(body, path, None), _with(body, path, falsy)]
    return variants


def _decoded(text: Any) -> Any:
    """The non-empty map or list a JSON text holds, or None."""
    if not isinstance(text, str) or not text.startswith(("{", "[")):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict | list) and value else None


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], Any]]:
    if isinstance(value, dict):
        return [leaf for key, item in value.items() for leaf in _leaves(item, (*path, key))]
    if isinstance(value, list) and value:
        return _leaves(value[0], (*path, 0))
    return [(path, value)] if path else []


def _with(body: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    copy = dict(body) if isinstance(body, dict) else list(body)
    copy[path[0]] = _with(copy[path[0]], path[1:], value)
    return copy


def _without(body: Any, path: tuple[Any, ...]) -> Any:
    if len(path) == 1:
        if isinstance(body, dict):
            return {k: v for k, v in body.items() if k != path[0]}
        return body[1:]
    copy = dict(body) if isinstance(body, dict) else list(body)
    copy[path[0]] = _without(copy[path[0]], path[1:])
    return copy


def _numbers(value: Any, number: Callable[[float], float]) -> Any:
    """``value`` with every number (inside JSON text too) replaced by ``number`` of it."""
    return _mapped(
        value,
        lambda leaf: (
            leaf if isinstance(leaf, bool) or not isinstance(leaf, int | float) else number(leaf)
        ),
    )


def _numbers_in_text(value: Any, number: Callable[[float], float]) -> Any:
    """``value`` with every number inside its JSON text replaced by ``number`` of it."""
    if _decoded(value) is not None:
        return _numbers(value, number)
    if isinstance(value, dict):
        return {k: _numbers_in_text(v, number) for k, v in value.items()}
    if isinstance(value, list):
        return [_numbers_in_text(item, number) for item in value]
    return value


def _mapped(
    value: Any,
    leaf: Callable[[Any], Any],
    maps: Callable[[dict[str, Any]], dict[str, Any]] = dict,
    lists: Callable[[list[Any]], list[Any]] = list,
) -> Any:
    """``value`` with ``leaf`` applied to each scalar, ``maps`` to each map and ``lists`` to
    each list, bottom up; JSON text is decoded, changed and encoded again."""
    inner = _decoded(value)
    if inner is not None:
        return json.dumps(_mapped(inner, _whole_as_int(leaf), maps, lists))
    if isinstance(value, dict):
        return maps({k: _mapped(v, leaf, maps, lists) for k, v in value.items()})
    if isinstance(value, list):
        return lists([_mapped(item, leaf, maps, lists) for item in value])
    return leaf(value)


def _whole_as_int(leaf: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``leaf``, with a whole float it gives as an int (as JSON text writes a whole number)."""

    def changed(value: Any) -> Any:
        new = leaf(value)
        return int(new) if isinstance(new, float) and new.is_integer() else new

    return changed


#: Appended to every free text of an odd answer: characters Go's ``json`` escapes.
MARKUP = "<b>&"
#: A key an odd answer adds last to every map: it sorts before the keys read.
EARLY_KEY = "0"


def _big(_: float) -> float:
    """:data:`BIG_NUMBER`, for any number."""
    return BIG_NUMBER


def _below(number: float) -> float:
    """Half a unit below ``number``."""
    return number - 0.5


def odd_values(body: dict[str, Any]) -> list[dict[str, Any]]:
    """``body`` with values no expected answer has: every number half a unit below itself (a
    fraction beside a threshold a template compares with, where a whole number is expected);
    every list of items holding its first item twice; every text ending in
    :data:`MARKUP` and every map with :data:`EARLY_KEY` added last (its keys then not in
    sorted order)."""
    variants = [
        _numbers(body, _below),
        _mapped(body, lambda v: v, lists=lambda items: items[:1] * 2 if items else items),
        _mapped(
            body,
            lambda v: v + MARKUP if isinstance(v, str) else v,
            maps=lambda m: {**m, EARLY_KEY: "x"} if m else m,
        ),
    ]
    return [v for v in variants if v != body]


def elicitation_outcomes(shapes: ToolShapes) -> list[list[dict[str, Any]]]:
    """Answer sequences for the workflow's elicitations (one answer repeats)."""
    if not shapes.elicitation_steps:
        return [[]]
    literals = shapes.literals or ["x"]
    accepted: dict[str, Any] = {
        "action": "accept",
        "content": _filled(shapes.elicitation_fields, literals[0], set(), 1),
    }
    outcomes = [[accepted], [{"action": "decline"}], [{"action": "cancel"}]]
    # Then each elicitation accepted with each value its schema offers (enum values, both
    # booleans), one property at a time, every other elicitation answered as usual.
    for index, choices in enumerate(shapes.elicitation_choices):
        for name, values in choices.items():
            for value in values:
                content = {**accepted["content"], name: value}
                if content != accepted["content"]:
                    chosen = {"action": "accept", "content": content}
                    outcomes.append([*[accepted] * index, chosen, accepted])
    return _distinct(outcomes)


def combinations(
    shapes: ToolShapes,
    name: str,
    params: dict[str, Any],
    limit: int,
    seed: int,
    expected: Mapping[str, Sequence[dict[str, Any]]] | None = None,
    reshaped: Mapping[str, Sequence[dict[str, Any]]] | None = None,
    keyed: Mapping[str, Sequence[dict[str, Any]]] | None = None,
    compared: Sequence[tuple[Any, Any]] = (),
    keyed_others: Mapping[str, Sequence[Sequence[dict[str, Any]]]] | None = None,
) -> tuple[list[Scenario], int, list[Scenario]]:
    """Up to ``limit`` scenarios, one per outcome combination, how many combinations exist,
    and the bases among them (:func:`_bases`; ``expected``: each tool's answers as its
    readers expect them, tried first; ``keyed``: its answer to each call of the ordinary
    run, before the first, and ``keyed_others`` before each other; ``reshaped``: its first
    expected answer with values of other
    kinds; ``compared``: values of the first answers to change for a comparison of two
    reads, :attr:`~transpiler.harness.scenarios.happy.Expected.compared`)."""
    expected, reshaped, keyed = expected or {}, reshaped or {}, keyed or {}
    others = keyed_others or {}
    answers_of = {
        tool: tool_answers(
            shapes, tool, expected.get(tool, ()), keyed.get(tool, ()), others.get(tool, ())
        )
        for tool in shapes.tools
    }
    failures_of = {tool: tool_failures(shapes, tool, answers_of[tool][0]) for tool in shapes.tools}
    unexpected_of = {
        tool: [
            answer
            for answer in unexpected_answers(
                shapes, tool, expected.get(tool, ()), reshaped.get(tool, ())
            )
            if answer not in answers_of[tool]
        ]
        for tool in shapes.tools
    }
    per_tool = [
        [*answers_of[tool], *failures_of[tool], *unexpected_of[tool]] for tool in shapes.tools
    ]
    answers = elicitation_outcomes(shapes)
    total = len(answers)
    for outcomes in per_tool:
        total *= len(outcomes)
    first = (answers[0], *(options[0] for options in per_tool))
    bases = _bases(first, answers, compared)
    answered = [0, *(len(answers_of[tool]) for tool in shapes.tools)]
    ordinary = [len(answers), *(len(a) + len(failures_of[t]) for t, a in answers_of.items())]
    # Beyond the product: each base, and each base with one other tool failing each way,
    # then answering each other way.
    failing, answering = _beside(bases, per_tool, answered, ordinary)
    positions: list[list[Any]] = [answers, *per_tool]
    beside = [*bases, *failing, *answering]
    outside = [
        combo
        for combo in _distinct([_applied(first, changes) for changes in beside])
        if not all(outcome in options for outcome, options in zip(combo, positions, strict=True))
    ]
    total += len(outside)
    chosen: Iterator[tuple[Any, ...]] = itertools.product(answers, *per_tool)
    if total <= limit:
        picked = [*chosen, *outside]
    else:
        position = {tool: index + 1 for index, tool in enumerate(shapes.tools)}
        # After the combinations one outcome away (:func:`_sample`), each base and each base
        # with one other tool failing, then those whose one other outcome is an unexpected
        # answer,
        later = [*bases, *failing]
        later += [
            {position[tool]: answer} for tool in shapes.tools for answer in unexpected_of[tool]
        ]
        # then those two outcomes away where a forEach's collection holds each other length
        # (three items, maxIterations, one more) while the loop's inner tool fails each way.
        later += [
            {position[source]: answers_of[source][index], position[inner]: failure}
            for source, inner in shapes.loops
            if source != inner
            for index, body in enumerate(expected.get(source, ()))
            if index > 0 and _longest_list(body) <= CROSSED_ITEMS
            for failure in failures_of[inner]
        ]
        # then each base with one other tool's other answer.
        later += answering
        picked = _sample(answers, per_tool, limit, seed, ordinary, later)

    def scenario(combo: tuple[Any, ...]) -> Scenario:
        backends = dict(zip(shapes.tools, combo[1:], strict=True))
        return scenario_from_document(
            {"tool": name, "params": params, "backends": backends, "elicitations": combo[0]}
        )

    based = [_applied(first, base) for base in bases]
    return [scenario(c) for c in picked], total, [scenario(c) for c in picked if c in based]


def _bases(
    first: tuple[Any, ...], answers: list[Any], compared: Sequence[tuple[Any, Any]]
) -> list[dict[int, Any]]:
    """The combinations a step the first one skips may run from (position in the combination:
    outcome there): each other elicitation answer, and the first combination with each
    value of ``compared`` changed (a comparison of two reads at its boundary or past it)."""
    bases: list[dict[int, Any]] = [{0: answer} for answer in answers[1:]]
    for old, new in compared:
        turned = {
            index: changed
            for index, outcome in enumerate(first)
            if index and (changed := _turned(outcome, old, new)) != outcome
        }
        if turned:
            bases.append(turned)
    return _distinct(bases)


def _turned(value: Any, old: Any, new: Any) -> Any:
    """``value`` with every scalar equal to ``old`` (a number for a number, a text for a
    text; inside JSON text too) replaced by ``new``."""

    def leaf(item: Any) -> Any:
        if isinstance(item, bool) or isinstance(old, bool):
            return item
        if isinstance(old, str):
            return new if isinstance(item, str) and item == old else item
        return new if isinstance(item, int | float) and item == old else item

    return _mapped(value, leaf)


def _applied(first: tuple[Any, ...], changes: Mapping[int, Any]) -> tuple[Any, ...]:
    return tuple(changes.get(index, outcome) for index, outcome in enumerate(first))


def _beside(
    bases: Sequence[dict[int, Any]],
    per_tool: Sequence[Sequence[Any]],
    answered: Sequence[int],
    ordinary: Sequence[int],
) -> tuple[list[dict[int, Any]], list[dict[int, Any]]]:
    """Each base with one backend tool it leaves as first given another outcome: first its
    failures (those of ``ordinary`` past the ``answered`` ones), then its other answers;
    the n-th of each tool for every base before the next (so a limit cuts every base and
    every tool alike)."""
    failures = [range(answered[i], ordinary[i]) for i in range(1, len(per_tool) + 1)]
    others = [range(1, answered[i]) for i in range(1, len(per_tool) + 1)]

    def taken(ranks: list[range]) -> list[dict[int, Any]]:
        return [
            {**base, index: per_tool[index - 1][nths[rank]]}
            for rank in range(max(map(len, ranks), default=0))
            for index, nths in enumerate(ranks, start=1)
            for base in bases
            if rank < len(nths) and index not in base
        ]

    return taken(failures), taken(others)


#: The most items of a collection crossed with its loop's failures (vMCP's default
#: maxIterations): a failing loop of more is slow to replay on starlark-rust.
CROSSED_ITEMS = DEFAULT_MAX_ITERATIONS


def _longest_list(value: Any) -> int:
    """The length of the longest list in a JSON value."""
    if isinstance(value, dict):
        return max(map(_longest_list, value.values()), default=0)
    if isinstance(value, list):
        return max([len(value), *map(_longest_list, value)])
    return 0


def _sample(
    answers: list[Any],
    per_tool: list[list[Any]],
    limit: int,
    seed: int,
    ordinary: Sequence[int] = (),
    later: Sequence[Mapping[int, Any]] = (),
) -> list[tuple[Any, ...]]:
    """``limit`` distinct combinations: first the one where every backend answers its first
    outcome (success) and the first answer is given (accept), as in the full product, then
    those that differ from it in one of the first ``ordinary`` outcomes of a position (all,
    where none is said), then those that differ from it as ``later`` says (position in the
    combination: outcome there), then random ones."""
    if limit <= 0:
        return []
    chooser = random.Random(seed)
    first = (answers[0], *(options[0] for options in per_tool))
    seen = {json.dumps(first, sort_keys=True)}
    picked: list[tuple[Any, ...]] = [first]

    def add(combo: tuple[Any, ...]) -> None:
        key = json.dumps(combo, sort_keys=True)
        if len(picked) < limit and key not in seen:
            seen.add(key)
            picked.append(combo)

    # Then every combination one outcome away from it: each field missing, null or falsy on
    # its own, each failure of each tool, each other answer, while all else goes as expected.
    for index, options in enumerate([answers, *per_tool]):
        count = ordinary[index] if index < len(ordinary) else len(options)
        for option in options[1:count]:
            add((*first[:index], option, *first[index + 1 :]))
    for changes in later:
        add(tuple(changes.get(index, outcome) for index, outcome in enumerate(first)))
    for _ in range(limit * 20):
        if len(picked) >= limit:
            break
        add((chooser.choice(answers), *(chooser.choice(options) for options in per_tool)))
    return picked


def path_of(trace: Trace) -> str:
    """The control-flow path a composite run took: step statuses and calls per tool."""
    statuses = sorted((step, record.status) for step, record in (trace.steps or {}).items())
    per_tool: dict[str, int] = {}
    for call in trace.calls:
        per_tool[call.tool] = per_tool.get(call.tool, 0) + 1
    return json.dumps([trace.outcome, statuses, sorted(per_tool.items())])


def sample_params(
    schema: Any, *, optional: bool = True, number: int | None = None
) -> dict[str, Any]:
    """One plain argument map conforming to the parameter schema: every property set, or
    (``optional=False``) only the required ones, as an ordinary client often sends; each a
    value of its own (a text its name, the n-th property's number n, a list one such item:
    a script that reads another parameter than its workflow sees another value); numbers are
    ``number`` when given (to sit on either side of a formatting threshold)."""
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        return {}
    required = schema.get("required")
    wanted = set(required) if isinstance(required, list) and not optional else None
    return {
        str(name): _sample_value(spec, str(name), index, number)
        for index, (name, spec) in enumerate(schema["properties"].items())
        if wanted is None or name in wanted
    }


def param_items(name: str, spec: Any, length: int, index: int = 0) -> list[Any]:
    """``length`` items of the list parameter ``name`` (the ``index``-th property; ``spec``
    its schema), each another value of the item schema."""
    items = spec.get("items") if isinstance(spec, dict) else None
    return [_sample_value(items, name, index, None, nth) for nth in range(length)]


def _sample_value(
    schema: Any, label: str, index: int, number: int | None = None, nth: int = 0
) -> Any:
    """A value of ``schema``: a text is ``label`` (``-n`` for the n-th item of a list), a
    number ``index + 1`` (plus ``nth``; a half more for ``number``), or ``number``."""
    if not isinstance(schema, dict):
        return f"{label}-{nth}" if nth else label
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "integer":
        return index + 1 + nth if number is None else number
    if kind == "number":
        return index + 1.5 + nth if number is None else float(number)
    if kind == "boolean":
        return True
    if kind == "array":
        return param_items(label, schema, 1, index)
    if kind == "object":
        properties = schema.get("properties")
        if not isinstance(properties, dict):
            return {}
        return {
            str(key): _sample_value(sub, f"{label}.{key}", index + position, number, nth)
            for position, (key, sub) in enumerate(properties.items())
        }
    return f"{label}-{nth}" if nth else label
