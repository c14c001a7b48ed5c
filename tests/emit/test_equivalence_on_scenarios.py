"""Emitted scripts against the composite model on every hand-written scenario.

Each ``kind: run`` conformance case and each scenario under ``corpus/scenarios``
runs on the composite model and, after emitting, on the Starlark runtime. They
must agree under the harness's relation (docs/equivalence.md) against the
canonical schedule, unless the emitted script itself
states, in a domain note, the assumption the scenario breaks: the table below
names that note for each such scenario, and the test fails if the note is not
in the script's claimed domain.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import yaml

from tests.conftest import CONFORMANCE, CORPUS
from transpiler.composite import run_composite
from transpiler.composite.advertise import Hidden, not_found_error
from transpiler.composite.engine import advertise_verdict
from transpiler.config.loader import load_bytes, load_paths
from transpiler.config.model import CompositeToolConfig
from transpiler.deviations import Deviation
from transpiler.diagnostics import TranspilerError
from transpiler.emit.exact.script import emit_script
from transpiler.harness.judging.readings import Readings
from transpiler.harness.judging.relation import difference
from transpiler.sim.scenario import Scenario, load_scenario, scenario_from_document
from transpiler.starlark_runtime import run_starlark

#: Scenarios that leave the emitted script's claimed domain: scenario -> the note that says so.
OUT_OF_DOMAIN = {
    "elicit_timeout_without_handler": "elicitation-answered",
    "err_workflow_timeout_tiny": "within-timeouts",
    "tmpl_embedded_resource_chain": "content-without-structured-content",
    "tmpl_output_and_content_are_separate": "content-without-structured-content",
    "D_dag/slots_with_for_each": Deviation.LAST_STEP_RACE,
    "E_steps/views": "sibling-race",
    "F_conditions/once": "sibling-race",
    "H_arguments/headers": "parameter-headers",
    "I_results/route": "tools-exist",
    "J_retries/step_timeout": "within-timeouts",
    "L_timeouts/continue_deadline": "within-timeouts",
    "L_timeouts/elicitation": "elicitation-answered",
    "L_timeouts/elicitation_workflow": "elicitation-answered",
    "L_timeouts/next_level": "within-timeouts",
    "L_timeouts/step_default": "within-timeouts",
    "L_timeouts/workflow_default": "within-timeouts",
    "M_elicitation/handlers": "elicitation-answered",
    "O_output/last_step": Deviation.LAST_STEP_RACE,
}
#: Tools the emitter refuses, and a word of the reason it gives.
REFUSED = {
    "G_templates/context": "printf",
    "I_results/results": "printf",
    "N_for_each/basics": "printf",
    "N_for_each/continue": "retry() halts",
}


def _conformance() -> Iterator[tuple[str, CompositeToolConfig, Scenario]]:
    for path in sorted(CONFORMANCE.rglob("*.yaml")):
        case = yaml.safe_load(path.read_text())
        if not isinstance(case, dict) or case.get("kind") != "run":
            continue
        config = yaml.safe_dump({"compositeTools": [case["config"]]}).encode()
        tool = load_bytes(config, str(path)).tools[0].effective
        yield case["name"], tool, scenario_from_document(case["scenario"], str(path))


def _corpus() -> Iterator[tuple[str, CompositeToolConfig, Scenario]]:
    for tools_file in sorted((CORPUS / "scenarios").rglob("tools.yaml")):
        tools = {t.effective.name: t.effective for t in load_paths([tools_file]).tools}
        for path in sorted(tools_file.parent.glob("*.scenario.yaml")):
            scenario = load_scenario(path)
            name = scenario.tool or next(iter(tools))
            label = f"{tools_file.parent.name}/{path.name.removesuffix('.scenario.yaml')}"
            yield label, tools[name], scenario


CASES = [*_conformance(), *_corpus()]


def _schemas(scenario: Scenario) -> dict[str, Any]:
    return {
        name: backend.input_schema
        for name, backend in scenario.backends.items()
        if backend.input_schema is not None
    }


@pytest.mark.parametrize(("label", "tool", "scenario"), CASES, ids=[c[0] for c in CASES])
def test_script_behaves_like_the_workflow(
    label: str, tool: CompositeToolConfig, scenario: Scenario
) -> None:
    try:
        emitted = emit_script(tool, label, _schemas(scenario))
    except TranspilerError as refusal:
        assert label in REFUSED, f"{label}: not converted: {refusal}"
        assert REFUSED[label] in str(refusal)
        return
    assert label not in REFUSED, f"{label} is converted now: update REFUSED"
    composite = run_composite(tool, scenario)
    if isinstance(advertise_verdict(tool, scenario), Hidden):
        # vMCP hides the composite tool; the scripted tool is not subject to that gate, so
        # the two are compared by the tool listing, not by this run.
        assert composite.error == not_found_error(tool.name) and composite.calls == []
        return
    script = run_starlark(
        emitted.script, scenario, timeout_ns=tool.timeout, modules=emitted.modules
    )
    found = difference(composite, script)
    if label in OUT_OF_DOMAIN:
        claimed = {note.name for note in emitted.domain} | emitted.declared
        assert OUT_OF_DOMAIN[label] in claimed, f"{label}: the script does not claim {claimed}"
        return
    if found is not None:  # the model's run under a reading of what the script declares
        declared = frozenset(c for c in Deviation if c in emitted.declared)
        readings = Readings(tool, frozenset(c for c in declared if c.about.variants))
        matched = readings.match(scenario, composite, True, script, "rust")
        assert matched is not None, f"{label}: {found.render()}"


def test_the_catalogues_name_real_cases() -> None:
    labels = {case[0] for case in CASES}
    assert set(OUT_OF_DOMAIN) <= labels and set(REFUSED) <= labels
