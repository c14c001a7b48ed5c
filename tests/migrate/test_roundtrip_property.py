"""Property: any block layout of a config migrates, and every comment outside steps survives."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.migrate.conftest import run
from transpiler import pipeline
from transpiler.harness.judging.verdict import Verdict
from transpiler.harness.running.check import ToolReport
from transpiler.migrate.runner import FileStatus

_WORDS = st.text("abcdefghij ", min_size=1, max_size=12).map(str.strip).filter(bool)


@st.composite
def configs(draw: st.DrawFn) -> tuple[str, list[str], list[str]]:
    """A config text, the comments outside steps/output, and the tool names."""
    step = draw(st.sampled_from([2, 4]))
    dash = draw(st.sampled_from([0, step]))
    lines: list[str] = []
    kept: list[str] = []

    def comment(indent: int, scope: list[str] | None) -> None:
        if draw(st.booleans()):
            text = f"# c{len(lines)} {draw(_WORDS)}"
            lines.append(" " * indent + text)
            if scope is not None:
                scope.append(text)

    comment(0, kept)
    lines.append("name: gw")
    lines.append("compositeTools:")
    names = [f"tool_{i}" for i in range(draw(st.integers(1, 3)))]
    for name in names:
        key = dash + 2
        comment(dash, kept)
        entries: list[tuple[str, list[str], bool]] = [
            ("name", [f"name: {name}"], True),
            ("description", [f"description: {draw(_WORDS)}  # d"], True),
            ("steps", ["steps:", *_steps(step, draw(st.integers(1, 3)))], False),
        ]
        if draw(st.booleans()):
            entries.append(("timeout", ["timeout: 2m"], True))
        if draw(st.booleans()):
            entries.append(
                (
                    "parameters",
                    ["parameters:", " " * step + "type: object", " " * step + "properties: {}"],
                    True,
                )
            )
        if draw(st.booleans()):
            entries.append(("output", _output(step), False))
        order = draw(st.permutations(entries))
        for index, (_, body, keeps) in enumerate(order):
            if index:
                comment(key, kept if keeps else None)
            prefix = " " * dash + "- " if index == 0 else " " * key
            lines.append(prefix + body[0])
            lines.extend(" " * key + line for line in body[1:])
        if draw(st.booleans()):
            lines.append("")
    comment(0, kept)
    lines.append("operational: {}")
    return "\n".join(lines) + "\n", kept, names


def _steps(step: int, count: int) -> list[str]:
    body: list[str] = []
    for index in range(count):
        body.append(" " * step + f"- id: s{index}")
        body.append(" " * step + "  tool: svc.op")
        if index:
            body.append(" " * step + f"  dependsOn: [s{index - 1}]")
    return body


def _output(step: int) -> list[str]:
    pad = " " * step
    return [
        "output:",
        pad + "properties:",
        pad * 2 + "result:",
        pad * 3 + "type: string",
        pad * 3 + "description: The result",
        pad * 3 + 'value: "{{.steps.s0.output.text}}"',
    ]


def _certified(tool: Any, options: Any, **_: Any) -> ToolReport:
    return ToolReport(tool.config.name, tool.origin.file, Verdict.EQUIVALENT, reason="stand-in")


@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(configs())
def test_any_block_layout_migrates_and_keeps_its_comments(
    tmp_path: Path, case: tuple[str, list[str], list[str]]
) -> None:
    text, comments, names = case
    path = tmp_path / "gw.yaml"
    path.write_text(text)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pipeline, "check_tool", _certified)
        report = run([path])
    result = report.files[0]
    assert result.status is FileStatus.REWRITTEN, (result.reason, [o.reason for o in report.tools])
    assert result.after is not None
    after_comments = re.findall(r"# c\d+ [a-j ]+", result.after)
    assert [c for c in after_comments if c in comments] == comments
    data = yaml.safe_load(result.after)
    assert [tool["name"] for tool in data["scriptedTools"]] == names
    assert "compositeTools" not in data
