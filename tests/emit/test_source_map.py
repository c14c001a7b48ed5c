"""The source map points at the code that implements each step, in both styles."""

from __future__ import annotations

import pytest

from tests.conftest import CORPUS
from transpiler.config.loader import load_paths
from transpiler.emit import STYLES, emit_tool


@pytest.mark.parametrize("style", STYLES)
def test_each_entry_spans_code_from_its_first_line_to_its_last(style: str) -> None:
    for tool in load_paths([CORPUS / "example"]).tools:
        result = emit_tool(tool.effective, "example.yaml", style=style)
        lines = result.script.splitlines()
        assert result.source_map, tool.effective.name
        for entry in result.source_map:
            first, last = lines[entry.first_line - 1], lines[entry.last_line - 1]
            for line in (first, last):
                assert line.strip() and not line.strip().startswith("#"), (entry, line)
