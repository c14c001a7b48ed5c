"""``migrate`` over every file of the upstream corpus: no crash, every tool accounted for."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.conftest import UPSTREAM_CORPUS
from tests.migrate.conftest import run, snapshot
from transpiler.harness.judging.verdict import Verdict
from transpiler.migrate.runner import FileStatus
from transpiler.pipeline import Pairing, ToolOutcome


def test_every_file_migrates_or_says_which_tool_was_not_converted_and_why(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(UPSTREAM_CORPUS, corpus)
    report = run([corpus], write=True, force=True, backup_suffix=None)
    assert not [f for f in report.files if f.status is FileStatus.FAILED]
    by_file: dict[str, list[ToolOutcome]] = {}
    for outcome in report.tools:
        by_file.setdefault(outcome.tool.origin.file, []).append(outcome)
        if outcome.verdict is Verdict.NOT_CONVERTED:
            known = ("vMCP rejects", "vMCP hides", "the emitter cannot")
            assert outcome.reason.startswith(known), outcome.reason
            assert outcome.location.line > 0
    for result in report.files:
        outcomes = by_file.get(str(result.path), [])
        if result.status is FileStatus.REWRITTEN:
            assert outcomes and all(o.pairing is not Pairing.CONFLICT for o in outcomes)
        elif result.status is FileStatus.NOT_CONVERTED:
            assert "vMCP rejects" in result.reason
        else:
            assert result.status is FileStatus.UNCHANGED
            assert all(o.verdict is Verdict.NOT_CONVERTED for o in outcomes), result
    rewritten = [f for f in report.files if f.status is FileStatus.REWRITTEN]
    assert len(rewritten) >= 30
    after = snapshot(corpus)
    again = run([corpus], write=True, force=True, backup_suffix=None)
    assert snapshot(corpus) == after
    assert not [f for f in again.files if f.status is FileStatus.REWRITTEN]
