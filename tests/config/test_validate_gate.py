"""``validate`` warns about a composite tool vMCP would drop for its annotations (S36)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from transpiler.cli import main

CONFIG = """compositeTools:
- name: ro
  description: d
  annotations:
    readOnlyHint: true
  steps:
  - {id: a, tool: look.one}
"""


def validate(capsys: pytest.CaptureFixture[str], tmp_path: Path, *extra: str) -> tuple[int, str]:
    path = tmp_path / "c.yaml"
    path.write_text(CONFIG)
    code = main(["validate", str(path), *extra])
    return code, capsys.readouterr().out


def test_S36_without_tools_every_step_tool_counts_as_declaring_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out = validate(capsys, tmp_path)
    assert code == 0
    assert f"{tmp_path / 'c.yaml'}:5:5: warning[S36] (tool ro, P5)" in out
    assert "(readOnlyHint)" in out


def test_S36_a_tools_file_with_read_only_backends_lifts_the_warning(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    tools = tmp_path / "tools.json"
    declared = {"name": "look.one", "annotations": {"readOnlyHint": True}}
    tools.write_text(json.dumps({"tools": [declared]}))
    code, out = validate(capsys, tmp_path, "--tools", str(tools))
    assert code == 0 and "warning[S36]" not in out and "0 warning(s)" in out


def test_a_wrong_annotation_in_the_tools_file_exits_2_naming_file_and_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    tools = tmp_path / "tools.yaml"
    tools.write_text("tools:\n- name: look.one\n  annotations:\n    readOnlyHint: 1\n")
    code = main(["validate", str(tmp_path), "--tools", str(tools)])
    assert code == 2
    assert f"{tools}:4:19: tools file: tool look.one" in capsys.readouterr().err
