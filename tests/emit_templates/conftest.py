"""Fixtures for running library code on both engines."""

from __future__ import annotations

import pytest

from tests.emit_templates.starlark import ENGINES


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    """Each test runs once per engine (the go one skips loudly without Go)."""
    return str(request.param)
