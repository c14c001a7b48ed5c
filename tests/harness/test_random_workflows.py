"""Generated workflows x generated scenarios, through emit and both forms."""

from __future__ import annotations

import os
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from transpiler.composite import run_composite, run_composite_schedules
from transpiler.config.loader import load_bytes
from transpiler.config.validate import validate
from transpiler.emit.script import emit_script
from transpiler.harness.generate import scenarios
from transpiler.harness.relation import difference, matching
from transpiler.harness.shapes import tool_shapes
from transpiler.harness.workflows import workflows
from transpiler.starlark_runtime import run_starlark


@settings(
    max_examples=int(os.environ.get("RANDOM_WORKFLOWS", "40")),
    suppress_health_check=list(HealthCheck),
)
@given(document=workflows(), data=st.data())
def test_generated_workflows_behave_like_their_scripts(
    document: dict[str, Any], data: st.DataObject
) -> None:
    load = load_bytes(yaml.safe_dump(document).encode(), "generated.yaml")
    report = validate(load)
    assert report.valid, [d.render() for d in report.diagnostics if d.severity.value == "error"]
    tool = load.tools[0].effective
    emitted = emit_script(tool, "generated.yaml")
    domain = frozenset(note.name for note in emitted.domain)
    scenario = data.draw(scenarios(tool_shapes(tool), tool.parameters, tool.name, domain))
    composite = run_composite(tool, scenario)
    script = run_starlark(
        emitted.script, scenario, timeout_ns=tool.timeout, modules=emitted.modules
    )
    if difference(composite, script) is None:
        return
    others = run_composite_schedules(tool, scenario, "all", 32)
    found = difference(composite, script)
    assert matching(list(others), script) is not None, found.render() if found else ""
