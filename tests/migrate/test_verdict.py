"""Without the harness nothing is certified, and the report says so."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.migrate.conftest import SMALL_CONFIG, run
from transpiler.migrate import verdict
from transpiler.migrate.outcome import Status
from transpiler.migrate.runner import FileStatus
from transpiler.migrate.summary import summary_text


def test_a_missing_harness_certifies_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(verdict, "HARNESS_MODULE", "transpiler.no_such_harness.check")
    assert not verdict.harness_available()
    path = tmp_path / "gw.yaml"
    path.write_text(SMALL_CONFIG)
    report = run([path], write=True)
    assert {o.status for o in report.tools} == {Status.UNCHECKED}
    assert all(
        "transpiler.no_such_harness.check) is not installed" in o.reason for o in report.tools
    )
    assert report.files[0].status is FileStatus.REFUSED
    assert path.read_text() == SMALL_CONFIG
    text = summary_text(report)
    assert "converted and certified" not in text
    assert "equivalence: not checked (transpiler.no_such_harness.check is not installed)" in text
