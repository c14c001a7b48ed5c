"""A function's operand that vMCP holds as missing or null, in a readable script.

An optional string parameter the caller leaves out is read as ``""`` where it is printed
(``missing-value``), but a function (``len``, ``json``, a comparison) is given it as the
script has it, ``None``: as Go's functions see vMCP's missing value. ``printf`` of a null
prints ``<nil>`` in Go and ``None`` in the script, as a printed null does under
``missing-value``; ``printf "%d"`` of what may be text has no plain form. A ``json`` action
in a string output property is ``json.encode``'s text, declared as in an argument. Each
script runs beside the model on the scenario that shows the difference, and the gate passes
it with that scenario among its own.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.emit.loop_runs import emitted_run, gate_report
from tests.starlark_runtime.conftest import ENGINES
from transpiler.composite import run_composite
from transpiler.config.loader import LoadedTool, load_bytes
from transpiler.deviations import Deviation
from transpiler.emit import emit_tool
from transpiler.sim.scenario import Scenario, scenario_from_document

TOOL = """
compositeTools:
- name: probe
  description: Sends one template built from an optional parameter and a fetched field
  parameters:
    type: object
    properties:
      label: {type: string}
      note: {type: string}
    required: [label]
  steps:
  - id: fetch
    tool: svc.fetch
    arguments: {label: "{{.params.label}}"}
  - id: send
    tool: svc.send
    dependsOn: [fetch]
    arguments: {text: '%s'}
"""


def _tool(template: str) -> LoadedTool:
    load = load_bytes((TOOL % template).encode(), "probe.yaml")
    assert not load.errors, [d.render() for d in load.errors]
    return load.tools[0]


def _scenario(fetched: dict[str, Any]) -> Scenario:
    """``note`` left out, ``svc.fetch`` answering ``fetched``."""
    return scenario_from_document(
        {
            "params": {"label": "l"},
            "backends": {
                "svc.fetch": {"results": [{"structuredContent": fetched}]},
                "svc.send": {"results": [{"structuredContent": {}}]},
            },
        }
    )


def _sent(calls: Any) -> list[Any]:
    return [call.args["text"] for call in calls if call.tool == "svc.send"]


@pytest.mark.parametrize(
    ("template", "vmcp_sends"),
    [
        ("{{json .params.note}}", ["null"]),
        ('{{ne .params.note ""}}', ["true"]),
        ('{{eq .params.note ""}}', ["false"]),
        ("{{len .params.note}}", []),  # Go fails the step: len of a missing value
    ],
)
@pytest.mark.parametrize("engine", ENGINES)
def test_a_function_sees_a_missing_string_parameter_as_vmcp_does(
    template: str, vmcp_sends: list[str], engine: str
) -> None:
    tool, scenario = _tool(template), _scenario({})
    vmcp = run_composite(tool.effective, scenario)
    emitted, script = emitted_run(tool, scenario, "readable", engine)
    assert _sent(vmcp.calls) == vmcp_sends
    assert _sent(script.calls) == vmcp_sends
    assert script.outcome == vmcp.outcome
    assert 'params.get("note")' in emitted.script
    report = gate_report(tool, scenario, "readable", engine)
    assert report.passes(None), report.reason


def test_a_printed_missing_string_parameter_is_still_empty_text() -> None:
    tool = _tool("[{{.params.note}}]")
    emitted, script = emitted_run(tool, _scenario({}), "readable", "rust")
    assert 'params.get("note", "")' in emitted.script
    assert _sent(script.calls) == ["[]"]
    assert Deviation.MISSING_VALUE in emitted.declared


@pytest.mark.parametrize(
    ("template", "fetched", "vmcp_sends", "script_sends", "declared"),
    [
        (
            '{{printf "%v" .steps.fetch.output.value}}',
            {"value": None},
            "<nil>",
            "None",
            Deviation.MISSING_VALUE,
        ),
        ('{{printf "%v" .params.note}}', {}, "<nil>", "", Deviation.MISSING_VALUE),
        (
            '{{printf "%v" .steps.fetch.output.ok}}',
            {"ok": True},
            "true",
            "True",
            Deviation.VALUE_TEXT,
        ),
    ],
)
@pytest.mark.parametrize("engine", ENGINES)
def test_printf_of_a_null_or_a_boolean_prints_as_the_scripts_class_says(
    template: str,
    fetched: dict[str, Any],
    vmcp_sends: str,
    script_sends: str,
    declared: Deviation,
    engine: str,
) -> None:
    tool, scenario = _tool(template), _scenario(fetched)
    vmcp = run_composite(tool.effective, scenario)
    emitted, script = emitted_run(tool, scenario, "readable", engine)
    assert (_sent(vmcp.calls), _sent(script.calls)) == ([vmcp_sends], [script_sends])
    assert declared in emitted.declared
    report = gate_report(tool, scenario, "readable", engine)
    assert report.passes(None), report.reason


def test_printf_d_of_what_may_be_text_is_emitted_in_the_exact_style() -> None:
    tool = _tool('{{printf "%d" .steps.fetch.output.count}}')
    emitted = emit_tool(tool.effective, tool.origin.file, style="readable")
    assert emitted.style == "exact"
    assert any("%d of a value that may not be a number" in w.text for w in emitted.warnings)
    counted = _tool('{{printf "%d" (len .steps.fetch.output.items)}}')
    assert emit_tool(counted.effective, counted.origin.file, style="readable").style == "readable"


OUTPUT_TOOL = """
compositeTools:
- name: encoded
  description: Returns a fetched value as JSON text
  steps:
  - id: fetch
    tool: svc.fetch
  output:
    properties:
      v: {type: string, description: the value as JSON, value: "{{json .steps.fetch.output.value}}"}
"""


def test_json_text_in_a_string_output_is_declared_as_in_an_argument() -> None:
    (tool,) = load_bytes(OUTPUT_TOOL.encode(), "encoded.yaml").tools
    scenario = scenario_from_document(
        {"backends": {"svc.fetch": {"results": [{"structuredContent": {"value": "<a&b>"}}]}}}
    )
    emitted, script = emitted_run(tool, scenario, "readable", "rust")
    assert Deviation.JSON_TEXT in emitted.declared
    assert run_composite(tool.effective, scenario).output == {"v": '"\\u003ca\\u0026b\\u003e"'}
    assert script.output == {"v": '"<a&b>"'}
    report = gate_report(tool, scenario, "readable", "rust")
    assert report.passes(None), report.reason
