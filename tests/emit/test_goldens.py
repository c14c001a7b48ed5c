"""Emitted scripts for our own workflows, compared with reviewed golden files.

Set ``UPDATE_GOLDENS=1`` to rewrite the goldens after an intended change, then
review the diff like any code change.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import CORPUS, REPO_ROOT
from transpiler.config.loader import load_paths
from transpiler.emit.script import emit_script

GOLDEN_SOURCES = ("goldens", "example")


def _tools() -> list[tuple[str, str]]:
    found = []
    for folder in GOLDEN_SOURCES:
        for tool in load_paths([CORPUS / folder]).tools:
            found.append((folder, tool.effective.name))
    return found


@pytest.mark.parametrize(("folder", "name"), _tools())
def test_emitted_script_matches_its_golden(
    folder: str, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO_ROOT)
    tool = next(t for t in load_paths([Path("corpus") / folder]).tools if t.effective.name == name)
    source = f"{tool.origin.file}:{tool.config.where.at.line}"
    script = emit_script(tool.effective, source).script
    golden = CORPUS / "goldens" / f"{name}.star"
    if os.environ.get("UPDATE_GOLDENS") == "1":
        golden.write_text(script)
    assert golden.exists(), f"no golden for {name}: run with UPDATE_GOLDENS=1 and review it"
    assert script == golden.read_text(), f"{name}: the emitted script differs from {golden}"
