"""Fixtures for template tests: the Go oracle."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.conftest import TOOLCHAINS, use_toolchain
from transpiler.gotemplate.oracle import GoOracle, OracleUnavailable, start_oracle


def _started() -> GoOracle:
    try:
        return start_oracle()
    except OracleUnavailable as error:
        pytest.skip(f"GO ORACLE UNAVAILABLE ({error})")


@pytest.fixture(scope="session")
def oracle() -> Iterator[GoOracle]:
    """The Go oracle process; without Go the test is skipped, loudly, naming golang-go."""
    with _started() as process:
        yield process


@pytest.fixture(scope="session", params=TOOLCHAINS)
def oracle_per_toolchain(request: pytest.FixtureRequest) -> Iterator[GoOracle]:
    """The oracle built by vMCP's Go 1.26 (``pinned``) and by Debian's Go 1.19 fallback."""
    with pytest.MonkeyPatch.context() as patch:
        use_toolchain(str(request.param), patch)
        process = _started()
    with process:
        yield process
