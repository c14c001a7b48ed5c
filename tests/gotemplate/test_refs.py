"""``extract_references`` (vMCP's ExtractReferences, S23) and ``reads`` (dataflow)."""

from __future__ import annotations

import pytest

from transpiler.gotemplate import ContextRead, extract_references, parse, reads

# The table of vMCP's TestExtractReferences (pkg/templates/references_test.go).
VMCP_CASES = [
    ("{{ .data.foo }}", {".data.foo"}),
    ("{{ .user.name }} - {{ .user.email }}", {".user.email", ".user.name"}),
    ("{{ if .admin }}Admin{{ end }}", {".admin"}),
    ("{{ range .items }}{{ .id }}{{ end }}", {".id", ".items"}),
    ("{{ .steps.step1.output.data }}", {".steps.step1.output.data"}),
    ('{{ eq .steps.step1.status "completed" }}', {".steps.step1.status"}),
    (
        '{{ if eq .steps.step1.status "ok" }}{{ .steps.step1.data }}'
        "{{ else }}{{ .params.default }}{{ end }}",
        {".params.default", ".steps.step1.data", ".steps.step1.status"},
    ),
    ("static text", set()),
    ("{{ .params.message }}", {".params.message"}),
    ("{{ .steps.step1.a }} {{ .steps.step1.a }}", {".steps.step1.a"}),
    ("{{ with .context }}{{ .value }}{{ end }}", {".context", ".value"}),
    ("{{ if .a }}A{{ else if .b }}B{{ else }}{{ .c }}{{ end }}", {".a", ".b", ".c"}),
    ("{{ $x := .source.value }}{{ $x }}", {".source.value"}),
    (
        "{{ range .items }}{{ .id }}{{ else }}{{ .fallback }}{{ end }}",
        {".fallback", ".id", ".items"},
    ),
    (
        "{{ with .data }}{{ .value }}{{ else }}{{ .default }}{{ end }}",
        {".data", ".default", ".value"},
    ),
    ("{{ (index .mapping .key).nested }}", {".key", ".mapping", ".nested"}),
    ("{{ $a := .first }}{{ $b := .second }}{{ $a }}{{ $b }}", {".first", ".second"}),
]


@pytest.mark.parametrize(("template", "expected"), VMCP_CASES)
def test_s23_extract_references_as_vmcp(template: str, expected: set[str]) -> None:
    found = extract_references(parse(template, "extract"))
    assert len(found) == len(set(found))
    assert {"." + ".".join(chain) for chain in found} == expected


def test_s23_not_through_dollar_variables_or_index() -> None:
    template = (
        '{{$.steps.a.output.x}}{{$s := .steps}}{{$s.b.output.y}}{{index .steps "c" "output"}}'
    )
    assert extract_references(parse(template)) == [("steps",)]


def test_s23_defined_templates_are_scanned() -> None:
    template = '{{define "t"}}{{.steps.a.output.x}}{{end}}{{block "b" .}}{{.y}}{{end}}'
    assert set(extract_references(parse(template))) == {("steps", "a", "output", "x"), ("y",)}


def read(path: str, dynamic: bool = False) -> ContextRead:
    return ContextRead(tuple(path.split(".")) if path else (), dynamic)


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("{{.params.a}} {{.steps.s.output.x}}", {read("params.a"), read("steps.s.output.x")}),
        ('{{index .steps "my-step" "output" "x"}}', {read("steps.my-step.output.x")}),
        ("{{index .steps .params.k}}", {read("params.k"), read("steps", dynamic=True)}),
        ('{{index .steps "s" 0}}', {read("steps.s", dynamic=True)}),
        ("{{$.params.a}}", {read("params.a")}),
        ("{{$s := .steps.fetch}}{{$s.output.items}}", {read("steps.fetch.output.items")}),
        (
            "{{with .steps.a.output}}{{.x}}{{end}}",
            {read("steps.a.output"), read("steps.a.output.x")},
        ),
        (
            "{{range $i, $e := .params.list}}{{$e.name}}{{$i}}{{end}}",
            {read("params.list"), read("params.list", dynamic=True)},
        ),
        ('{{define "t"}}{{.z}}{{end}}{{template "t" .steps.q}}', {read("steps.q.z")}),
        ("{{json .}}", {read("")}),
        ("{{(fromJson .params.text).name}}", {read("params.text")}),
        ("{{if and .params.a .params.b}}{{end}}", {read("params.a"), read("params.b")}),
        ("{{.forEach.item.id}} {{.workflow.id}}", {read("forEach.item.id"), read("workflow.id")}),
        (
            "{{$x := 1}}{{range .params.l}}{{$x.a}}{{$x = .}}{{end}}",
            {read("params.l"), read("params.l", dynamic=True)},
        ),
    ],
)
def test_reads(template: str, expected: set[ContextRead]) -> None:
    assert reads(parse(template)) == expected
