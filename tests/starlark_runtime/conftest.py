"""Fixtures for running scripts on both engines."""

from __future__ import annotations

import pytest

from transpiler.gobuild import go_available

ENGINES = [
    "rust",
    pytest.param(
        "go",
        marks=[
            pytest.mark.go,
            pytest.mark.skipif(
                not go_available(needs_starlark=True),
                reason="LOUD SKIP: the go engine needs Debian packages golang-go and "
                "golang-starlark-dev (./dev installs them)",
            ),
        ],
    ),
]


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    """Each test runs once per engine."""
    return str(request.param)
