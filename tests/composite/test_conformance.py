"""Every shared ``kind: run`` and ``kind: coerce`` conformance case (results come from Go)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.composite.cases import case_kind, check, go_value, load_run_case, same, yaml_nodes
from tests.conftest import CONFORMANCE
from transpiler.composite import run_composite
from transpiler.composite.coerce import coerce_value

CASE_FILES = sorted(CONFORMANCE.rglob("*.yaml"))
RUN_CASES = [path for path in CASE_FILES if case_kind(path) == "run"]
COERCE_CASES = [path for path in CASE_FILES if case_kind(path) == "coerce"]


def test_the_shared_cases_are_there() -> None:
    assert len(RUN_CASES) >= 80 and len(COERCE_CASES) >= 20


@pytest.mark.parametrize("path", RUN_CASES, ids=lambda p: p.stem)
def test_run_case(path: Path) -> None:
    case = load_run_case(path)
    trace = run_composite(case.tool, case.scenario)
    assert check(trace, case.expect) == [], trace.dumps()


@pytest.mark.parametrize("path", COERCE_CASES, ids=lambda p: p.stem)
def test_coerce_case_S81_S82(path: Path) -> None:
    nodes = yaml_nodes(path)
    expected = go_value(nodes["expect"])
    assert isinstance(expected, dict)
    coerced = coerce_value(go_value(nodes["schema"]), go_value(nodes["value"]))
    assert same(expected["value"], coerced), coerced
