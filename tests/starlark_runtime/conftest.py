"""Fixtures for running scripts on both engines."""

from __future__ import annotations

import pytest

from tests.conftest import TOOLCHAINS, use_toolchain
from transpiler.gobuild import go_available

#: The marks of a test that needs the go engine (skipped, loudly, without it).
NEEDS_GO = [
    pytest.mark.go,
    pytest.mark.skipif(
        not go_available(needs_starlark=True),
        reason="LOUD SKIP: the go engine needs Debian packages golang-go and "
        "golang-starlark-dev (./dev installs them)",
    ),
]
ENGINES = ["rust", pytest.param("go", marks=NEEDS_GO)]


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    """Each test runs once per engine."""
    return str(request.param)


#: rust, and go.starlark.net at vMCP's pinned commit or Debian's 2021 snapshot.
INTERPRETERS = ["rust", *(pytest.param(f"go-{k}", marks=pytest.mark.go) for k in TOOLCHAINS)]


@pytest.fixture(params=INTERPRETERS)
def interpreter(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each test runs on rust and on both go.starlark.net versions (selected here)."""
    name = str(request.param)
    if name != "rust":
        use_toolchain(name.removeprefix("go-"), monkeypatch, needs_starlark=True)
    return name
