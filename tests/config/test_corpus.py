"""Our own corpus: the bundled example is valid, and every rule has a file that triggers it.

Each ``corpus/validation/{invalid,warnings}/*.yaml`` starts with ``# rule: <id>``
and ``# expect: <text>`` (and ``# target: <name>`` when it is judged against a
target other than its own); the file must produce a finding with that rule whose
message contains the text. ``valid/`` files must produce no error or warning.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.config.helpers import as_tool
from tests.conftest import CORPUS
from transpiler.config.loader import load_paths
from transpiler.config.model import CompositeToolConfig, WorkflowStepConfig
from transpiler.config.target import target_named
from transpiler.diagnostics import Diagnostic, Severity
from transpiler.plan import plan_tool
from transpiler.validate import validate
from transpiler.validate.p2 import validate_composite_tool
from transpiler.validate.rules import RULES

VALIDATION = CORPUS / "validation"
FLAGGED = sorted([*VALIDATION.glob("invalid/*.yaml"), *VALIDATION.glob("warnings/*.yaml")])
VALID = sorted(VALIDATION.glob("valid/*.yaml"))
#: Rules no YAML file can trigger, and the test that covers each instead.
COVERED_ELSEWHERE = {
    "P2.S16.toolAndMessage": "test_tool_and_message_needs_the_raw_model (defaults infer the type)",
    "INPUT.unreadable": "tests/config/test_hostile.py::test_oversized_file",
    "LIMIT.depth": "tests/config/test_hostile.py::test_deep_nesting",
    "LIMIT.aliases": "tests/config/test_hostile.py::test_alias_bomb",
    "LIMIT.tools": "tests/hostile/test_scaling.py::test_tool_and_document_limits",
    "LIMIT.documents": "tests/hostile/test_scaling.py::test_tool_and_document_limits",
    "P2.THV0051.size": "tests/config/test_scripted.py::test_a_script_over_the_size_limit",
}


def findings(path: Path) -> list[Diagnostic]:
    """Every diagnostic for a file (judged against its ``# target:``): load, validation, plan."""
    named = re.search(r"^# target: (.*)$", path.read_text(encoding="utf-8"), re.MULTILINE)
    load = load_paths([path], target_named(named.group(1)) if named else None)
    found = list(validate(load).diagnostics)
    found.extend(warning for tool in load.tools for warning in plan_tool(tool).warnings)
    return found


def header(path: Path, field: str) -> str:
    match = re.search(rf"^# {field}: (.*)$", path.read_text(encoding="utf-8"), re.MULTILINE)
    assert match is not None, f"{path.name} has no '# {field}:' header"
    return match.group(1)


@pytest.mark.parametrize("path", FLAGGED, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_file_triggers_its_rule(path: Path) -> None:
    rule, expected = header(path, "rule"), header(path, "expect")
    assert rule in RULES
    matching = [d for d in findings(path) if d.rule == rule]
    assert matching, f"no {rule}"
    assert any(expected in d.message for d in matching), [d.message for d in matching]
    assert all(d.location.line > 0 for d in matching if d.location.file == str(path))


EXAMPLES = [CORPUS / "example" / "vmcp-config.yaml", CORPUS / "k8s" / "platform-gateway.yaml"]


@pytest.mark.parametrize("path", [*VALID, *EXAMPLES], ids=lambda p: p.stem)
def test_valid_file_is_clean(path: Path) -> None:
    noisy = [d.render() for d in findings(path) if d.severity in (Severity.ERROR, Severity.WARNING)]
    assert noisy == []


def test_every_rule_is_exercised() -> None:
    from_files = {header(path, "rule") for path in FLAGGED}
    assert set(RULES) - from_files == set(COVERED_ELSEWHERE)


def test_every_emitted_rule_is_catalogued() -> None:
    emitted = {d.rule for path in [*FLAGGED, *VALID] for d in findings(path)}
    assert emitted <= set(RULES)


def test_tool_and_message_needs_the_raw_model() -> None:
    step = WorkflowStepConfig(id="a", tool="svc.a", message="hello")
    tool = CompositeToolConfig(name="t", description="d", steps=(step,))
    result = validate_composite_tool(as_tool(tool).config, "compositeTools[0]")
    assert [d.rule for d in result.reported] == ["P2.S16.toolAndMessage"]
    assert result.message == (
        "validation failed: compositeTools[0].steps[0] cannot have both tool and message fields"
        " - use explicit type to clarify intent"
    )
