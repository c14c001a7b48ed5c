"""Every command near-linear in its input and bounded in output (issue 13, item 5).

Reproductions: ``compositeTools:`` followed by n ``[`` (50k took 67.5 s in
``yamlspan._extend``), ``compositeTools: [{},{},...]`` (10k took 36 s in
``outcome._warnings``), and 600k empty entries (``validate`` used 2.4 GB and
printed 292 MB). Times are compared as ratios (8x the input must cost well
under a quadratic's 64x), so a shared machine's speed does not matter.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from transpiler.cli import main
from transpiler.config.documents import MAX_TOOLS_PER_FILE
from transpiler.config.loader import MAX_DOCUMENTS_PER_FILE, load_bytes
from transpiler.harness.running.check import CheckOptions
from transpiler.migrate.runner import MigrateOptions, migrate


def empty_tools(count: int) -> str:
    return "compositeTools: [" + ",".join(["{}"] * count) + "]\n"


def seconds(action: object) -> float:
    """The best of three timings of ``action()``, in this process's CPU time (what other
    processes on a loaded machine take does not count)."""
    assert callable(action)
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        action()
        best = min(best, time.process_time() - started)
    return best


def migrate_file(path: Path) -> None:
    migrate([path], MigrateOptions(check=CheckOptions(examples=0)))


def test_many_empty_tools_are_migrated_in_linear_time(tmp_path: Path) -> None:
    small, large = tmp_path / "small.yaml", tmp_path / "large.yaml"
    small.write_text(empty_tools(1000))
    large.write_text(empty_tools(8000))
    ratio = seconds(lambda: migrate_file(large)) / seconds(lambda: migrate_file(small))
    assert ratio < 24, ratio  # 8x the input: about 11x measured, 64x if quadratic


@pytest.mark.parametrize("command", ["validate", "check", "migrate"])
def test_many_open_brackets_are_refused_at_once(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "brackets.yaml"
    path.write_text("compositeTools: " + "[" * 50_000 + "\n")
    started = time.monotonic()
    assert main([command, str(path)]) == 2
    assert time.monotonic() - started < 20
    out = capsys.readouterr()
    assert f"{path}:1:" in out.out + out.err and "nesting deeper than" in out.out + out.err


@pytest.mark.parametrize("command", ["validate", "check", "migrate"])
def test_tool_and_document_limits(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tools = tmp_path / "tools.yaml"
    tools.write_text(empty_tools(MAX_TOOLS_PER_FILE + 1))
    documents = tmp_path / "documents.yaml"
    documents.write_text("---\n{}\n" * (MAX_DOCUMENTS_PER_FILE + 1))
    for path, rule in ((tools, "LIMIT.tools"), (documents, "LIMIT.documents")):
        assert main([command, str(path)]) == 2
        out = capsys.readouterr()
        printed = out.out + out.err
        assert f"{path}:" in printed and len(printed) < 2_000_000
        if command == "validate":
            assert f"error[{rule}]" in printed


def test_six_hundred_thousand_empty_tools_in_bounded_memory_and_output(tmp_path: Path) -> None:
    path = tmp_path / "many.yaml"
    path.write_text(empty_tools(600_000))  # 1.8 MB, under the size limit
    command = [sys.executable, "-m", "transpiler", "validate", str(path)]
    completed = subprocess.run(command, capture_output=True, text=True, check=False)
    assert completed.returncode == 2
    assert "error[LIMIT.tools]" in completed.stdout and len(completed.stdout) < 1000
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    assert peak_kib < 800 * 1024, peak_kib


def test_the_limits_sit_where_they_say() -> None:
    at_limit = load_bytes(empty_tools(MAX_TOOLS_PER_FILE).encode(), "at.yaml")
    assert not at_limit.errors and len(at_limit.tools) == MAX_TOOLS_PER_FILE
    past = load_bytes(empty_tools(MAX_TOOLS_PER_FILE + 1).encode(), "past.yaml")
    assert [d.rule for d in past.errors] == ["LIMIT.tools"] and not past.tools
    documents = load_bytes(b"---\n{}\n" * MAX_DOCUMENTS_PER_FILE, "docs.yaml")
    assert not documents.errors
    more = load_bytes(b"---\n{}\n" * (MAX_DOCUMENTS_PER_FILE + 1), "docs.yaml")
    assert [d.rule for d in more.errors] == ["LIMIT.documents"]
