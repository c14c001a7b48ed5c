"""The upstream corpus: every file loads, and every complete workflow's verdict matches INDEX.md.

INDEX.md's "validator" column is ``ValidateCompositeToolConfig`` (P2). Where
we report more than that column, or reach its verdict another way, the case
is listed below with the vMCP rule that decides it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import UPSTREAM_CORPUS
from transpiler.config.loader import load_paths
from transpiler.diagnostics import Severity
from transpiler.plan import plan_tool
from transpiler.validate import UnitReport, validate

FILES = sorted(UPSTREAM_CORPUS.rglob("*.yaml"))

#: The INDEX re-validated these after renaming legacy snake_case keys; vMCP's strict
#: loader rejects ``composite_tools`` itself (P1.S7: field composite_tools not found in
#: type config.Config), so no tool is read and the verdict "rejected" comes from P1.
LEGACY_KEYS_REJECTED_AT_P1 = {"vmcp-composition-demo/vmcp-config-v2-structured-output.yaml"}

#: Tools that pass P2 (as INDEX says) but that a later phase rejects, by the rule given.
BEYOND_P2 = {
    # D18: the forEach inner step has no id; `thv vmcp validate` passes, `vmcp serve` fails.
    ("docs-website/scan-repositories-foreach.yaml", "scan_repositories"): (
        "P3",
        "P3.S33.innerStepId",
    ),
    # D1: spec.failureMode is no CRD field; kubectl's strict field validation rejects it.
    ("toolhive-operator-docs/guide-example1-simple-deploy.yaml", "deploy_app"): (
        "admission",
        "K8S.admission.unknownField",
    ),
    ("toolhive-operator-docs/guide-example3-investigate-incident.yaml", "investigate_incident"): (
        "admission",
        "K8S.admission.unknownField",
    ),
    ("toolhive-operator-docs/guide-example4-canary-deployment.yaml", "canary_deployment"): (
        "admission",
        "K8S.admission.unknownField",
    ),
    ("toolhive-operator-docs/guide-failure-modes.yaml", "resilient_deployment"): (
        "admission",
        "K8S.admission.unknownField",
    ),
    # S35: output.required names a property that does not exist; the engine refuses at start.
    ("toolhive-unit-tests/output-required-missing-field.yaml", "validation_test"): (
        "P4",
        "P4.S35.required",
    ),
}


@dataclass(frozen=True)
class IndexRow:
    """One workflow row of INDEX.md."""

    file: str
    kind: str
    workflow: str
    rejected: bool


def index_rows() -> list[IndexRow]:
    """Parse INDEX.md's file table (``″`` repeats the previous row's file)."""
    rows: list[IndexRow] = []
    previous: list[str] = []
    for line in (UPSTREAM_CORPUS / "INDEX.md").read_text(encoding="utf-8").splitlines():
        if not line.startswith(("| [", "| ″")):
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split(" | ")]
        if cells[0] == "″":
            cells = previous[:3] + cells[3:]
        previous = cells
        link = re.search(r"\]\((.*?)\)", cells[0])
        assert link is not None, line
        rows.append(
            IndexRow(
                link.group(1), cells[2], cells[3].strip("`"), cells[5].startswith("**rejected**")
            )
        )
    return rows


ROWS = index_rows()
WORKFLOWS = [row for row in ROWS if row.kind != "step-list-fragment"]


def test_index_lists_every_file() -> None:
    assert {row.file for row in ROWS} == {str(path.relative_to(UPSTREAM_CORPUS)) for path in FILES}
    assert len(FILES) == 117
    assert len(WORKFLOWS) == 70


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(UPSTREAM_CORPUS)))
def test_file_loads_validates_and_plans(path: Path) -> None:
    load = load_paths([path])
    assert not load.unreadable
    report = validate(load)
    for tool in load.tools:
        plan_tool(tool)
    assert all(d.location.file == str(path) for d in report.diagnostics)


def unit_of(row: IndexRow) -> tuple[UnitReport, str] | None:
    """The unit holding the row's workflow, and the tool's path in it."""
    for unit in validate(load_paths([UPSTREAM_CORPUS / row.file])).units:
        for tool in unit.unit.tools:
            if tool.effective.name == row.workflow and tool.origin.referenced_by is None:
                return unit, tool.origin.path
    return None


@pytest.mark.parametrize("row", WORKFLOWS, ids=lambda r: f"{r.file}:{r.workflow}")
def test_p2_verdict_matches_index(row: IndexRow) -> None:
    found = unit_of(row)
    if row.file in LEGACY_KEYS_REJECTED_AT_P1:
        assert found is None and row.rejected
        report = validate(load_paths([UPSTREAM_CORPUS / row.file]))
        p1 = report.units[0].verdict("P1")
        assert (
            p1 is not None and p1.reported is not None and p1.reported.rule == "P1.S7.unknownField"
        )
        return
    assert found is not None, "workflow not loaded"
    unit, path = found
    p2_errors = [
        d
        for d in unit.diagnostics
        if d.phase == "P2" and d.severity is Severity.ERROR and d.message.startswith(path)
    ]
    assert bool(p2_errors) == row.rejected, [d.message for d in p2_errors]


@pytest.mark.parametrize(
    "row", [r for r in WORKFLOWS if not r.rejected], ids=lambda r: f"{r.file}:{r.workflow}"
)
def test_later_phases_of_p2_valid_workflows(row: IndexRow) -> None:
    found = unit_of(row)
    assert found is not None
    unit, _ = found
    failing = [
        (v.phase, v.reported.rule if v.reported else None) for v in unit.verdicts if not v.passed
    ]
    expected = BEYOND_P2.get((row.file, row.workflow))
    assert failing == ([expected] if expected else [])
