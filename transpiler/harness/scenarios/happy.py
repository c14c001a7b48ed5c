"""The ordinary successful run of a tool: every backend answers with what its templates read.

A quirk of vMCP's engine that fires on such a run is a latent bug in the
workflow as vMCP runs it today (a *finding*). To build the run, each template
is walked to learn what shape it expects of each value it reads: a field
compared with a literal holds a value of the literal's kind, a field printed
into an ``integer`` output property holds a number, a field under ``json``
that feeds a forEach collection holds a list whose items carry the fields the
inner step reads, a field under ``fromJson`` holds JSON text of what is read
from it, and so on. What nothing constrains is a short string (a *free text*).
The same walk gives each tool's answer with values of other kinds than its
readers expect (:class:`Reshape`), for the path scenarios.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from transpiler.config.model import CompositeToolConfig, OutputProperty, StepKind
from transpiler.golang.fmt import format_value
from transpiler.gotemplate import TemplateSyntaxError, ast, parse
from transpiler.gotemplate.functions import FUNCTIONS, Codec, Flow
from transpiler.harness.scenarios.analysis import ToolAnalysis
from transpiler.harness.scenarios.paths import sample_params
from transpiler.harness.scenarios.shapes import CALLS, ToolShapes, content_tools
from transpiler.sim.scenario import Scenario, scenario_from_document

#: What a simulated backend answers for a text no template constrains (a *free text*).
SIMULATED_TEXT = "ok"


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

    def value(self, lists: str = "one", nth: int = 0, reshape: Reshape | None = None) -> Any:
        """A JSON value of this shape; its lists hold one item, or by ``lists``: ``none``,
        ``three``, or (``cap``, ``over``) a forEach's maxIterations and one more. Items after
        the first differ from it (``nth``: a text gets ``-n``, a number ``+n``). With
        ``reshape``, free texts or numbers are values of another kind (:class:`Reshape`)."""
        if self.kind == "map":
            return {name: sub.value(lists, nth, reshape) for name, sub in self.fields.items()}
        if self.kind == "list":
            item = self.item or Shape()
            count = self._length(lists)
            return [item.value(lists, nth + index, reshape) for index in range(count)]
        if self.kind == "json":
            return json.dumps((self.encoded or Shape()).value(lists, nth, reshape))
        if self.kind == "number":
            base = float(self.literal) if isinstance(self.literal, int | float) else 7.0
            if reshape is not None and reshape.numbers_as_text:
                return format_value(base + nth)
            return base + nth
        if self.kind == "bool":
            return True if self.literal is None else bool(self.literal)
        if reshape is not None and self.literal is None:
            if reshape.free_text is not None:
                return reshape.free_text
            if reshape.rotation is not None:
                return reshape.other_kind(self, nth)
        text = self.literal if isinstance(self.literal, str) else SIMULATED_TEXT
        return f"{text}-{nth}" if nth else text

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
        return f"a number, a boolean or a map where it answers {SIMULATED_TEXT!r}"

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
            if items is not None:
                items.cap = step.iteration_limit
            item_shape = Shape() if items is None else items.items()
            items_of[step.id] = (item_shape, step.item_var or "item")
    for site in analysis.sites:
        if site.site == "collection":
            continue
        if site.site.startswith("step.arguments") and site.reader in items_of:
            walk.item, walk.item_var = items_of[site.reader]
        walk.template(site.text)
        walk.item = None
    if tool.output is not None:
        _output(walk, dict(tool.output.properties))
    return walk


@dataclass(frozen=True)
class Expected:
    """What an ordinary call of a tool carries, from one walk of its templates: ``params``
    (every one the schema declares, and every one a template reads, shaped as it reads it,
    declared or not); ``answers``, each backend tool's answers by tool (lists of one item
    first, then each other length of :data:`LIST_LENGTHS` that makes a different answer; a
    tool called by several steps answers with every field they read, and one whose answer
    nothing reads names itself, ``answered_by``); ``reshaped``, each tool's first answer with
    values of other kinds (:class:`Reshape`, those that differ from it); ``contents``, each
    elicitation's accepted content in step order."""

    params: dict[str, Any]
    answers: dict[str, list[dict[str, Any]]]
    contents: list[dict[str, Any]]
    reshaped: dict[str, list[dict[str, Any]]] = field(default_factory=dict)


def expected(analysis: ToolAnalysis) -> Expected:
    """The :class:`Expected` call of the tool."""
    tool = analysis.tool
    walk = _walked(analysis)
    answers: dict[str, list[dict[str, Any]]] = {}
    for lists in LIST_LENGTHS:
        for name, body in _answers(tool, walk, lists).items():
            held = answers.setdefault(name, [])
            if body not in held:
                held.append(body)
    reshaped: dict[str, list[dict[str, Any]]] = {}
    for reshape in reshapes():
        for name, body in _answers(tool, walk, "one", reshape).items():
            held = reshaped.setdefault(name, [])
            if body != answers[name][0] and body not in held:
                held.append(body)
    contents = [
        _as_map(walk.steps.get(step.id, Shape(kind="map")).fields.get("content", Shape()).value())
        for step in tool.steps
        if step.kind is StepKind.ELICITATION
    ]
    params = {**_as_map(walk.params.value()), **_params(tool.parameters)}
    return Expected(params, answers, contents, reshaped)


def _answers(
    tool: CompositeToolConfig, walk: _Walk, lists: str, reshape: Reshape | None = None
) -> dict[str, dict[str, Any]]:
    """Each backend tool's answer, its lists ``lists`` long (:meth:`Shape.value`)."""
    backends: dict[str, dict[str, Any]] = {}
    for step in tool.steps:
        calls = None if step.kind is None else CALLS[step.kind]
        calling = None if calls is None else calls.caller(step)
        if calls is None or calling is None or not calling.tool:
            continue
        body: dict[str, Any] = {}
        if calls.answers:
            shape = walk.steps.get(step.id, Shape(kind="map"))
            body = _as_map(shape.value(lists, reshape=reshape))
        backends.setdefault(calling.tool, {}).update(body)
    # A tool whose answer no template reads still answers as itself, so a script that
    # returns one step's answer for another's differs.
    return {name: body or {"answered_by": name} for name, body in backends.items()}


def happy_scenario(analysis: ToolAnalysis) -> Scenario:
    """Every backend succeeds with the shapes its readers expect; every elicitation accepted."""
    call = expected(analysis)
    return _happy(analysis, call, {name: found[0] for name, found in call.answers.items()})


def reshaped_scenarios(analysis: ToolAnalysis, reshaped: Sequence[Reshape]) -> list[Scenario]:
    """The ordinary run once per answer of ``reshaped`` (free texts or numbers of another
    kind), the tool walked once."""
    tool = analysis.tool
    call, walk = expected(analysis), _walked(analysis)
    return [_happy(analysis, call, _answers(tool, walk, "one", reshape)) for reshape in reshaped]


def _happy(analysis: ToolAnalysis, call: Expected, bodies: dict[str, Any]) -> Scenario:
    """Every backend succeeds with its body of ``bodies``; every elicitation accepted."""
    shapes = ToolShapes(content_tools=content_tools(analysis))
    answers = [{"action": "accept", "content": content} for content in call.contents]
    return scenario_from_document(
        {
            "tool": analysis.tool.name,
            "params": call.params,
            "backends": {
                name: {"results": [shapes.success(name, body)]} for name, body in bodies.items()
            },
            "elicitations": answers or [{"action": "accept", "content": {}}],
        }
    )


def _params(schema: Any) -> dict[str, Any]:
    """Every parameter set; arrays hold one item of their item schema."""
    plain = sample_params(schema)
    properties = schema.get("properties") if isinstance(schema, dict) else None
    for name, spec in (properties or {}).items():
        if isinstance(spec, dict) and spec.get("type") == "array":
            item = sample_params({"properties": {"i": spec.get("items")}})
            plain[str(name)] = [item.get("i", SIMULATED_TEXT)]
    return plain


def _as_map(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
