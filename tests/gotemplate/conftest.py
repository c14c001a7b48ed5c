"""Fixtures for template tests: the Go oracle and the differential-test report."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from transpiler.gotemplate.oracle import GoOracle, OracleUnavailable, start_oracle

REPORT: list[str] = []


@pytest.fixture(scope="session")
def oracle() -> Iterator[GoOracle]:
    """The Go oracle process; without Go the test is skipped, loudly, naming golang-go."""
    try:
        process = start_oracle()
    except OracleUnavailable as error:
        pytest.skip(f"GO ORACLE UNAVAILABLE ({error})")
    with process:
        yield process


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Print what the differential test ran (cases, seeds, agreement)."""
    if REPORT:
        terminalreporter.section("Go text/template differential test")
        for line in REPORT:
            terminalreporter.write_line(line)
