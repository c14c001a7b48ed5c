"""Our corpus: each case pins the rules it names (see corpus/scenarios/README.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.composite.cases import check
from tests.composite.corpus import SCENARIOS, case_id, expect_files, load_case, section_tools
from transpiler.composite import run_composite, run_composite_schedules
from transpiler.composite.advertise import Hidden, Verdict, annotations_to_mcp
from transpiler.composite.engine import advertise_verdict
from transpiler.sim.scenario import load_scenario
from transpiler.sim.trace import Trace, plain_json

CASES = expect_files()


def _canonical(value: Any) -> str:
    return json.dumps(plain_json(value), sort_keys=True)


def _distinct(traces: list[Trace], field: str) -> set[str]:
    values: dict[str, Any] = {
        "outcome": lambda t: t.outcome,
        "error": lambda t: t.error,
        "output": lambda t: t.output,
        "client_text": lambda t: t.client_result["content"][0]["text"],
    }
    return {_canonical(values[field](trace)) for trace in traces}


def test_the_corpus_covers_every_section() -> None:
    sections = {path.parent.name for path in CASES}
    assert {name[0] for name in sections} >= set("CDEFGHIJKLMNOPQ")


@pytest.mark.parametrize("path", CASES, ids=case_id)
def test_corpus_case(path: Path) -> None:
    case = load_case(path)
    assert case.rules, "every corpus case names the rules it pins"
    trace = run_composite(case.tool, case.scenario, served=case.served)
    assert check(trace, case.expect) == [], trace.dumps()
    if case.advertise is not None:
        assert _advertised(advertise_verdict(case.tool, case.scenario, case.served)) == (
            case.advertise
        )
    if case.schedules is not None:
        explored = run_composite_schedules(
            case.tool, case.scenario, "all", limit=256, served=case.served
        )
        assert explored.exhaustive
        for field, expected in case.schedules.items():
            assert _distinct(explored, field) == {_canonical(v) for v in expected}, field


def _advertised(verdict: Verdict) -> dict[str, Any]:
    """A gate verdict in the shape of a case's ``advertise:``."""
    if isinstance(verdict, Hidden):
        found: dict[str, Any] = {"hidden": str(verdict.because)}
        if verdict.hint is not None:
            found["hint"] = verdict.hint
        return found
    return {"annotations": annotations_to_mcp(verdict.annotations)}


@pytest.mark.parametrize("name", ["ten_steps", "fifty_iterations"])
def test_the_benchmark_workloads_are_valid_and_succeed(name: str) -> None:
    bench = SCENARIOS / "bench"
    tool = section_tools(bench / "tools.yaml")[name]
    trace = run_composite(tool, load_scenario(bench / f"{name}.scenario.yaml"))
    assert trace.outcome == "success" and len(trace.calls) in (10, 51)
