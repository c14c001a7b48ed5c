"""The compiler's contract with the workflow emitter (templates.py)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.emit_templates.harness import Outcome, render, run_templates
from transpiler.emit import ir
from transpiler.emit.exact.nodes import TEMPLATE_LAYOUT
from transpiler.emit.exact.templates import (
    CompiledTemplate,
    ForEachEnv,
    TemplateEnv,
    UnsupportedTemplate,
    compile_template,
    helper_source,
    library,
    lone_value,
)
from transpiler.emit.subset import check_subset
from transpiler.golang.values import NIL_MAP

STEPS = {"fetch": {"output": "fetch_out", "status": "fetch_status", "content": "fetch_content"}}


def _step(step_id: str, part: str) -> ir.Expr | None:
    name = STEPS.get(step_id, {}).get(part)
    return None if name is None else ir.Name(name)


ENV = TemplateEnv(
    params=ir.Name("params"),
    step=_step,
    steps_map=lambda: ir.Name("steps_map"),
    workflow=ir.Name("workflow"),
    for_each=ForEachEnv(item_var="item", item=ir.Name("each"), index=ir.Name("i")),
)


def _code(expr: ir.Expr | None) -> str | None:
    """The expression's source (None for None)."""
    return None if expr is None else ir.flat(expr)


def _definitions(compiled: CompiledTemplate) -> list[str]:
    return [ir.print_statements([d], TEMPLATE_LAYOUT).text for d in compiled.definitions]


def test_a_parameter_prints_with_one_helper_and_cannot_fail() -> None:
    compiled = compile_template("{{.params.x}}", ENV)
    assert _code(compiled.expr) == 'go_text(params.get("x", GO_MISSING))'
    assert not compiled.can_fail and compiled.definitions == ()
    assert compiled.helpers == frozenset({"go_text", "GO_MISSING"})
    assert compiled.reads == frozenset({"params"})


def test_step_output_fields_cannot_fail_but_deeper_fields_can() -> None:
    assert not compile_template("{{.steps.fetch.output.items}}", ENV).can_fail
    deeper = compile_template("{{.steps.fetch.output.items.x}}", ENV)
    assert deeper.can_fail and "go_field" in deeper.helpers
    assert deeper.reads == frozenset({"step:fetch:output"})


def test_text_and_actions_concatenate() -> None:
    compiled = compile_template('id={{.params.id}} "{{.forEach.item}}"', ENV)
    assert (
        _code(compiled.expr)
        == '"id=" + go_text(params.get("id", GO_MISSING)) + " \\"" + go_text(each) + "\\""'
    )


def test_a_missing_step_is_no_value_without_reading_anything() -> None:
    compiled = compile_template("{{.steps.later.output.x}}", ENV)
    assert _code(compiled.expr) == "go_text(GO_MISSING)" and compiled.reads == frozenset()


def test_parse_errors_are_constant_error_values() -> None:
    compiled = compile_template("{{.steps.my-step.output}}", ENV)
    assert compiled.parse_error and compiled.can_fail
    assert _code(compiled.expr) == "go_error(\"template: expand:1: bad character U+002D '-'\")"


def test_statements_become_a_closed_function_named_by_its_content() -> None:
    source = "{{range .steps.fetch.output.items}}{{.name}},{{end}}"
    first, second = compile_template(source, ENV), compile_template(source, ENV)
    assert first == second
    assert len(first.definitions) == 1 and _definitions(first)[0].startswith("def go_template_")
    assert _code(first.expr) == f"{first.definitions[0].name}(fetch_out)"
    assert first.can_fail


def test_emitted_code_stays_in_the_starlark_subset() -> None:
    compiled = compile_template(
        "{{$x := 1}}{{range $i, $v := .params.l}}{{$x = $v}}{{end}}{{$x}}", ENV
    )
    names = [n for n in library().definitions if n.startswith(("go_", "GO_"))]
    result = ir.Return(ir.Dict(((ir.Str("v"), compiled.expr),)))
    run = ir.print_statements([ir.Def("run", (ir.Parameter("params"),), (result,))]).text
    script = "\n\n".join([helper_source(names), *_definitions(compiled), run])
    check_subset(script)


@pytest.mark.parametrize(
    "text",
    [
        'quote " and \\ back',
        "triple \"\"\" and '''",
        "nul\x00 bell\x07 \r\n",
        "é€😀 \u2028",
        "{{`raw`}}",
    ],
)
def test_template_text_cannot_break_out_of_its_literal(text: str) -> None:
    root: dict[str, Any] = {"params": {}, "steps": {}, "vars": {}, "workflow": {}}
    assert run_templates([text], [root], "rust") == [render(text, root)]


def test_lone_value_gives_the_value_of_x() -> None:
    json_of = lone_value("{{json .steps.fetch.output.items}}", ENV)
    assert _code(json_of) == 'go_map_get(fetch_out, "items")'
    assert _code(lone_value("{{- .params.n -}}", ENV)) == 'params.get("n", GO_MISSING)'
    assert _code(lone_value("{{ .forEach.index }}", ENV)) == "i"
    assert _code(lone_value("{{.params.n}} ", ENV)) is None
    assert _code(lone_value("{{.params.n.m}}", ENV)) is None
    assert _code(lone_value("{{$x := 1}}", ENV)) is None


@pytest.mark.parametrize(
    "source",
    [
        "{{slice .params.s 1}}",
        '{{printf "%x" .params.n}}',
        "{{printf .params.f 1}}",
        '{{define "r"}}{{template "r" .}}{{end}}{{template "r" .}}',
        "{{1i}}",
    ],
)
def test_constructs_not_translated_exactly_are_refused(source: str) -> None:
    with pytest.raises(UnsupportedTemplate):
        compile_template(source, ENV)


def test_a_condition_renders_true_or_false_text() -> None:
    root = {
        "params": {"n": 2.0},
        "steps": {"fetch": {"status": "completed", "output": NIL_MAP, "content": {}}},
        "vars": {},
        "workflow": {},
    }
    sources = [
        '{{eq .steps.fetch.status "completed"}}',
        "{{gt .params.n 1.0}}",
        "{{eq .params.n 2}}",
    ]
    got = run_templates(sources, [root] * 3, "rust")
    assert got[:2] == [Outcome(True, "true"), Outcome(True, "true")]
    assert got[2] == render(sources[2], root) and not got[2].ok


FROM_JSON_NIL = [
    '{{fromJson "null"}}',
    '{{(fromJson "null").x}}',
    "{{index (fromJson .steps.search.output.text).papers 0}}",
    '{{$v := fromJson "null"}}{{$v.x}}',
    '{{(fromJson "{\\"a\\": null}").a.b}}',
    '{{(index (fromJson "[null]") 0).x}}',
    '{{quote (fromJson "null")}}',
    '{{printf "%v" (fromJson "null")}}',
    '{{with fromJson "null"}}a{{else}}b{{end}}',
]


def test_from_json_of_null_is_a_nil_interface(engine: str) -> None:
    """fromJson returns ``any``: a JSON null is a nil interface, which a pipeline turns into
    no value (``.x`` of it is ``<no value>``, as Go's evalPipeline digs into interfaces)."""
    context = {"steps": {"search": {"output": {"text": "null"}, "status": "completed"}}}
    contexts = [context] * len(FROM_JSON_NIL)
    got = run_templates(FROM_JSON_NIL, contexts, engine)
    assert got == [render(template, context) for template in FROM_JSON_NIL]
    assert got[1] == Outcome(True, "<no value>")
