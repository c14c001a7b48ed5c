"""Scenario backends may declare MCP ``annotations``; a wrong one names file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from transpiler.config.model import ToolAnnotations
from transpiler.diagnostics import InputError
from transpiler.sim.scenario import load_scenario, scenario_from_document


def test_backend_annotations_are_read_and_written_back() -> None:
    document = {
        "backends": {
            "echo": {
                "annotations": {"title": "Echo", "readOnlyHint": True, "openWorldHint": False},
                "results": [],
            }
        }
    }
    scenario = scenario_from_document(document)
    assert scenario.backends["echo"].annotations == ToolAnnotations(
        title="Echo", read_only_hint=True, open_world_hint=False
    )
    assert scenario.to_json()["backends"]["echo"]["annotations"] == {
        "title": "Echo",
        "readOnlyHint": True,
        "openWorldHint": False,
    }


@pytest.mark.parametrize(
    ("annotations", "line", "message"),
    [
        ('\n      readOnlyHint: "yes"', 5, "'readOnlyHint' must be true or false"),
        ("\n      title: 3", 5, "'title' must be a string"),
        ("\n      safe: true", 5, "unknown field(s) safe"),
        (" [readOnlyHint]", 4, "'annotations' must be a mapping"),
    ],
)
def test_a_wrong_annotation_names_file_line_and_backend(
    tmp_path: Path, annotations: str, line: int, message: str
) -> None:
    path = tmp_path / "s.yaml"
    text = f"tool: t\nbackends:\n  echo:\n    annotations:{annotations}\n    results: []\n"
    path.write_text(text)
    with pytest.raises(InputError) as raised:
        load_scenario(path)
    assert str(raised.value).startswith(f"{path}:{line}:")
    assert "backend echo" in str(raised.value) and message in str(raised.value)
