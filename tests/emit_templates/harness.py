"""Run compiled templates on the Starlark engines and Go's renderer over the same data.

A *case* is a template plus a template root (the map vMCP executes templates
over). Cases run in batches: one script per batch, its data passed in
``params`` with Go's types tagged (``protocol.encode_value``, plus ``-0``)
and rebuilt by a small decoder, because the host turns whole floats into
ints on the way in.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tests.starlark_runtime.helpers import run, scenario
from transpiler.emit import ir
from transpiler.emit.exact.nodes import TEMPLATE_LAYOUT
from transpiler.emit.exact.template_operands import TEMPLATE_NAME
from transpiler.emit.exact.templates import (
    CompiledTemplate,
    ForEachEnv,
    TemplateEnv,
    compile_template,
    helper_source,
)
from transpiler.golang.values import GoValue
from transpiler.gotemplate import protocol
from transpiler.gotemplate.errors import TemplateExecError, TemplateSyntaxError
from transpiler.gotemplate.parser import parse_template
from transpiler.gotemplate.render import execute

DECODER = """
def decode_context(value):
    root = [value]
    pending = [(root, 0)]
    for _ in range(1 << 30):
        if not pending:
            break
        container, key = pending.pop()
        item = container[key]
        if type(item) == "int" or type(item) == "float":
            container[key] = float(item)
        elif type(item) == "list":
            container[key] = list(item)
            pending.extend([(container[key], i) for i in range(len(item))])
        elif type(item) == "dict":
            if len(item) == 1 and list(item.keys())[0].startswith("$"):
                tag, inner = list(item.items())[0]
                if tag == "$int":
                    container[key] = int(inner)
                elif tag == "$nilmap":
                    container[key] = GO_NIL_MAP
                elif tag == "$nillist":
                    container[key] = GO_NIL_LIST
                elif tag == "$negzero":
                    container[key] = -0.0
                else:
                    container[key] = dict(inner)
                    pending.extend([(container[key], k) for k in inner])
            else:
                container[key] = dict(item)
                pending.extend([(container[key], k) for k in item])
    return root[0]
"""


@dataclass(frozen=True)
class Outcome:
    """What rendering gave: text, or Go's error text."""

    ok: bool
    text: str


def encode(value: GoValue) -> Any:
    """The tagged JSON form of a template root (negative zero tagged too)."""
    root: list[Any] = [protocol.encode_value(value)]
    pending: list[tuple[Any, Any]] = [(root, 0)]
    while pending:
        container, key = pending.pop()
        item = container[key]
        if isinstance(item, float) and item == 0 and math.copysign(1, item) < 0:
            container[key] = {"$negzero": True}
        elif isinstance(item, dict):
            pending.extend((item, k) for k in item)
        elif isinstance(item, list):
            pending.extend((item, i) for i in range(len(item)))
    return root[0]


def _ctx(*keys: str) -> ir.Expr:
    """``ctx[key][...]``."""
    expr: ir.Expr = ir.Name("ctx")
    for key in keys:
        expr = ir.Index(expr, ir.Str(key))
    return expr


def env_for(context: dict[str, Any]) -> TemplateEnv:
    """A TemplateEnv whose expressions read the decoded root ``ctx``."""
    steps = context.get("steps") or {}

    def step(step_id: str, part: str) -> ir.Expr | None:
        if step_id not in steps or (part == "error" and "error" not in steps[step_id]):
            return None
        return _ctx("steps", step_id, part)

    for_each = None
    if isinstance(context.get("forEach"), dict):
        item_var = next(k for k in context["forEach"] if k != "index")
        for_each = ForEachEnv(
            item_var=item_var, item=_ctx("forEach", item_var), index=_ctx("forEach", "index")
        )
    return TemplateEnv(
        params=_ctx("params"),
        step=step,
        steps_map=lambda: _ctx("steps"),
        workflow=_ctx("workflow"),
        for_each=for_each,
    )


def script_for(compiled: Sequence[CompiledTemplate]) -> str:
    """One script running every compiled template over its case's root."""
    helpers: set[str] = {"go_is_error", "go_error_text", "GO_NIL_MAP", "GO_NIL_LIST"}
    definitions: list[str] = []
    cases: list[str] = []
    for i, item in enumerate(compiled):
        helpers |= item.helpers
        for definition in item.definitions:
            printed = ir.print_statements([definition], TEMPLATE_LAYOUT).text
            if printed not in definitions:
                definitions.append(printed)
        case = ir.Def(f"case_{i}", (ir.Parameter("ctx"),), (ir.Return(item.expr),))
        cases.append(ir.print_statements([case]).text)
    table = "CASES = [" + ", ".join(f"case_{i}" for i in range(len(compiled))) + "]\n"
    runner = (
        "def run(params):\n"
        "    results = []\n"
        "    for i in range(len(CASES)):\n"
        '        value = CASES[i](decode_context(params["cases"][i]))\n'
        "        if go_is_error(value):\n"
        '            results.append({"ok": False, "text": go_error_text(value)})\n'
        '        elif type(value) == "string":\n'
        '            results.append({"ok": True, "text": value})\n'
        "        else:\n"
        '            results.append({"ok": False, "text": "NOT A STRING: " + repr(value)})\n'
        '    return {"results": results}\n'
    )
    parts = [helper_source(helpers), *definitions, DECODER, *cases, table, runner]
    return "\n\n".join(parts)


def run_compiled(
    compiled: Sequence[CompiledTemplate], contexts: Sequence[dict[str, Any]], engine: str
) -> list[Outcome]:
    """Run compiled templates over their roots on one engine."""
    script = script_for(compiled)
    world = scenario(params={"cases": [encode(c) for c in contexts]})
    trace = run(script, world, engine)
    if trace.outcome != "success":
        raise AssertionError(f"script failed on {engine}: {trace.error}\n{script}")
    return [Outcome(r["ok"], r["text"]) for r in trace.output["results"]]


def run_templates(
    templates: Sequence[str], contexts: Sequence[dict[str, Any]], engine: str
) -> list[Outcome]:
    """Compile and run templates over their roots on one engine."""
    compiled = [compile_template(t, env_for(c)) for t, c in zip(templates, contexts, strict=True)]
    outcomes = run_compiled(compiled, contexts, engine)
    return [compiled_outcome(c, o) for c, o in zip(compiled, outcomes, strict=True)]


def render(template: str, context: Any) -> Outcome:
    """What the Python renderer (the executable reference for Go) gives.

    A parse error reads ``parse: <Go's text>``.
    """
    try:
        parsed = parse_template(template, TEMPLATE_NAME)
    except TemplateSyntaxError as error:
        return Outcome(False, "parse: " + error.go_message)
    try:
        return Outcome(True, execute(parsed, context))
    except TemplateExecError as error:
        return Outcome(False, error.go_message)


def compiled_outcome(compiled: CompiledTemplate, outcome: Outcome) -> Outcome:
    """An engine's outcome in :func:`render`'s terms (parse errors marked)."""
    if compiled.parse_error:
        return Outcome(False, "parse: " + outcome.text)
    return outcome
