"""Generated workflows x generated scenarios, through emit (both styles) and both forms.

An exact script must match some trace vMCP could produce; a readable one may
also differ, but only as the model's run under a reading of the classes the
script declares (:mod:`transpiler.harness.judging.readings`).
"""

from __future__ import annotations

import os
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from transpiler.composite import run_composite
from transpiler.config.loader import load_bytes
from transpiler.deviations import Deviation
from transpiler.emit import STYLES, emit_tool
from transpiler.harness.judging.readings import Readings
from transpiler.harness.judging.relation import differences
from transpiler.harness.scenarios.analysis import analyse
from transpiler.harness.scenarios.generate import scenarios
from transpiler.harness.scenarios.shapes import tool_shapes
from transpiler.harness.scenarios.workflows import workflows
from transpiler.starlark_runtime import run_starlark
from transpiler.validate import validate

ENGINE = "rust"


@pytest.mark.parametrize("style", STYLES)
@settings(
    max_examples=int(os.environ.get("RANDOM_WORKFLOWS", "40")),
    suppress_health_check=list(HealthCheck),
)
@given(document=workflows(), data=st.data())
def test_generated_workflows_behave_like_their_scripts(
    style: str, document: dict[str, Any], data: st.DataObject
) -> None:
    load = load_bytes(yaml.safe_dump(document).encode(), "generated.yaml")
    report = validate(load)
    assert report.valid, [d.render() for d in report.diagnostics if d.severity.value == "error"]
    tool = load.tools[0].effective
    emitted = emit_tool(tool, "generated.yaml", style=style)
    shapes = tool_shapes(analyse(tool))
    scenario = data.draw(scenarios(shapes, tool.parameters, tool.name).strategy())
    composite = run_composite(tool, scenario)
    script = run_starlark(
        emitted.script, scenario, engine=ENGINE, timeout_ns=tool.timeout, modules=emitted.modules
    )
    declared = frozenset(c for c in Deviation if c in emitted.declared)
    readings = Readings(tool, frozenset(c for c in declared if c.about.variants))
    if readings.match(scenario, composite, True, script, ENGINE) is None:
        found = "\n".join(d.render() for d in differences(composite, script))
        pytest.fail(f"{style} script differs unexplained:\n{found}\n{emitted.script}")
