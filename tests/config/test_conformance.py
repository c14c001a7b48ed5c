"""Every ``kind: validate`` conformance case: verdict and error text at its stage.

``config`` runs P2 on the config as written (no loader post-processing),
``convert`` runs P3, ``engine`` runs P4 on the converted definition.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.config.helpers import config_node, read_yaml, written_tool
from tests.conftest import CONFORMANCE
from transpiler.validate.p2 import validate_composite_tool
from transpiler.validate.p3 import convert
from transpiler.validate.p4 import validate_workflows

CASES = sorted(
    path
    for path in CONFORMANCE.rglob("*.yaml")
    if isinstance(data := read_yaml(path), dict) and data.get("kind") == "validate"
)


def stage_messages(stage: str, path: Path) -> list[str]:
    """The error messages the case's stage produces (empty when it passes)."""
    tool = written_tool(config_node(path), str(path))
    if stage == "config":
        return [
            d.message for d in validate_composite_tool(tool.config, "compositeTools[0]").reported
        ]
    converted = convert([tool])
    if stage == "convert" or converted.diagnostics:
        return [d.message for d in converted.diagnostics]
    assert stage == "engine"
    return [d.message for d in validate_workflows(converted.converted).diagnostics]


def test_all_validate_cases_found() -> None:
    assert len(CASES) == 76


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_validate_case(path: Path) -> None:
    case = read_yaml(path)
    assert isinstance(case, dict)
    expect = case["expect"]
    messages = stage_messages(case["stage"], path)
    if expect["valid"]:
        assert messages == []
    else:
        assert messages, "expected a rejection"
        assert any(expect["error_contains"] in message for message in messages), messages
