"""Generated workflows x mutations of their readable scripts: a mutant the gate passes is the
model's run under one reading, in every scenario it was shown.

The gate's own search (:mod:`transpiler.harness.judging.readings`) decides; this test checks the
decision from outside with nothing but the model and the relation: the reading the gate
ends with, run on each scenario (under any of vMCP's schedules), must give the mutant's trace
exactly (an error's text aside where the reading stops the script). A mutant that changes a
trace in any other way must have been rejected.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from transpiler.composite import run_composite_schedules
from transpiler.config.loader import load_bytes
from transpiler.declaration import declared_in
from transpiler.emit import emit_tool
from transpiler.harness.coverage.mutants import mutants
from transpiler.harness.judging.readings import variants_of
from transpiler.harness.judging.relation import differences, matches
from transpiler.harness.running.check import _Run
from transpiler.harness.scenarios.analysis import analyse
from transpiler.harness.scenarios.generate import scenarios
from transpiler.harness.scenarios.shapes import tool_shapes
from transpiler.harness.scenarios.workflows import workflows
from transpiler.starlark_runtime import run_starlark

ENGINE = "rust"
SCENARIOS = 6
SCHEDULES = 32


@settings(
    max_examples=int(os.environ.get("RANDOM_MUTANTS", "25")),
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
@given(document=workflows(), data=st.data())
def test_a_passing_mutant_is_the_model_under_one_reading(
    document: dict[str, Any], data: st.DataObject
) -> None:
    loaded = load_bytes(yaml.safe_dump(document).encode(), "generated.yaml").tools[0]
    tool = loaded.effective
    emitted = emit_tool(tool, "generated.yaml")
    made = mutants(emitted.script, emitted.modules)
    assume(made)
    mutant = data.draw(st.sampled_from(made), label="mutant")
    declared = declared_in(mutant.text).classes
    strategy = scenarios(tool_shapes(analyse(tool)), tool.parameters, tool.name).strategy()
    drawn = [data.draw(strategy, label="scenario") for _ in range(SCENARIOS)]
    run = _Run(loaded, mutant.text, emitted.modules, (ENGINE,), declared)
    if run.compare_all(drawn) is not None or run.settle() is not None:
        return  # rejected
    reading = run.readings.chosen
    for scenario in drawn:
        script = run_starlark(
            mutant.text, scenario, engine=ENGINE, timeout_ns=tool.timeout, modules=emitted.modules
        )
        runs = run_composite_schedules(
            tool, scenario, "all", SCHEDULES, variants=variants_of(reading, ENGINE)
        )
        if not any(matches(trace, script) for trace in runs):
            shown = "\n".join(d.render() for d in differences(runs[0], script))
            pytest.fail(
                f"mutant {mutant.operator} at line {mutant.line} passed, but the reading "
                f"{reading} does not give its trace:\n{shown}\n{mutant.text}"
            )
