"""Rules whose inputs are too large or too unusual for corpus files (built inline here)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from tests.composite.helpers import scenario, tool
from transpiler.composite import run_composite, run_composite_schedules
from transpiler.composite.errors import GoError
from transpiler.composite.expand import Expander
from transpiler.composite.gocontext import GoContext
from transpiler.composite.output import construct_output
from transpiler.composite.quirks import QuirkLog
from transpiler.composite.state import WorkflowMetadata, WorkflowState
from transpiler.config.model import ElicitationResponseConfig, OutputConfig, OutputProperty
from transpiler.golang.values import NIL_MAP
from transpiler.sim.backends import BackendAnswer, SimulatedBackends
from transpiler.sim.kernel import Kernel
from transpiler.sim.schedule import CANONICAL

ECHO = "backends: {echo: {results: [{structuredContent: {ok: true}}]}}"


def test_S72_template_output_over_10_MiB_fails_the_expansion() -> None:
    megabyte = "x" * (1024 * 1024)
    composite = tool(
        """
        name: big
        description: d
        steps:
        - id: big
          tool: echo
          arguments: {v: "%s"}
        """
        % ("{{.params.s}}" * 11)
    )
    trace = run_composite(composite, scenario(ECHO, params={"s": megabyte}))
    assert trace.error == (
        "level execution failed: template expansion failed: failed to expand arguments for step "
        f'big: failed to expand value for key "v": template output too large: {11 * len(megabyte)} '
        "bytes (max 10485760)"
    )
    assert trace.calls == []


def test_S72_the_output_limit_is_a_template_failure_continue_swallows_without_defaults() -> None:
    """Exactly 10485760 bytes pass; one more chunk fails the step, which ``continue`` records
    failed with no ``defaultResults`` (template_expander.go:184, S102)."""
    composite = tool(
        """
        name: big
        description: d
        steps:
        - id: huge
          tool: echo
          arguments: {v: '{{range .params.more}}{{printf "%01048576d" 0}}{{end}}'}
          onError: {action: continue}
          defaultResults: {v: fallback}
        - id: fits
          tool: echo
          arguments: {v: '{{range .params.ten}}{{printf "%01048576d" 0}}{{end}}'}
        """
    )
    trace = run_composite(composite, scenario(ECHO, params={"ten": [0] * 10, "more": [0] * 11}))
    assert trace.outcome == "success" and len(trace.calls) == 1
    assert trace.steps is not None
    huge = trace.steps["huge"]
    assert huge.status == "failed" and huge.output is NIL_MAP
    assert huge.error == (
        "template expansion failed: failed to expand arguments for step huge: failed to expand "
        'value for key "v": template output too large: 11534336 bytes (max 10485760)'
    )
    assert trace.steps["fits"].status == "completed"


def test_S72_a_cancelled_context_fails_expansion_before_each_value() -> None:
    """An iteration may take a slot after its loop was cancelled (Go's select picks either)."""
    composite = tool(
        """
        name: loop
        description: d
        steps:
        - id: loop
          type: forEach
          collection: '["a", "b"]'
          maxParallel: 1
          step: {id: inner, tool: scan, arguments: {name: "{{.forEach.item}}"}}
        """
    )
    world = scenario(
        "backends: {scan: {results: [{when: {name: a}, transportError: bad}, "
        "{structuredContent: {ok: true}}]}}"
    )
    errors = {
        iteration.get("error")
        for trace in run_composite_schedules(composite, world, "all")
        for iteration in trace.steps["loop"].output["iterations"]  # type: ignore[index]
    }
    assert (
        'template expansion failed: failed to expand value for key "name": '
        "context cancelled during template expansion: context canceled"
    ) in errors
    assert "context canceled" in errors


def test_S80_values_deeper_than_100_levels_fail() -> None:
    nested = "v"
    for _ in range(101):
        nested = f"{{k: {nested}}}"
    composite = tool(
        f"""
        name: deep
        description: d
        steps:
        - id: deep
          tool: echo
          arguments: {{top: {nested}}}
        """
    )
    trace = run_composite(composite, scenario(ECHO))
    assert trace.error is not None
    assert trace.error.endswith(
        'failed to expand nested key "k": template expansion depth limit exceeded: 100'
    )
    assert trace.error.count('failed to expand nested key "k"') == 101


def test_S86_a_nil_result_fails_the_attempt(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        SimulatedBackends, "call", lambda self, name, args: BackendAnswer(None, None, 0)
    )
    composite = tool("name: t\ndescription: d\nsteps: [{id: s, tool: echo}]")
    trace = run_composite(composite, scenario(ECHO))
    assert trace.error == (
        "level execution failed: tool call failed: tool echo in step s: nil tool result for step s"
    )
    assert [call.result for call in trace.calls] == ["transport"]


def _json_size(value: object) -> int:
    return len(json.dumps(value, separators=(",", ":")))


def test_S121_a_schema_over_100_KiB_is_refused_before_asking() -> None:
    schema = {"type": "object", "description": "d" * 110_000}
    composite = tool(
        f"""
        name: ask
        description: d
        steps:
        - id: ask
          type: elicitation
          message: hi
          schema: {json.dumps(schema)}
        """
    )
    trace = run_composite(composite, scenario(elicitations=[{"action": "accept"}]))
    assert trace.elicitations == []
    assert trace.steps is not None and trace.steps["ask"].error == (
        "elicitation request failed for step ask: invalid schema for step ask: "
        f"schema too large: {_json_size(schema)} bytes (max 102400)"
    )


def test_S123_an_accepted_content_over_1_MiB_fails_the_step() -> None:
    composite = tool(
        "name: ask\ndescription: d\nsteps: [{id: ask, type: elicitation, message: hi, "
        "schema: {type: object}}]"
    )
    content = {"blob": "b" * (1024 * 1024)}
    trace = run_composite(
        composite, scenario(elicitations=[{"action": "accept", "content": content}])
    )
    assert trace.error == (
        "level execution failed: elicitation request failed for step ask: invalid response "
        f"content for step ask: response content too large: {_json_size(content)} bytes "
        "(max 1048576)"
    )


def test_S125_an_unknown_handler_action_fails_the_step() -> None:
    """Only the CRD path can carry such an action (the CLI validator rejects it)."""
    composite = tool(
        "name: ask\ndescription: d\nsteps: [{id: ask, type: elicitation, message: hi, "
        "schema: {type: object}, onDecline: {action: abort}}]"
    )
    step = dataclasses.replace(
        composite.steps[0], on_decline=ElicitationResponseConfig(action="bogus")
    )
    composite = dataclasses.replace(composite, steps=(step,))
    trace = run_composite(composite, scenario(elicitations=[{"action": "decline"}]))
    assert trace.error == "level execution failed: invalid elicitation action: bogus"


def _construct(config: OutputConfig) -> object:
    state = WorkflowState({}, WorkflowMetadata("id", "2026-01-01T00:00:00Z"))
    kernel = Kernel()
    expander = Expander(state, CANONICAL, QuirkLog())
    return construct_output(config, expander, GoContext(kernel.context()))


def test_S154_required_fields_are_checked_after_construction() -> None:
    """P4 makes this unreachable from config; the engine still checks it."""
    value = OutputProperty(type="string", description="d", value="v")
    config = OutputConfig(properties={"present": value}, required=("present", "absent"))
    assert _construct(config) == GoError('required output field "absent" is missing')


def test_S151_a_property_without_value_or_properties_fails() -> None:
    config = OutputConfig(properties={"empty": OutputProperty(type="string", description="d")})
    assert _construct(config) == GoError(
        'failed to construct output property "empty": property "empty" has neither value nor '
        "properties"
    )
