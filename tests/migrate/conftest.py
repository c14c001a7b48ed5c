"""Fixtures for migrate tests: small configs on disk, and a stand-in verdict.

Deciding equivalence is the harness's job (tests/harness). Tests of the rewriting
itself replace the verdict with a stand-in (``certify``) so they can exercise
``--write`` whether or not the harness is installed; tests of the verdict
path use the real adapter.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from transpiler import pipeline
from transpiler.harness.judging.verdict import Verdict
from transpiler.harness.running.check import ToolReport
from transpiler.migrate.runner import MigrateOptions, MigrationReport, migrate

SMALL_CONFIG = """\
# The team gateway.
name: gw   # trailing comment
groupRef: team

compositeTools:
  # Say it twice.
  - name: echo_twice
    description: Call echo twice   # inline
    parameters:
      type: object
      properties:
        text: {type: string}
      required: [text]
    timeout: 1m
    steps:
      - id: first
        tool: echo
        arguments:
          text: "{{.params.text}}"

      - id: second
        tool: echo
        dependsOn: [first]
        arguments:
          text: "{{.steps.first.output.text}}"
    output:
      properties:
        said:
          type: string
          description: What was said
          value: "{{.steps.second.output.text}}"
      required: [said]

  # Ping once.
  - name: ping
    description: Ping
    steps:
      - id: p
        tool: ping

# Trailer.
operational:
  logLevel: info
"""

MANIFESTS = """\
# Server and definitions.
apiVersion: toolhive.stacklok.dev/v1beta1
kind: VirtualMCPServer
metadata:
  name: gw
  namespace: team
spec:
  groupRef:
    name: team
  config:
    groupRef: team
    compositeTools:
      - name: inline_ping
        description: Ping inline
        steps:
          - id: p
            tool: ping
    compositeToolRefs:
      - name: shared-echo
---
apiVersion: toolhive.stacklok.dev/v1beta1
kind: VirtualMCPCompositeToolDefinition
metadata:
  name: shared-echo
  namespace: team
spec:
  name: shared_echo
  description: Echo, shared
  steps:
    - id: e
      tool: echo
      arguments:
        text: hi
  output:
    properties:
      text:
        type: string
        description: The echo
        value: "{{.steps.e.output.text}}"
"""


def _stand_in(monkeypatch: pytest.MonkeyPatch, verdict: Verdict) -> list[str]:
    asked: list[str] = []

    def check(tool: Any, options: Any, **_: Any) -> ToolReport:
        asked.append(tool.config.name)
        reason = f"{verdict} (test stand-in for the harness)"
        return ToolReport(tool.config.name, tool.origin.file, verdict, reason=reason)

    monkeypatch.setattr(pipeline, "check_tool", check)
    return asked


@pytest.fixture
def certify(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Stand in for the harness: every script is equivalent; yields the tools asked about."""
    yield _stand_in(monkeypatch, Verdict.EQUIVALENT)


@pytest.fixture
def refute(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Stand in for the harness: every script differs from its workflow."""
    yield _stand_in(monkeypatch, Verdict.DIFFERS)


@pytest.fixture
def write_file(tmp_path: Path) -> Callable[[str, str], Path]:
    """Write a file under the test's directory and return its path."""

    def write(name: str, text: str) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
        return path

    return write


def run(paths: list[Path], **options: Any) -> MigrationReport:
    """``migrate`` with keyword options."""
    return migrate([str(p) for p in paths], MigrateOptions(**options))


def snapshot(directory: Path) -> dict[str, bytes]:
    """Every file under ``directory`` by relative path, with its bytes."""
    return {
        str(p.relative_to(directory)): p.read_bytes()
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }
