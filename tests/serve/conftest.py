"""What ``serve``'s tests share: a workflow whose step retries, its backends, and serve itself."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from tests.starlark_runtime.conftest import NEEDS_GO

HERE = Path(__file__).parent
REPOSITORY = HERE.parent.parent
T = TypeVar("T", bound=Callable[..., Any])
#: Every test here bounds its wait on serve or a backend by this (seconds).
DEADLINE = 60.0

#: A ticket tracker's workflow: read a ticket, retrying while the tracker is busy.
TICKET_CONFIG = """\
name: gateway
groupRef: platform
compositeTools:
  - name: ticket_status
    description: Read a ticket's status, retrying while the tracker is busy
    parameters:
      type: object
      properties:
        ticket: {type: string}
      required: [ticket]
    steps:
      - id: fetch
        tool: tracker.get_ticket
        arguments:
          id: "{{.params.ticket}}"
        onError:
          action: retry
          retryCount: 3
          retryDelay: 20ms
    output:
      properties:
        status:
          type: string
          description: The ticket's status
          value: "{{.steps.fetch.output.status}}"
"""


def needs_go(test: T) -> T:
    """A test that runs serve on go.starlark.net only."""
    for mark in NEEDS_GO:
        test = mark(test)
    return test


def serve_command(*arguments: str | Path) -> list[str]:
    """``python -m transpiler serve ...``."""
    return [sys.executable, "-m", "transpiler", "serve", *map(str, arguments)]


def backends_file(folder: Path, workload: str, command: list[str]) -> Path:
    """A BACKENDS.yaml naming one stdio backend."""
    path = folder / "backends.yaml"
    quoted = ", ".join(f'"{part}"' for part in command)
    path.write_text(f"backends:\n  {workload}:\n    command: [{quoted}]\n")
    return path


@pytest.fixture
def ticket_config(tmp_path: Path) -> Path:
    path = tmp_path / "gateway" / "vmcp.yaml"
    path.parent.mkdir()
    path.write_text(TICKET_CONFIG)
    return path
