"""Long and deep templates (issue 13, item 3): converted, or refused alone, never a crash.

One argument of 200 ``{{.params.x}}`` actions made ``emit``, ``check`` and
``migrate`` exit 2 with "input nested too deeply" (a ``+`` chain is a tree as
deep as it is long) and lost the other tools' results. Long flat templates
are ordinary; past the emitter's limits a tool is not converted, with the
file, line, tool and step, and the other tools are unaffected.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

import transpiler
from transpiler.cli import main
from transpiler.diagnostics import TranspilerError
from transpiler.emit.limits import MAX_TEMPLATE_ACTIONS, MAX_TEMPLATE_NESTING

CHECK = ["--examples", "2", "--paths", "2", "--jobs", "1"]


def nested(levels: int, leaf: str) -> Any:
    value: Any = leaf
    for _ in range(levels):
        value = {"k": value}
    return value


def tool(name: str, value: Any, line_step: str = "a") -> dict[str, Any]:
    return {
        "name": name,
        "description": "d",
        "parameters": {"type": "object", "properties": {"x": {"type": "string"}}},
        "steps": [{"id": line_step, "tool": "svc.echo", "arguments": {"v": value}}],
    }


def write(path: Path, *tools: dict[str, Any]) -> Path:
    path.write_text(yaml.safe_dump({"compositeTools": list(tools)}, width=10**6))
    return path


@pytest.mark.parametrize("text", ["{{.params.x}}" * 200, "x{{.params.x}}" * 200])
def test_two_hundred_actions_are_converted_and_certified(
    text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write(tmp_path / "long.yaml", tool("long", text))
    assert main(["validate", str(config)]) == 0
    assert main(["emit", str(config)]) == 0
    assert capsys.readouterr().out.count('params.get("x", "")') == 200
    assert main(["emit", "--style", "exact", str(config)]) == 0
    assert '"".join([' in capsys.readouterr().out
    assert main(["check", str(config), "--engine", "both", *CHECK]) == 0
    assert main(["migrate", str(config), "--examples", "2", "--engine", "both"]) == 0
    result = transpiler.loads(config.read_text(), name=str(config)).transpile("long")
    assert result.converted


def test_the_largest_template_is_emitted_in_bounded_time(tmp_path: Path) -> None:
    text = "x{{.params.x}}" * MAX_TEMPLATE_ACTIONS
    config = write(tmp_path / "large.yaml", tool("large", text))
    started = time.monotonic()
    assert transpiler.loads(config.read_text(), name="large.yaml").transpile("large").converted
    assert time.monotonic() - started < 30


PAST_LIMITS: dict[str, tuple[Any, str]] = {
    "actions": ("x{{.params.x}}" * (MAX_TEMPLATE_ACTIONS + 1), "actions; the emitter's limit"),
    "nesting": (
        "{{if .params.x}}" * (MAX_TEMPLATE_NESTING + 1)
        + "y"
        + "{{end}}" * (MAX_TEMPLATE_NESTING + 1),
        "levels deep; the emitter's limit",
    ),
    "parentheses": (
        "{{"
        + 'printf "%s" (' * (MAX_TEMPLATE_NESTING + 1)
        + ".params.x"
        + ")" * (MAX_TEMPLATE_NESTING + 1)
        + "}}",
        "levels deep; the emitter's limit",
    ),
    "arguments and template together": (
        nested(90, "{{" + 'printf "%s" (' * 40 + ".params.x" + ")" * 40 + "}}"),
        "levels deep in one statement; the emitter's limit is 128",
    ),
}
# The readable style reads `printf "%s" (x)` as x, so only the exact style nests the last case.
STYLE = {"arguments and template together": "exact"}
HEADER = {"readable": "# ok: ", "exact": "# Scripted tool ok"}


@pytest.mark.parametrize("case", PAST_LIMITS)
def test_a_tool_past_a_limit_is_refused_alone(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    value, message = PAST_LIMITS[case]
    style = STYLE.get(case, "readable")
    config = write(
        tmp_path / "mixed.yaml", tool("ok", "{{.params.x}}"), tool("huge", value, "the_step")
    )
    assert main(["emit", "--style", style, str(config)]) == 1
    out = capsys.readouterr()
    assert out.out.startswith(HEADER[style])
    file = re.escape(str(config))
    assert re.search(rf"{file}:\d+: not converted: step the_step \({file}:\d+\): ", out.err)
    assert message in out.err
    assert main(["check", "--style", style, str(config), *CHECK, "--format", "json"]) == 1
    reports = {r["tool"]: r for r in json.loads(capsys.readouterr().out)["tools"]}
    assert reports["ok"]["verdict"] in ("equivalent", "equivalent-except")
    assert reports["huge"]["verdict"] == "not-converted"
    assert "step the_step" in reports["huge"]["reason"] and message in reports["huge"]["reason"]
    migrate = ["migrate", "--style", style, str(config), "--examples", "2", "--force", "--no-diff"]
    assert main(migrate) == 1
    out = capsys.readouterr()
    assert "ok: converted" in out.out
    assert re.search(
        r"huge: not converted: the emitter cannot express it( exactly)?: step the_step", out.out
    )


def test_a_check_that_cannot_finish_is_that_tools_verdict_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Whatever stops one tool's check (here a simulated engine failure) stays with that tool."""
    from transpiler import pipeline
    from transpiler.harness.running import check as harness_check

    real = harness_check.check_tool

    def failing(loaded: Any, *args: Any, **kwargs: Any) -> Any:
        if loaded.effective.name == "boom":
            raise TranspilerError("the engine gave up")
        return real(loaded, *args, **kwargs)

    monkeypatch.setattr(harness_check, "check_tool", failing)
    monkeypatch.setattr(pipeline, "check_tool", failing)
    config = write(tmp_path / "two.yaml", tool("ok", "{{.params.x}}"), tool("boom", "x"))
    assert main(["check", str(config), *CHECK, "--format", "json"]) == 1
    reports = {r["tool"]: r for r in json.loads(capsys.readouterr().out)["tools"]}
    assert reports["ok"]["verdict"] in ("equivalent", "equivalent-except")
    assert reports["boom"]["verdict"] == "unchecked"
    assert re.fullmatch(
        rf"{re.escape(str(config))}:\d+: the equivalence check could not finish: the engine "
        "gave up",
        reports["boom"]["reason"],
    )
    assert main(["migrate", str(config), "--examples", "2", "--no-diff"]) == 1
    out = capsys.readouterr().out
    assert "ok: converted" in out
    assert "boom: converted, not checked: the equivalence check could not finish: the engine" in out
