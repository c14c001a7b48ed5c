"""Emitted exact scripts for our own workflows, compared with reviewed golden files.

Each tool has two goldens: ``corpus/goldens/<tool>.star``, the script that
loads its helpers from ``vmcp_compat.star`` (the default), and
``corpus/goldens/inline/<tool>.star``, the self-contained form
(``--inline-helpers``). Set ``UPDATE_GOLDENS=1`` to rewrite the goldens after
an intended change, then review the diff like any code change.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import CORPUS, REPO_ROOT
from transpiler.config.loader import load_paths
from transpiler.emit.exact.script import emit_script
from transpiler.emit.library import LIBRARY_NAME, library_text

GOLDEN_SOURCES = ("goldens", "example")
FORMS = {"load": CORPUS / "goldens", "inline": CORPUS / "goldens" / "inline"}


def _tools() -> list[tuple[str, str]]:
    found = []
    for folder in GOLDEN_SOURCES:
        for tool in load_paths([CORPUS / folder]).tools:
            found.append((folder, tool.effective.name))
    return found


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize(("folder", "name"), _tools())
def test_emitted_script_matches_its_golden(
    folder: str, name: str, form: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO_ROOT)
    tool = next(t for t in load_paths([Path("corpus") / folder]).tools if t.effective.name == name)
    source = f"{tool.origin.file}:{tool.config.where.at.line}"
    emitted = emit_script(tool.effective, source, inline_helpers=form == "inline")
    golden = FORMS[form] / f"{name}.star"
    if os.environ.get("UPDATE_GOLDENS") == "1":
        golden.write_text(emitted.script)
    assert golden.exists(), f"no golden for {name}: run with UPDATE_GOLDENS=1 and review it"
    assert emitted.script == golden.read_text(), f"{name}: the emitted script differs from {golden}"
    expected = {LIBRARY_NAME: library_text()} if form == "load" else {}
    assert emitted.modules == expected
