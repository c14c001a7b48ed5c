"""``python -m transpiler template render``."""

from __future__ import annotations

import io
import json

import pytest

from transpiler.cli import main
from transpiler.gotemplate.protocol import RenderRequest, request_line

LINES = [
    request_line(RenderRequest("{{.a}} {{json .b}}", {"a": 3, "b": [1.0, "<"]})),
    request_line(RenderRequest("{{.x.y}}", {"x": None})),
    request_line(RenderRequest("{{.x", {})),
]
EXPECTED = [
    {"ok": True, "out": '3 [1,"\\u003c"]'},
    {
        "ok": False,
        "kind": "exec",
        "error": 'template: expand:1:4: executing "expand" at <.x.y>: '
        "nil pointer evaluating interface {}.y",
    },
    {"ok": False, "kind": "parse", "error": "template: expand:1: unclosed action"},
]


def run_cli(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, list[dict[str, object]]]:
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(LINES) + "\n\nnot json\n"))
    code = main(["template", "render", *args])
    return code, [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_render_with_our_engine(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, responses = run_cli(monkeypatch, capsys, "--format", "json")
    assert responses[:3] == EXPECTED
    assert responses[3]["kind"] == "request"
    assert code == 1


@pytest.mark.go
def test_render_with_go(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], oracle: object
) -> None:
    code, responses = run_cli(monkeypatch, capsys, "--engine", "go")
    assert responses[:3] == EXPECTED
    assert code == 1
