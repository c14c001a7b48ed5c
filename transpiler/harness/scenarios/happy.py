"""The ordinary successful run of a tool: every backend answers with what its templates read.

A quirk of vMCP's engine that fires on such a run is a latent bug in the
workflow as vMCP runs it today (a *finding*). To build the run, each template
is walked to learn what shape it expects of each value it reads: a field
compared with a literal holds a value of the literal's kind, a field printed
into an ``integer`` output property holds a number, a field under ``json``
that feeds a forEach collection holds a list whose items carry the fields the
inner step reads, a field under ``fromJson`` holds JSON text of what is read
from it, and so on. What nothing constrains is a *free text*.
The same walk gives each tool's answer with values of other kinds than its
readers expect (:class:`Reshape`), for the path scenarios.

The ordinary run's data tells every value apart (the standard distinguishing
input): each free text is its own label (the step and the field path that hold
it, ``merge.sha``, inside JSON text too: ``config.text.replicas``), each number
another number, each parameter its own value, and each call of a backend tool
its own answer (:func:`keyed_answers`: entries matched by the call's arguments),
so a script that reads another step's answer of the same shape, another field,
or another item shows it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from transpiler.composite import run_composite
from transpiler.config.model import CompositeToolConfig, OutputProperty, StepKind
from transpiler.golang.fmt import format_value
from transpiler.gotemplate import TemplateSyntaxError, ast, parse
from transpiler.gotemplate.functions import FUNCTIONS, Codec, Flow
from transpiler.harness.scenarios.analysis import ToolAnalysis
from transpiler.harness.scenarios.paths import _decoded, param_items, sample_params
from transpiler.harness.scenarios.shapes import CALLS, ToolShapes, content_tools
from transpiler.sim.scenario import Scenario, scenario_from_document
from transpiler.sim.trace import plain_json

#: What a simulated backend answers for a text no template constrains (a *free text*) where
#: nothing names it (a reshaped map's value); named ones take their label (:meth:`Shape.value`).
SIMULATED_TEXT = "ok"


@dataclass
class Distinct:
    """The numbers of one scenario's answers, each another (7, 8, ...): a script that reads
    another number than its workflow reads sees another value."""

    following: int = 7
    #: The value each scalar shape took first (by ``id``): what a comparison of two reads
    #: compares in the ordinary run (:func:`_compared`).
    given: dict[int, Any] = field(default_factory=dict)

    def number(self) -> float:
        """A number no other value of the scenario has taken."""
        self.following += 1
        return float(self.following - 1)

    def took(self, shape: Shape, value: Any) -> Any:
        """``value``, recorded as the first value ``shape`` took."""
        self.given.setdefault(id(shape), value)
        return value


@dataclass
class Shape:
    """What a run expects of one value: a kind, fields, an item shape, or JSON text of a shape."""

    kind: str = "string"
    literal: Any = None
    fields: dict[str, Shape] = field(default_factory=dict)
    item: Shape | None = None
    encoded: Shape | None = None
    cap: int | None = None  # a list that feeds a forEach: its maxIterations

    def at(self, name: str) -> Shape:
        """The shape of a field (this value is then a map)."""
        self.kind = "map"
        return self.fields.setdefault(name, Shape())

    def items(self) -> Shape:
        """The shape of the items (this value is then a list)."""
        self.kind = "list"
        if self.item is None:
            self.item = Shape()
        return self.item

    def text_of(self) -> Shape:
        """The shape of what this value, a JSON text, decodes to."""
        self.kind = "json"
        if self.encoded is None:
            self.encoded = Shape()
        return self.encoded

    def expect(self, kind: str, literal: Any = None) -> None:
        """A scalar kind, unless a structure was already seen."""
        if self.kind in ("string", "number", "bool"):
            self.kind, self.literal = kind, literal

    def value(
        self,
        lists: str = "one",
        nth: int = 0,
        reshape: Reshape | None = None,
        label: str = SIMULATED_TEXT,
        distinct: Distinct | None = None,
    ) -> Any:
        """A JSON value of this shape; its lists hold one item, or by ``lists``: ``none``,
        ``three``, or (``cap``, ``over``) a forEach's maxIterations and one more. A free text
        is its ``label`` (extended by each field's name on the way: ``merge.sha``), a number
        one ``distinct`` gives (else 7); items after the first differ from it (``nth``: a
        text gets ``-n``, a number compared with a literal ``+n``). With ``reshape``, free
        texts or numbers are values of another kind (:class:`Reshape`)."""
        if self.kind == "map":
            return {
                name: sub.value(lists, nth, reshape, f"{label}.{name}", distinct)
                for name, sub in self.fields.items()
            }
        if self.kind == "list":
            item = self.item or Shape()
            count = self._length(lists)
            return [
                item.value(lists, nth + index, reshape, label, distinct) for index in range(count)
            ]
        if self.kind == "json":
            encoded = self.encoded or Shape()
            return json.dumps(encoded.value(lists, nth, reshape, label, distinct))
        if self.kind == "number":
            if isinstance(self.literal, int | float):
                number = float(self.literal) + nth
            else:
                number = distinct.number() if distinct is not None else 7.0 + nth
            if reshape is not None and reshape.numbers_as_text:
                return format_value(number)
            return distinct.took(self, number) if distinct is not None else number
        if self.kind == "bool":
            return True if self.literal is None else bool(self.literal)
        if reshape is not None and self.literal is None:
            if reshape.free_text is not None:
                return reshape.free_text
            if reshape.rotation is not None:
                return reshape.other_kind(self, nth)
        text = self.literal if isinstance(self.literal, str) else label
        text = f"{text}-{nth}" if nth else text
        return distinct.took(self, text) if distinct is not None else text

    def _length(self, lists: str) -> int:
        if lists == "none":
            return 0
        if lists == "three":
            return 3
        if self.cap is not None and lists in ("cap", "over"):
            return self.cap + (lists == "over")
        return 1


@dataclass
class Reshape:
    """An answer whose values are of other kinds than its readers expect: free texts (a text
    no template compares with a literal) as a boolean, a map or a number in turn (the
    ``rotation``-th reshaped answer gives its i-th free text the kind ``(i + rotation) mod
    3`` of :data:`OTHER_KINDS`, so each free text takes each kind once and neighbours are of
    different kinds at once: a map beside a boolean at one site), or numbers as their text."""

    rotation: int | None = None
    numbers_as_text: bool = False
    free_text: str | None = None
    _order: dict[int, int] = field(default_factory=dict, init=False, repr=False)

    @property
    def free(self) -> bool:
        """Whether it changes the free texts (values no template constrains, whose real form
        is unknown), not the form of numbers the templates expect."""
        return self.free_text is not None or self.rotation is not None

    def describe(self) -> str:
        """What this answer changes, for a report."""
        if self.free_text is not None:
            return f"the text {self.free_text!r}"
        if self.numbers_as_text:
            return "numbers written as text"
        return "a number, a boolean or a map where it answers a free text"

    def other_kind(self, shape: Shape, nth: int) -> Any:
        """The value of another kind for the free text ``shape`` (item ``nth`` of a list)."""
        assert self.rotation is not None
        index = self._order.setdefault(id(shape), len(self._order))
        kind = OTHER_KINDS[(index + self.rotation) % len(OTHER_KINDS)]
        if kind == "bool":
            return True
        if kind == "map":
            return {"key": f"{SIMULATED_TEXT}-{nth}" if nth else SIMULATED_TEXT}
        return 1234 + nth  # a whole number, as a numeric id is written


#: The kinds a free text takes in reshaped answers, in turn.
OTHER_KINDS = ("number", "bool", "map")


def reshapes() -> list[Reshape]:
    """The reshaped answers of a tool, after its expected ones: each rotation of the free
    texts' kinds, then numbers as text."""
    return [*(Reshape(rotation=k) for k in range(len(OTHER_KINDS))), Reshape(numbers_as_text=True)]


def free_texts() -> list[Reshape]:
    """Answers whose free texts are all one text of another form: JSON of a list and of a map,
    a number's text, a boolean's."""
    return [Reshape(free_text=text) for text in ('["ok"]', '{"key": "ok"}', "7", "true")]


#: How long the lists of an expected answer are, in the order outcomes are given.
LIST_LENGTHS = ("one", "none", "three", "cap", "over")


@dataclass
class _Walk:
    """Shapes of every step's output and elicitation content, grown template by template."""

    steps: dict[str, Shape] = field(default_factory=dict)
    params: Shape = field(default_factory=lambda: Shape(kind="map"))
    item: Shape | None = None
    item_var: str = "item"
    #: Reads a template compares with each other (no literal among them): each with its
    #: context path where it is a field of a step's output or a parameter.
    compared: list[list[tuple[Shape, tuple[str, ...] | None]]] = field(default_factory=list)

    def root(self, path: tuple[str, ...]) -> Shape | None:
        """The shape at a context path (None: not a value a backend or a user supplies)."""
        if len(path) >= 3 and path[0] == "steps" and path[2] == "output":
            shape = self.steps.setdefault(path[1], Shape())
            for name in path[3:]:
                shape = shape.at(name)
            return shape
        if len(path) >= 2 and path[0] == "params":
            shape = self.params
            for name in path[1:]:
                shape = shape.at(name)
            return shape
        if len(path) >= 2 and path[0] == "forEach" and self.item is not None:
            if path[1] != self.item_var:
                return None
            shape = self.item
            for name in path[2:]:
                shape = shape.at(name)
            return shape
        return None

    def node(self, node: ast.Node) -> Shape | None:
        """The shape of what ``node`` evaluates to, recording what it demands."""
        if isinstance(node, ast.FieldNode):
            return self.root(node.ident)
        if isinstance(node, ast.ChainNode):
            inner = self.node(node.node)
            for name in node.field:
                inner = None if inner is None else inner.at(name)
            return inner
        if isinstance(node, ast.PipeNode):
            result: Shape | None = None
            for command in node.cmds:
                result = self.command(command, result)
            return result
        return None

    def command(self, command: ast.CommandNode, final: Shape | None) -> Shape | None:
        first, operands = command.args[0], list(command.args[1:])
        if not isinstance(first, ast.IdentifierNode):
            return self.node(first)
        shapes = [self.node(operand) for operand in operands]
        if final is not None:
            shapes.append(final)
        function = FUNCTIONS[first.ident]
        if function.compares:
            self._compare(operands, shapes)
        elif function.codec is Codec.ENCODES and shapes:
            return shapes[0]
        elif function.codec is Codec.DECODES and shapes and shapes[0] is not None:
            return shapes[0].text_of()
        elif function.flow is Flow.KEYED and shapes and shapes[0] is not None:
            shape = shapes[0]
            for key in operands[1:]:
                shape = shape.at(key.text) if isinstance(key, ast.StringNode) else shape.items()
            return shape
        elif function.measures and shapes and shapes[0] is not None:
            shapes[0].items()
        return None

    def _compare(self, operands: list[ast.Node], shapes: list[Shape | None]) -> None:
        literal = next((o for o in operands if _literal(o) is not None), None)
        if literal is None:
            reads = [
                (shape, operand.ident if isinstance(operand, ast.FieldNode) else None)
                for operand, shape in zip(operands, shapes, strict=False)
                if shape is not None
            ]
            if len(reads) >= 2:
                self.compared.append(reads)
            return
        kind, value = _literal(literal) or ("string", None)
        for shape in shapes:
            if shape is not None:
                shape.expect(kind, value)

    def template(self, text: str, printed_kind: str | None = None) -> Shape | None:
        """Walk one template; a lone action's value is typed by ``printed_kind`` if given."""
        try:
            tree = parse(text)
        except TemplateSyntaxError:
            return None
        lone = ast.lone_action(tree.root)
        for child in _nodes(tree.root):
            if isinstance(child, ast.ActionNode | ast.BranchNode):
                shape = self.node(child.pipe)
                if isinstance(child, ast.RangeNode) and shape is not None:
                    shape.items()
        if lone is not None:
            shape = self.node(lone.pipe)
            if shape is not None and printed_kind is not None:
                shape.expect(printed_kind)
            return shape
        return None


def _literal(node: ast.Node) -> tuple[str, Any] | None:
    if isinstance(node, ast.StringNode):
        return "string", node.text
    if isinstance(node, ast.BoolNode):
        return "bool", node.value
    if isinstance(node, ast.NumberNode):
        return "number", node.float_value if node.is_float else node.int_value
    return None


def _nodes(node: ast.Node) -> list[ast.Node]:
    """Every node under ``node``, branches included."""
    found: list[ast.Node] = []
    stack = [node]
    while stack:
        item = stack.pop()
        found.append(item)
        if isinstance(item, ast.ListNode):
            stack.extend(item.nodes)
        elif isinstance(item, ast.BranchNode):
            stack.append(item.list)
            if item.else_list is not None:
                stack.append(item.else_list)
    return found


_PROPERTY_KINDS = {"integer": "number", "number": "number", "boolean": "bool"}


def _output(walk: _Walk, properties: dict[str, OutputProperty]) -> None:
    for definition in properties.values():
        if definition.value:
            shape = walk.template(definition.value, _PROPERTY_KINDS.get(definition.type))
            if shape is not None and definition.type in ("object", "array"):
                if not _encodes(definition.value):
                    shape = shape.text_of()
                if definition.type == "array":
                    shape.items()
                else:
                    shape.kind = "map"
        _output(walk, dict(definition.properties))


def _encodes(text: str) -> bool:
    """Whether a template is one action whose last command encodes JSON (``json``)."""
    try:
        lone = ast.lone_action(parse(text).root)
    except TemplateSyntaxError:
        return False
    if lone is None:
        return False
    last = lone.pipe.cmds[-1].args[0]
    return isinstance(last, ast.IdentifierNode) and FUNCTIONS[last.ident].codec is Codec.ENCODES


def _walked(analysis: ToolAnalysis) -> _Walk:
    """Every template of the tool walked: the shapes its readers expect."""
    tool = analysis.tool
    walk = _Walk()
    items_of: dict[str, tuple[Shape, str]] = {}
    for step in tool.steps:
        if step.kind_row is not None and step.kind_row.uses("collection"):
            items = walk.template(step.collection)
            if items is not None and not _encodes(step.collection):
                items = items.text_of()  # vMCP parses the text it prints
            if items is not None:
                items.cap = step.iteration_limit
            item_shape = Shape() if items is None else items.items()
            items_of[step.id] = (item_shape, step.item_name)
    for site in analysis.sites:
        if site.site == "collection":
            continue
        if site.site.startswith("step.arguments") and site.reader in items_of:
            walk.item, walk.item_var = items_of[site.reader]
        walk.template(site.text)
        walk.item = None
    if tool.output is not None:
        _output(walk, dict(tool.output.properties))
    _unify(tool, walk)
    return walk


def _unify(tool: CompositeToolConfig, walk: _Walk) -> None:
    """Reads compared with each other where one is a number (or its step's ``defaultResults``
    gives one there, or the parameter schema types it so): numbers all (Go's comparison of a
    number with a text fails)."""
    for reads in walk.compared:
        numbers = [
            shape.kind == "number" or _number(_default_at(tool, p)) or _number_param(tool, p)
            for shape, p in reads
        ]
        if any(numbers):
            for shape, _ in reads:
                if shape.kind == "string" and shape.literal is None:
                    shape.kind = "number"


def _param_of(path: tuple[str, ...] | None) -> str | None:
    """The parameter a context path reads (``.params.NAME``), or None."""
    return path[1] if path is not None and len(path) == 2 and path[0] == "params" else None


def _number_param(tool: CompositeToolConfig, path: tuple[str, ...] | None) -> bool:
    """Whether ``path`` is a parameter the tool's schema types as a number."""
    name = _param_of(path)
    schema: Any = tool.parameters
    properties = schema.get("properties") if isinstance(schema, dict) else None
    spec = properties.get(name) if name is not None and isinstance(properties, dict) else None
    return isinstance(spec, dict) and spec.get("type") in ("number", "integer")


def _compared(
    tool: CompositeToolConfig, walk: _Walk, distinct: Distinct, params: Mapping[str, Any]
) -> tuple[tuple[Any, Any], ...]:
    """For each comparison of two reads, where the first that is a step's output field is
    compared with another read: its ordinary value paired with each value that puts it at
    the other read's boundary: the other's ordinary value (a parameter's as ``params``, the
    ordinary run's, hold it) and its step's ``defaultResults`` value (equal), and, for
    numbers, as far past that value as the ordinary one is before it (the other side) and
    half a unit past it (a fraction a whole-number rounding misses), for texts, that text
    in the other case and after a space (unequal only to Go)."""
    pairs: list[tuple[Any, Any]] = []
    for reads in walk.compared:
        changed = next((i for i, (_, path) in enumerate(reads) if _step_field(path)), None)
        if changed is None:
            continue
        shape, _ = reads[changed]
        value = distinct.given.get(id(shape))
        for index, (other, path) in enumerate(reads):
            if index == changed or value is None:
                continue
            name = _param_of(path)
            ordinary = distinct.given.get(id(other)) if name is None else params.get(name)
            bounds = [ordinary, _default_at(tool, path)]
            for bound in bounds:
                if bound is None or isinstance(bound, bool) or bound == value:
                    continue
                pairs.append((value, bound))
                if _number(bound) and _number(value):
                    pairs += [(value, 2 * bound - value), (value, bound + 0.5)]
                elif isinstance(bound, str):
                    # Unequal to Go, equal to a script that folds case or strips spaces.
                    pairs += [(value, t) for t in (bound.swapcase(), f" {bound}") if t != bound]
    return tuple(dict.fromkeys(pairs))


def _step_field(path: tuple[str, ...] | None) -> bool:
    return path is not None and len(path) >= 4 and path[0] == "steps" and path[2] == "output"


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _default_at(tool: CompositeToolConfig, path: tuple[str, ...] | None) -> Any:
    """The ``defaultResults`` value of a step's output field (None: none)."""
    if path is None or not _step_field(path):
        return None
    step = next((s for s in tool.steps if s.id == path[1]), None)
    value: Any = None if step is None else step.default_results
    for name in path[3:]:
        value = value.get(name) if isinstance(value, dict) else None
    return value if _number(value) or isinstance(value, str) else None


@dataclass(frozen=True)
class Expected:
    """What an ordinary call of a tool carries, from one walk of its templates: ``params``
    (every one the schema declares, and every one a template reads, shaped as it reads it,
    declared or not); ``answers``, each backend tool's answers by tool (lists of one item
    first, then each other length of :data:`LIST_LENGTHS` that makes a different answer; a
    tool called by several steps answers with every field they read, those inside JSON
    text too, and one whose answer nothing reads names itself, ``answered_by``); ``keyed``,
    each tool's answer to each call of the ordinary run, matched by the call's arguments
    (:func:`keyed_answers`), before the first answer, and ``keyed_others`` likewise before
    each other answer (lists of another length, each step's texts its own, so two steps
    calling one tool still differ there); ``reshaped``, each tool's first
    answer with values of other kinds (:class:`Reshape`, those that differ from it);
    ``contents``, each elicitation's accepted content in step order; ``param_lists``, each
    list parameter's other lengths (:func:`_param_lists`); ``compared``, for each comparison
    of two reads, a value of the ordinary answers and each value that takes it to the other
    read's boundary and past it (:func:`_compared`)."""

    params: dict[str, Any]
    answers: dict[str, list[dict[str, Any]]]
    contents: list[dict[str, Any]]
    reshaped: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    keyed: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    keyed_others: dict[str, list[list[dict[str, Any]]]] = field(default_factory=dict)
    param_lists: dict[str, list[list[Any]]] = field(default_factory=dict)
    compared: tuple[tuple[Any, Any], ...] = ()

    def first_results(self, tool: str, shapes: ToolShapes) -> list[dict[str, Any]]:
        """The results of ``tool`` in the ordinary run: one answer per call, then the first
        answer for any other call."""
        return [*self.keyed.get(tool, ()), shapes.success(tool, self.answers[tool][0])]


def expected(analysis: ToolAnalysis) -> Expected:
    """The :class:`Expected` call of the tool."""
    tool = analysis.tool
    walk = _walked(analysis)
    distinct = Distinct()
    steps = _step_answers(tool, walk, "one", distinct=distinct)
    answers: dict[str, list[dict[str, Any]]] = {
        name: [body] for name, body in _merged_answers(steps).items()
    }
    others: dict[str, list[list[_StepAnswer]]] = {}
    for lists in LIST_LENGTHS[1:]:
        for name, body in _answers(tool, walk, lists).items():
            held = answers.setdefault(name, [])
            if body not in held:
                held.append(body)
                others.setdefault(name, []).append(_alternating(tool, walk, lists, steps))
    reshaped: dict[str, list[dict[str, Any]]] = {}
    for reshape in reshapes():
        for name, body in _answers(tool, walk, "one", reshape).items():
            held = reshaped.setdefault(name, [])
            if body != answers[name][0] and body not in held:
                held.append(body)
    contents = [
        _as_map(
            walk.steps.get(step.id, Shape(kind="map"))
            .fields.get("content", Shape())
            .value(label=f"{step.id}.content", distinct=distinct)
        )
        for step in tool.steps
        if step.kind is StepKind.ELICITATION
    ]
    walked = _as_map(walk.params.value(label="params", distinct=distinct))
    params = {**walked, **sample_params(tool.parameters)}
    call = Expected(
        params,
        answers,
        contents,
        reshaped,
        param_lists=_param_lists(tool, walk),
        compared=_compared(tool, walk, distinct, params),
    )
    keyed, calls = keyed_answers(analysis, call, steps)
    shapes = ToolShapes(content_tools=content_tools(analysis))
    keyed_others = {
        name: [_keyed(calls, _bodies(labelled), shapes).get(name, []) for labelled in variants]
        for name, variants in others.items()
    }
    return replace(call, keyed=keyed, keyed_others=keyed_others)


@dataclass(frozen=True)
class _StepAnswer:
    """What one step's call of a backend tool answers in the ordinary run."""

    step: str
    tool: str
    body: dict[str, Any]


def _step_answers(
    tool: CompositeToolConfig,
    walk: _Walk,
    lists: str,
    reshape: Reshape | None = None,
    distinct: Distinct | None = None,
) -> list[_StepAnswer]:
    """Each calling step's answer, its lists ``lists`` long (:meth:`Shape.value`), its free
    texts labelled by the step (empty where nothing reads the answer: a forEach's inner
    step, a step whose output no template reads)."""
    found: list[_StepAnswer] = []
    for step in tool.steps:
        calls = None if step.kind is None else CALLS[step.kind]
        calling = None if calls is None else calls.caller(step)
        if calls is None or calling is None or not calling.tool:
            continue
        body: dict[str, Any] = {}
        if calls.answers:
            shape = walk.steps.get(step.id, Shape(kind="map"))
            body = _as_map(shape.value(lists, reshape=reshape, label=step.id, distinct=distinct))
        found.append(_StepAnswer(calling.id, calling.tool, body))
    return found


def _merged_answers(steps: Sequence[_StepAnswer]) -> dict[str, dict[str, Any]]:
    """Each backend tool's one answer for every step that calls it: what each reads
    (:func:`_merged`)."""
    backends: dict[str, dict[str, Any]] = {}
    for answer in steps:
        backends[answer.tool] = _merged(backends.get(answer.tool, {}), answer.body)
    # A tool whose answer no template reads still answers as itself, so a script that
    # returns one step's answer for another's differs.
    return {name: body or {"answered_by": name} for name, body in backends.items()}


def _answers(
    tool: CompositeToolConfig, walk: _Walk, lists: str, reshape: Reshape | None = None
) -> dict[str, dict[str, Any]]:
    """Each backend tool's answer, its lists ``lists`` long (:meth:`Shape.value`)."""
    return _merged_answers(_step_answers(tool, walk, lists, reshape))


def _merged(first: Any, second: Any) -> Any:
    """One value holding what both hold: maps key by key, lists item by item, JSON text of
    maps or lists decoded, merged and encoded again; elsewhere ``second``."""
    if isinstance(first, dict) and isinstance(second, dict):
        return {
            **first,
            **{k: _merged(first[k], v) if k in first else v for k, v in second.items()},
        }
    if isinstance(first, list) and isinstance(second, list):
        longer, shorter = (first, second) if len(first) >= len(second) else (second, first)
        return [
            _merged(first[i], second[i]) if i < len(shorter) else longer[i]
            for i in range(len(longer))
        ]
    inner = _decoded(first), _decoded(second)
    if inner[0] is not None and inner[1] is not None:
        return json.dumps(_merged(*inner))
    return second


#: The most rounds of the ordinary run :func:`keyed_answers` takes to settle each call's
#: arguments (each round settles at least one more level of steps).
KEYING_ROUNDS = 8


def keyed_answers(
    analysis: ToolAnalysis, call: Expected, steps: Sequence[_StepAnswer]
) -> tuple[dict[str, list[dict[str, Any]]], Sequence[Any]]:
    """Each backend tool's answer to each call of the ordinary run, matched by the call's
    arguments (``when``): the answer of the step that made it (``steps``), so two steps
    that call one tool are told apart, and each call of a forEach's inner step its own
    ``answered_by``; and the calls of that run. The arguments a call carries may depend on
    earlier answers, so the run is repeated until they settle (at most
    :data:`KEYING_ROUNDS` rounds)."""
    tool = analysis.tool
    shapes = ToolShapes(content_tools=content_tools(analysis))
    bodies = _bodies(steps)
    keyed: dict[str, list[dict[str, Any]]] = {}
    calls: Sequence[Any] = ()
    for _ in range(KEYING_ROUNDS):
        now = replace(call, keyed=keyed)
        backends = {name: {"results": now.first_results(name, shapes)} for name in call.answers}
        calls = run_composite(tool, _scenario(tool, call, backends)).calls
        found = _keyed(calls, bodies, shapes)
        if found == keyed:
            break
        keyed = found
    return keyed, calls


def _alternating(
    tool: CompositeToolConfig, walk: _Walk, lists: str, ordinary: Sequence[_StepAnswer]
) -> list[_StepAnswer]:
    """Each calling step's answer, its free texts labelled by the step, its lists ``lists``
    long, but every second step calling one backend tool answers as in the ``ordinary`` run
    (lists of one item): so steps that call one tool differ in their texts and in their
    lists' lengths."""
    long = _step_answers(tool, walk, lists, distinct=Distinct())
    callers: dict[str, int] = {}
    chosen = []
    for one, other in zip(long, ordinary, strict=True):
        nth = callers[one.tool] = callers.get(one.tool, -1) + 1
        chosen.append(other if nth % 2 else one)
    return chosen


def _bodies(steps: Sequence[_StepAnswer]) -> dict[str, dict[str, Any]]:
    return {answer.step: answer.body for answer in steps}


def _keyed(
    calls: Sequence[Any], bodies: Mapping[str, dict[str, Any]], shapes: ToolShapes
) -> dict[str, list[dict[str, Any]]]:
    """One result per distinct call (tool and arguments) of a tool called several ways, the
    answer of the step that made it (two steps that make one call: what both read), most
    specific ``when`` first (a tool called one way answers with its first answer)."""
    per_call: dict[tuple[str, str], dict[str, Any]] = {}
    arguments: dict[tuple[str, str], Any] = {}
    made: dict[str, int] = {}
    for record in calls:
        args = plain_json(record.args)
        if not isinstance(args, dict):
            continue
        key = (record.tool, json.dumps(args, sort_keys=True))
        body = bodies.get(record.step or "") or {}
        if key not in per_call:
            arguments[key] = args
            made[record.tool] = made.get(record.tool, 0) + 1
            per_call[key] = body or {"answered_by": _nth(record.tool, made[record.tool] - 1)}
        elif body:
            per_call[key] = _merged(per_call[key], body)
    keyed: dict[str, list[dict[str, Any]]] = {}
    # A ``when`` with more keys first: one whose keys another's include never answers it.
    for key in sorted(per_call, key=lambda key: -len(arguments[key])):
        name = key[0]
        if made[name] > 1:
            entry = {"when": arguments[key], **shapes.success(name, per_call[key])}
            keyed.setdefault(name, []).append(entry)
    return keyed


def _nth(text: str, nth: int) -> str:
    return f"{text}-{nth}" if nth else text


def happy_scenario(analysis: ToolAnalysis) -> Scenario:
    """Every backend succeeds with the shapes its readers expect, one answer per call; every
    elicitation accepted."""
    tool = analysis.tool
    call = expected(analysis)
    shapes = ToolShapes(content_tools=content_tools(analysis))
    return _scenario(
        tool,
        call,
        {name: {"results": call.first_results(name, shapes)} for name in call.answers},
    )


def reshaped_scenarios(analysis: ToolAnalysis, reshaped: Sequence[Reshape]) -> list[Scenario]:
    """The ordinary run once per answer of ``reshaped`` (free texts or numbers of another
    kind), the tool walked once."""
    tool = analysis.tool
    call, walk = expected(analysis), _walked(analysis)
    shapes = ToolShapes(content_tools=content_tools(analysis))
    return [
        _scenario(
            tool,
            call,
            {
                name: {"results": [shapes.success(name, body)]}
                for name, body in _answers(tool, walk, "one", reshape).items()
            },
        )
        for reshape in reshaped
    ]


def _scenario(tool: CompositeToolConfig, call: Expected, backends: dict[str, Any]) -> Scenario:
    """The ordinary call with ``backends``; every elicitation accepted."""
    answers = [{"action": "accept", "content": content} for content in call.contents]
    return scenario_from_document(
        {
            "tool": tool.name,
            "params": call.params,
            "backends": backends,
            "elicitations": answers or [{"action": "accept", "content": {}}],
        }
    )


#: The lengths every list parameter also takes (beside the one item of the ordinary call);
#: one that feeds a forEach also takes its ``maxIterations`` and one more.
PARAM_LIST_LENGTHS = (0, 3)


def _param_lists(tool: CompositeToolConfig, walk: _Walk) -> dict[str, list[list[Any]]]:
    """Each list parameter's other lengths: :data:`PARAM_LIST_LENGTHS`, and a forEach's
    ``maxIterations`` and one more where its collection is the parameter, within the
    schema's ``minItems`` and ``maxItems``; and its two items the same (a script that drops
    duplicates shows it), unless the schema asks for ``uniqueItems``."""
    schema: Any = tool.parameters
    properties = schema.get("properties") if isinstance(schema, dict) else None
    lists: dict[str, list[list[Any]]] = {}
    for index, (name, spec) in enumerate(
        (properties if isinstance(properties, dict) else {}).items()
    ):
        if not isinstance(spec, dict) or spec.get("type") != "array":
            continue
        shape = walk.params.fields.get(str(name))
        cap = None if shape is None else shape.cap
        lengths = [*PARAM_LIST_LENGTHS, *(() if cap is None else (cap, cap + 1))]
        lists[str(name)] = [
            param_items(str(name), spec, length, index)
            for length in dict.fromkeys(lengths)
            if _fits(spec, length) and length != 1
        ]
        if _fits(spec, 2) and not spec.get("uniqueItems"):
            lists[str(name)].append(param_items(str(name), spec, 1, index) * 2)
    return lists


def _fits(spec: dict[str, Any], length: int) -> bool:
    """Whether a list of ``length`` items meets the schema's ``minItems`` and ``maxItems``."""
    low, high = spec.get("minItems"), spec.get("maxItems")
    return (not isinstance(low, int) or length >= low) and (
        not isinstance(high, int) or length <= high
    )


def _as_map(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
