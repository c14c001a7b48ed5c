"""The template rules of the reference (S70-S79), one test per statement.

Expected values are the ones the reference states; the Go oracle tests
(``test_oracle_corpus``) re-check the same ground against Go itself.
"""

from __future__ import annotations

from typing import Any

import pytest

from transpiler.golang.values import NIL_LIST, NIL_MAP, Int64
from transpiler.gotemplate import TemplateExecError, TemplateSyntaxError, parse, render

CONTEXT: dict[str, Any] = {
    "params": {"title": "Test", "n": 1500000.0, "count": 3, "nul": None, "nm": NIL_MAP},
    "steps": {
        "fetch": {
            "status": "completed",
            "output": {"items": [{"name": "a"}, None], "text": '["apple"]', "x": 3.0},
            "content": {},
        },
        "failed": {"status": "failed", "output": NIL_MAP, "content": {}},
    },
    "vars": {},
    "workflow": {"id": "wf", "duration_ms": Int64(0), "step_count": 0, "status": "pending"},
}


def run(template: str, context: Any = None) -> str:
    return render(parse(template), CONTEXT if context is None else context)


def exec_error(template: str, context: Any = None) -> str:
    with pytest.raises(TemplateExecError) as caught:
        run(template, context)
    return caught.value.go_message


def parse_error(template: str, name: str = "expand") -> str:
    with pytest.raises(TemplateSyntaxError) as caught:
        parse(template, name)
    return caught.value.go_message


def test_s70_unknown_root_keys_are_missing() -> None:
    assert run("{{.foo}}") == "<no value>"


def test_s71_missing_key_and_field_through_it_print_no_value() -> None:
    assert run("{{.params.absent}}|{{.steps.nope.output.x}}") == "<no value>|<no value>"


def test_s71_null_prints_no_value_but_field_through_it_fails() -> None:
    assert run("{{.params.nul}}") == "<no value>"
    assert exec_error("{{.params.nul.x}}").endswith("nil pointer evaluating interface {}.x")


def test_s71_nilmap_prints_empty_map_and_fields_through_it_are_missing() -> None:
    assert run("{{.params.nm}}|{{.params.nm.x}}|{{len .params.nm}}|{{json .params.nm}}") == (
        "map[]|<no value>|0|null"
    )
    assert run("{{if .params.nm}}t{{else}}f{{end}}") == "f"


def test_s71_field_of_a_scalar_is_an_error() -> None:
    assert exec_error("{{.params.title.x}}").endswith("can't evaluate field x in type interface {}")


def test_s71_field_names_must_be_identifiers() -> None:
    assert parse_error("{{.steps.my-step.output}}") == (
        "template: expand:1: bad character U+002D '-'"
    )
    assert run('{{index .steps "fetch" "output" "x"}}') == "3"


def test_s71_error_formats_name_the_template_position_and_node() -> None:
    assert parse_error("{{.params.missing") == "template: expand:1: unclosed action"
    assert exec_error("a\n  {{.params.nul.x}}") == (
        'template: expand:2:11: executing "expand" at <.params.nul.x>: '
        "nil pointer evaluating interface {}.x"
    )


def test_s71_trim_markers_comments_variables_and_control() -> None:
    template = (
        "a  {{- /* c */ -}}  b {{$x := .params.title}}{{$x}} "
        "{{range $i, $e := .steps.fetch.output.items}}{{$i}}{{if $e}}{{$e.name}}{{end}}{{end}} "
        '{{with .params.title}}{{.}}{{end}} {{define "t"}}[{{.}}]{{end}}{{template "t" 1}} '
        "{{range .steps.fetch.output.items}}{{if not .}}{{break}}{{end}}x{{end}}"
    )
    assert run(template) == "ab Test 0a1 Test [1] x"


def test_s71_go_1_26_has_range_over_int_and_else_with() -> None:
    assert run("{{range 3}}{{.}}{{end}}") == "012"
    assert run("{{with .params.nul}}a{{else with .params.title}}{{.}}{{end}}") == "Test"


def test_s71_literal_braces_need_a_string_action() -> None:
    assert run('{{"{{"}}x}}') == "{{x}}"


def test_s72_output_over_ten_mebibytes_is_an_error() -> None:
    context = {"big": "x" * (10 * 1024 * 1024)}
    assert len(run("{{.big}}", context)) == 10 * 1024 * 1024
    message = exec_error("{{.big}}!", context)
    assert message == "template output too large: 10485761 bytes (max 10485760)"


def test_s73_workflow_ints_print_as_decimals() -> None:
    assert run("{{.workflow.duration_ms}} {{.workflow.step_count}} {{.workflow.status}}") == (
        "0 0 pending"
    )


def test_s74_json_quote_and_from_json() -> None:
    assert run(
        '{{json .params.title}} {{quote "a\\"b"}} {{(fromJson .steps.fetch.output.text)}}'
    ) == ('"Test" "a\\"b" [apple]')


def test_s74_quote_needs_a_string() -> None:
    assert exec_error("{{quote .params.n}}").endswith(
        "wrong type for value; expected string; got float64"
    )
    assert exec_error("{{quote .params.absent}}").endswith("invalid value; expected string")


def test_s74_from_json_errors_and_float_results() -> None:
    assert exec_error('{{fromJson "not json"}}').endswith(
        "error calling fromJson: failed to unmarshal JSON: "
        "invalid character 'o' in literal null (expecting 'u')"
    )
    assert run('{{eq (fromJson "3") 3.0}}') == "true"


def test_s74_json_encoding_errors() -> None:
    assert exec_error("{{json .x}}", {"x": float("nan")}).endswith(
        "error calling json: failed to encode JSON: json: unsupported value: NaN"
    )


def test_s74_and_or_short_circuit_and_return_operands() -> None:
    assert run('{{and true "x"}}|{{or 0 "" "y"}}|{{and 0 .params.nul.x}}|{{not ""}}') == (
        "x|y|0|true"
    )


def test_s74_len_index_and_printf() -> None:
    assert exec_error("{{len .params.absent}}").endswith(
        "error calling len: reflect: call of reflect.Value.Type on zero Value"
    )
    assert run('{{index .params "absent"}}') == "<no value>"
    assert exec_error("{{index .params.nul 1}}").endswith("index of untyped nil")
    assert exec_error("{{index .steps.fetch.output.items 5}}").endswith("index out of range: 5")
    assert run('{{printf "%d" .steps.fetch.output.x}}') == "%!d(float64=3)"


def test_s74_truthiness() -> None:
    falsy = {"f": False, "z": 0, "nz": -0.0, "s": "", "n": None, "m": {}, "l": [], "nm": NIL_MAP}
    context = {**falsy, "nl": NIL_LIST, "t": "x"}
    template = "".join(f"{{{{if .{key}}}}}1{{{{else}}}}0{{{{end}}}}" for key in [*falsy, "nl", "t"])
    assert run(template + "{{if .missing}}1{{else}}0{{end}}", context) == "0000000001" + "0"


def test_s75_eq_kinds_and_nil() -> None:
    assert exec_error("{{eq .params.n 3}}").endswith(
        "error calling eq: incompatible types for comparison: float64 and int"
    )
    assert run("{{eq .params.n 1500000.0}} {{eq .params.count 3}} {{eq .params.absent 1}}") == (
        "true true false"
    )
    assert run("{{eq .params.nul nil}} {{eq .params.absent nil}} {{eq 1 2 1}}") == "true true true"
    assert exec_error("{{eq .params.nm .steps.fetch.output.items}}").endswith(
        "non-comparable types map[]: map[string]interface {}, []interface {}: [map[name:a] <nil>]"
    )
    assert exec_error("{{eq .v .v}}", {"v": {"a": 1}}).endswith(
        "non-comparable type map[a:%!s(int=1)]: map[string]interface {}"
    )


def test_s75_ordering_comparisons() -> None:
    assert exec_error("{{lt .params.absent 1}}").endswith("invalid type for comparison")
    assert exec_error("{{lt true false}}").endswith("invalid type for comparison")
    assert exec_error("{{lt 1 1.5}}").endswith("incompatible types for comparison: int and float64")
    assert run('{{lt "B" "a"}} {{ge 2.5 2.5}} {{gt 3 2}} {{le "é" "z"}}') == "true true true false"


def test_s75_number_literals_pick_int_or_float_by_spelling() -> None:
    assert run("{{1e3}} {{0x10}} {{'a'}} {{1.0}} {{0x1p-2}} {{-0.0}}") == "1000 16 97 1 0.25 -0"


def test_s76_printing_values() -> None:
    value = {"b": [1.0, None, "x"], "a": NIL_LIST, "c": {"k": True}}
    assert run("{{.v}}", {"v": value}) == "map[a:[] b:[1 <nil> x] c:map[k:true]]"
    assert run("{{range .l}}{{.}},{{end}}", {"l": [None, 2]}) == "<no value>,2,"


@pytest.mark.parametrize(
    ("value", "printed"),
    [
        (1e6, "1e+06"),
        (1234567.0, "1.234567e+06"),
        (1e-5, "1e-05"),
        (1.23e-7, "1.23e-07"),
        (1e100, "1e+100"),
        (123456.0, "123456"),
        (100000.5, "100000.5"),
        (0.0001, "0.0001"),
        (100.0, "100"),
        (-0.0, "-0"),
        (float("nan"), "NaN"),
        (float("inf"), "+Inf"),
        (float("-inf"), "-Inf"),
    ],
)
def test_s77_float_formatting(value: float, printed: str) -> None:
    assert run("{{.f}}", {"f": value}) == printed


def test_s78_json_encoding() -> None:
    value = {"b": 1e21, "a": [1e-7, -0.0, 5, None, NIL_MAP], "s": "<&>\u2028\b\f\x01\xe9"}
    assert run("{{json .v}}", {"v": value}) == (
        '{"a":[1e-7,-0,5,null,null],"b":1e+21,"s":"\\u003c\\u0026\\u003e\\u2028\\b\\f\\u0001\xe9"}'
    )


def test_s79_quote_escapes() -> None:
    assert run("{{quote .s}}", {"s": 'a"\\\a\n\x7f\u00a0\u00ad\u200b\u2028\U0001f600é'}) == (
        '"a\\"\\\\\\a\\n\\x7f\\u00a0\\u00ad\\u200b\\u2028😀é"'
    )


def test_unknown_functions_fail_to_parse() -> None:
    assert parse_error('{{system "whoami"}}', "validation") == (
        'template: validation:1: function "system" not defined'
    )
    assert parse_error("{{$x}}", "validation") == 'template: validation:1: undefined variable "$x"'
    assert exec_error("{{$x = 1}}").endswith("undefined variable: $x")
