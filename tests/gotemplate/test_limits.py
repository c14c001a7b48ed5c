"""Hostile input: deep nesting, huge output, runaway loops (S72, Q)."""

from __future__ import annotations

import pytest

from transpiler.gotemplate import (
    ContextRead,
    ExecutionLimits,
    TemplateExecError,
    TemplateLimitError,
    TemplateOutputTooLarge,
    TemplateSyntaxError,
    extract_references,
    parse,
    reads,
    render,
)
from transpiler.gotemplate.parser import parse_template

DEPTH = 3000  # far beyond Python's default recursion limit of 1000 frames


@pytest.mark.parametrize("depth", [100, DEPTH])
def test_nested_control_structures_parse_and_render(depth: int) -> None:
    template = "{{with $}}{{if $.a}}{{range $.l}}" * depth + "x" + "{{end}}{{end}}{{end}}" * depth
    assert render(parse_template(template, "expand"), {"a": True, "l": [1]}) == "x"


@pytest.mark.parametrize("depth", [100, DEPTH])
def test_nested_parentheses_parse_and_render(depth: int) -> None:
    template = "{{" + "(not " * depth + ".a" + ")" * depth + "}}"
    assert render(parse_template(template, "expand"), {"a": True}) == str(depth % 2 == 0).lower()


def test_parentheses_beyond_go_limit_are_a_parse_error() -> None:
    template = "{{" + "(" * 10001 + "1" + ")" * 10001 + "}}"
    with pytest.raises(TemplateSyntaxError) as caught:
        parse_template(template, "expand")
    assert caught.value.go_message == "template: expand:1: max expression depth exceeded"


def test_deep_node_text_in_errors() -> None:
    template = "{{" + "(" * DEPTH + ".a.b" + ")" * DEPTH + "}}"
    with pytest.raises(TemplateExecError) as caught:
        render(parse_template(template, "expand"), {"a": 1})
    assert caught.value.go_message.endswith("can't evaluate field b in type interface {}")


def test_recursive_templates_stop_at_go_depth_limit() -> None:
    template = parse('{{define "a"}}{{template "a"}}{{end}}{{template "a"}}')
    with pytest.raises(TemplateExecError) as caught:
        render(template, {})
    assert caught.value.go_message == (
        'template: expand:1:25: executing "a" at <{{template "a"}}>: '
        "exceeded maximum template depth (100000)"
    )


def test_s72_output_size_is_checked_after_execution() -> None:
    big = "y" * (10 * 1024 * 1024)
    assert render(parse("{{.b}}"), {"b": big}) == big
    with pytest.raises(TemplateOutputTooLarge) as caught:
        render(parse("{{.b}}{{.b}}"), {"b": big})
    assert caught.value.go_message == "template output too large: 20971520 bytes (max 10485760)"


def test_s72_execution_errors_win_over_size() -> None:
    with pytest.raises(TemplateExecError) as caught:
        render(parse("{{.b}}{{.b.c}}"), {"b": "y" * (11 * 1024 * 1024)})
    assert not isinstance(caught.value, TemplateOutputTooLarge)


def test_runaway_loops_hit_our_step_guard() -> None:
    limits = ExecutionLimits(max_steps=10_000)
    with pytest.raises(TemplateLimitError):
        render(parse("{{range 9223372036854775807}}{{end}}"), {}, limits=limits)


def test_runaway_growth_hits_our_string_guard() -> None:
    limits = ExecutionLimits(max_string=1000)
    doubling = '{{$x := "0123456789"}}' + "{{$x = print $x $x}}" * 10
    with pytest.raises(TemplateLimitError):
        render(parse(doubling), {}, limits=limits)


def test_reference_scans_handle_deep_templates() -> None:
    template = parse_template("{{with .a}}" * DEPTH + "{{.b}}" + "{{end}}" * DEPTH, "expand")
    assert extract_references(template) == [("a",), ("b",)]
    assert ContextRead(("a",) + ("a",) * (DEPTH - 1) + ("b",)) in reads(template)
