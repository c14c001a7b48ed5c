"""Hypothesis strategies for template roots and templates, weighted toward
what composite tools write: field paths into ``.params``, ``.steps.<id>.*``,
``.workflow`` and ``.forEach``, ``json``, ``index``, comparisons, ``and``/``or``,
``if``/``else``, ``printf``, ``range``, ``with``, variables and pipelines.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from transpiler.golang.values import NIL_MAP

KEYS = ("a", "b", "n", "s", "items", "obj", "text", "id")
STEP_IDS = ("fetch", "check", "my-step")
FLOATS = (
    0.0,
    -0.0,
    1.0,
    3.0,
    0.5,
    -2.25,
    1e6,
    1234567.8,
    1e21,
    1e20,
    1e-7,
    1e-5,
    123456.0,
    0.1,
    2.675,
    1e100,
    5e-324,
    100.0,
)
STRINGS = (
    "",
    "x",
    "hello world",
    "<a&b>",
    "é€😀",
    "\u2028",
    "line\nbreak\t\x01",
    "true",
    "completed",
    '{"k": [1, 2.5, "v"], "n": null}',
    "[1, 2]",
    "3",
    'a"q\\',
    "%d %s",
)
TEMPLATE_STRINGS = ("x", "completed", "a", "b", "<", "%v", "", "é", '{"k": 1}')


@st.composite
def json_values(draw: st.DrawFn, depth: int = 2) -> Any:
    """A JSON value as vMCP holds it (numbers are floats), sometimes a YAML int."""
    choice = draw(st.integers(0, 9 if depth > 0 else 5))
    if choice == 0:
        return None
    if choice == 1:
        return draw(st.booleans())
    if choice == 2:
        return draw(st.sampled_from(FLOATS) | st.floats(allow_nan=False, allow_infinity=False))
    if choice == 3:
        return draw(st.integers(-5, 5))
    if choice in (4, 5):
        return draw(st.sampled_from(STRINGS) | st.text(max_size=6))
    if choice in (6, 7):
        return draw(st.lists(json_values(depth - 1), max_size=4))
    if choice == 8:
        return NIL_MAP
    return draw(st.dictionaries(st.sampled_from(KEYS), json_values(depth - 1), max_size=4))


@st.composite
def roots(draw: st.DrawFn) -> dict[str, Any]:
    """A template root: params, steps (some missing), vars, workflow, maybe forEach."""
    params = draw(st.dictionaries(st.sampled_from(KEYS), json_values(), max_size=6))
    steps: dict[str, Any] = {}
    for step_id in STEP_IDS:
        if draw(st.integers(0, 3)) == 0:
            continue
        output = draw(
            st.one_of(
                st.just(NIL_MAP), st.dictionaries(st.sampled_from(KEYS), json_values(), max_size=4)
            )
        )
        step: dict[str, Any] = {
            "status": draw(st.sampled_from(("completed", "failed", "skipped"))),
            "output": output,
            "content": draw(st.sampled_from(({}, {"text": "raw text"}))),
        }
        if draw(st.booleans()):
            step["error"] = "tool call failed: boom"
        steps[step_id] = step
    root: dict[str, Any] = {
        "params": params,
        "steps": steps,
        "vars": {},
        "workflow": {
            "id": "wf-1",
            "status": "pending",
            "step_count": 0,
            "duration_ms": 0,
            "start_time": "2026-01-01T00:00:00Z",
        },
    }
    if draw(st.integers(0, 4)) == 0:
        root["forEach"] = {"item": draw(json_values()), "index": draw(st.integers(0, 3))}
    return root


class _Scope:
    """Variables visible while generating (so most templates parse)."""

    def __init__(self) -> None:
        self.names: list[list[str]] = [[]]
        self.counter = 0

    def visible(self) -> list[str]:
        return [name for level in self.names for name in level]

    def declare(self) -> str:
        self.counter += 1
        name = f"$v{self.counter}"
        self.names[-1].append(name)
        return name


def _path(draw: st.DrawFn, scope: _Scope) -> str:
    kind = draw(st.integers(0, 11))
    key = draw(st.sampled_from(KEYS))
    if kind <= 3:
        tail = draw(st.sampled_from(("", "", "." + draw(st.sampled_from(KEYS)))))
        return f".params.{key}{tail}"
    if kind <= 6:
        step = draw(st.sampled_from(("fetch", "check", "nope")))
        part = draw(st.sampled_from(("output", "output", "status", "error", "content", "x")))
        tail = draw(st.sampled_from(("", "." + key, "." + key + ".a")))
        return f".steps.{step}.{part}{tail}"
    if kind == 7:
        return draw(
            st.sampled_from((".workflow.id", ".workflow.step_count", ".workflow", ".vars.x"))
        )
    if kind == 8:
        return draw(st.sampled_from((".forEach.item", ".forEach.index", ".forEach.item." + key)))
    if kind == 9:
        variables = scope.visible()
        if variables:
            name = draw(st.sampled_from(variables))
            return draw(st.sampled_from((name, f"{name}.{key}")))
        return "$"
    return draw(st.sampled_from((".", ".a", "$.params", ".steps", "$.steps.fetch")))


def _literal(draw: st.DrawFn) -> str:
    kind = draw(st.integers(0, 4))
    if kind == 0:
        return str(draw(st.integers(-3, 4)))
    if kind == 1:
        return draw(st.sampled_from(("3.0", "0.5", "1e6", "-0.0", "1e21", "2.5")))
    if kind == 2:
        text = draw(st.sampled_from(TEMPLATE_STRINGS))
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if kind == 3:
        return draw(st.sampled_from(("true", "false")))
    return "nil"


def _operand(draw: st.DrawFn, scope: _Scope, depth: int) -> str:
    kind = draw(st.integers(0, 9 if depth > 0 else 6))
    if kind <= 4:
        return _path(draw, scope)
    if kind <= 6:
        return _literal(draw)
    inner = _command(draw, scope, depth - 1)
    if kind == 9:
        return f"({inner}).{draw(st.sampled_from(KEYS))}"
    return f"({inner})"


FORMATS = (
    '"%v"',
    '"%s"',
    '"%d"',
    '"%q"',
    '"%.2f"',
    '"%5.1f|%-4v|"',
    '"%t"',
    '"%g %e"',
    '"a %v b %v"',
    '"%05d"',
    '"%%"',
)


def _command(draw: st.DrawFn, scope: _Scope, depth: int) -> str:
    kind = draw(st.integers(0, 15))

    def operand() -> str:
        return _operand(draw, scope, depth)

    if kind <= 3:
        return operand()
    if kind == 4:
        return f"json {operand()}"
    if kind == 5:
        keys = " ".join(
            draw(
                st.sampled_from(
                    (
                        _literal(draw),
                        '"' + draw(st.sampled_from(KEYS)) + '"',
                        '"fetch"',
                        '"output"',
                        "0",
                        "1",
                    )
                )
            )
            for _ in range(draw(st.integers(1, 2)))
        )
        return f"index {operand()} {keys}"
    if kind in (6, 7):
        name = draw(st.sampled_from(("eq", "eq", "ne", "lt", "le", "gt", "ge")))
        extra = f" {operand()}" if name == "eq" and draw(st.booleans()) else ""
        return f"{name} {operand()} {operand()}{extra}"
    if kind == 8:
        name = draw(st.sampled_from(("and", "or")))
        return f"{name} {' '.join(operand() for _ in range(draw(st.integers(1, 3))))}"
    if kind == 9:
        return f"not {operand()}"
    if kind == 10:
        args = " ".join(operand() for _ in range(draw(st.integers(0, 2))))
        return f"printf {draw(st.sampled_from(FORMATS))} {args}".rstrip()
    if kind == 11:
        return f"len {operand()}"
    if kind == 12:
        return f"quote {operand()}"
    if kind == 13:
        return f"fromJson {operand()}"
    if kind == 14:
        name = draw(st.sampled_from(("print", "println", "html", "js", "urlquery")))
        return f"{name} {' '.join(operand() for _ in range(draw(st.integers(1, 2))))}"
    stage = draw(
        st.sampled_from(
            (
                "json",
                "quote",
                "len",
                'printf "%v"',
                "not",
                "print",
                "html",
                "fromJson",
                "and 1",
                "or .params.a",
            )
        )
    )
    return f"{operand()} | {stage}"


def _action(draw: st.DrawFn, scope: _Scope, depth: int) -> str:
    return _command(draw, scope, depth)


def _body(draw: st.DrawFn, scope: _Scope, depth: int, in_range: bool) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 3))):
        parts.append(_node(draw, scope, depth, in_range))
    return "".join(parts)


def _block(draw: st.DrawFn, scope: _Scope, depth: int, in_range: bool) -> str:
    scope.names.append([])
    body = _body(draw, scope, depth, in_range)
    scope.names.pop()
    return body


def _node(draw: st.DrawFn, scope: _Scope, depth: int, in_range: bool) -> str:
    kind = draw(st.integers(0, 14 if depth > 0 else 4))
    if kind <= 1:
        return draw(st.sampled_from(("text ", "-", " | ", "\n", "é", "}")))
    if kind <= 4:
        trim_left = draw(st.sampled_from(("{{", "{{", "{{- ")))
        trim_right = draw(st.sampled_from(("}}", "}}", " -}}")))
        return f"{trim_left}{_action(draw, scope, 1)}{trim_right}"
    if kind <= 6:
        condition = _command(draw, scope, 1)
        then = _block(draw, scope, depth - 1, in_range)
        rest = draw(st.integers(0, 2))
        if rest == 0:
            return f"{{{{if {condition}}}}}{then}{{{{end}}}}"
        other = _block(draw, scope, depth - 1, in_range)
        if rest == 1:
            return f"{{{{if {condition}}}}}{then}{{{{else}}}}{other}{{{{end}}}}"
        second = _command(draw, scope, 1)
        return f"{{{{if {condition}}}}}{then}{{{{else if {second}}}}}{other}{{{{end}}}}"
    if kind <= 8:
        collection = draw(
            st.sampled_from(
                (
                    _path(draw, scope),
                    _path(draw, scope),
                    "3",
                    "0",
                    ".params.items",
                    "(fromJson .params.s)",
                )
            )
        )
        scope.names.append([])
        head = ""
        variables = draw(st.integers(0, 2))
        if variables == 1:
            head = f"{scope.declare()} := "
        elif variables == 2:
            first, second = scope.declare(), scope.declare()
            head = f"{first}, {second} := "
        body = _body(draw, scope, depth - 1, True)
        scope.names.pop()
        otherwise = (
            f"{{{{else}}}}{_block(draw, scope, depth - 1, in_range)}" if draw(st.booleans()) else ""
        )
        return f"{{{{range {head}{collection}}}}}{body}{otherwise}{{{{end}}}}"
    if kind == 9:
        value = _command(draw, scope, 1)
        body = _block(draw, scope, depth - 1, in_range)
        otherwise = (
            f"{{{{else}}}}{_block(draw, scope, depth - 1, in_range)}" if draw(st.booleans()) else ""
        )
        return f"{{{{with {value}}}}}{body}{otherwise}{{{{end}}}}"
    if kind == 10:
        return f"{{{{{scope.declare()} := {_command(draw, scope, 1)}}}}}"
    if kind == 11 and scope.visible():
        name = draw(st.sampled_from(scope.visible()))
        return f"{{{{{name} = {_command(draw, scope, 1)}}}}}"
    if kind == 12 and in_range:
        return draw(st.sampled_from(("{{break}}", "{{continue}}", "{{if .}}{{break}}{{end}}")))
    if kind == 13:
        return '{{define "t"}}[{{.}}]{{end}}{{template "t" ' + _operand(draw, scope, 0) + "}}"
    return "{{/* comment */}}"


@st.composite
def templates(draw: st.DrawFn) -> str:
    """A template text (sometimes one that fails to parse)."""
    scope = _Scope()
    text = _body(draw, scope, 2, False)
    if draw(st.integers(0, 30)) == 0:
        text += draw(
            st.sampled_from(("{{", "{{.x", "{{end}}", "{{$undefined}}", "{{.a-b}}", "{{nofunc 1}}"))
        )
    return text


_TYPICAL = (
    "{{.params.KEY}}",
    "{{json .params.KEY}}",
    "{{.steps.fetch.output.KEY}}",
    "{{json .steps.fetch.output}}",
    '{{if eq .steps.STEP.status "completed"}}done{{else}}{{.steps.STEP.status}}{{end}}',
    '{{index .steps "my-step" "output" "KEY"}}',
    "{{.forEach.item}}#{{.forEach.index}}",
    '{{printf "%v-%s" .params.KEY .steps.fetch.status}}',
    "{{range $i, $x := .params.KEY}}{{$i}}={{$x}};{{else}}empty{{end}}",
    "{{with .params.KEY}}[{{.}}]{{end}}",
    "{{if and .params.KEY (not .params.KEY2)}}yes{{else}}no{{end}}",
    "{{if .params.KEY}}{{.params.KEY | json}}{{end}}",
    "{{- .params.KEY -}}",
    "{{.steps.STEP.error}}",
    "{{.workflow.id}}/{{.workflow.step_count}}",
    "{{range .steps.fetch.output.KEY}}{{json .}},{{end}}",
    '{{or .params.KEY "default"}}',
    "{{len .params.KEY}}",
    "{{quote .steps.fetch.status}}",
    "{{$v := .params.KEY}}{{if $v}}{{$v}}{{end}}",
)


@st.composite
def typical_templates(draw: st.DrawFn) -> str:
    """Templates shaped like the ones composite tools write."""
    parts = []
    for _ in range(draw(st.integers(1, 3))):
        pattern = draw(st.sampled_from(_TYPICAL))
        pattern = pattern.replace("KEY2", draw(st.sampled_from(KEYS)))
        pattern = pattern.replace("KEY", draw(st.sampled_from(KEYS)))
        parts.append(pattern.replace("STEP", draw(st.sampled_from(("fetch", "check")))))
        parts.append(draw(st.sampled_from(("", " ", "\n", ", "))))
    return "".join(parts)
