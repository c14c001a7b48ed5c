"""What differs, field by field: the argument path or output property and both values, never
the whole calls or results."""

from __future__ import annotations

from typing import Any

from transpiler.harness.judging.fields import FieldDifference, field_differences
from transpiler.sim.trace import CallRecord, ElicitationRecord, Trace


def _call(tool: str, args: Any, step: str | None = None, attempt: int = 1) -> CallRecord:
    return CallRecord(tool, args, attempt, 0, 0, "main", "ok", step)


def _trace(
    output: Any = None,
    calls: tuple[CallRecord, ...] = (),
    elicitations: tuple[ElicitationRecord, ...] = (),
    error: str | None = None,
) -> Trace:
    if error is not None:
        result = {"content": [{"type": "text", "text": error}], "isError": True}
        return Trace("x", "error", result, None, error, list(calls), list(elicitations))
    result = {"content": [{"type": "text", "text": "{}"}], "structuredContent": output}
    return Trace("x", "success", result, output, None, list(calls), list(elicitations))


def test_an_argument_that_differs_is_named_by_its_path_with_both_values() -> None:
    vmcp = _trace({}, (_call("gh.merge", {"method": "squash", "n": "1", "o": {"a": 1}}, "merge"),))
    script = _trace({}, (_call("gh.merge", {"method": "rebase", "n": "1", "o": {"a": 1.0}}),))
    assert field_differences(vmcp, script) == (
        FieldDifference("arguments.method", '"squash"', '"rebase"', "gh.merge", "merge"),
    )
    (found,) = field_differences(vmcp, script)
    assert found.lines() == [
        "arguments.method of the call to gh.merge (step merge):",
        '  vMCP:   "squash"',
        '  script: "rebase"',
    ]


def test_an_output_property_that_differs_is_named_by_its_path() -> None:
    vmcp = _trace({"commit": "a", "deployment": {"status": "true", "url": "u"}})
    script = _trace({"commit": "a", "deployment": {"status": True}})
    assert field_differences(vmcp, script) == (
        FieldDifference("output.deployment.status", '"true"', "true"),
        FieldDifference("output.deployment.url", '"u"', "absent"),
    )
    assert field_differences(vmcp, script)[0].output == ("deployment", "status")


def test_a_call_only_one_side_made_is_one_field_naming_the_workflow_s_step() -> None:
    vmcp = _trace({}, (_call("a.one", {}, "first"), _call("b.two", {"x": 1}, "second")))
    script = _trace({}, (_call("a.one", {}), _call("c.three", {})))
    assert field_differences(vmcp, script) == (
        FieldDifference("call", 'made with {"x": 1}', "not made", "b.two", "second"),
        FieldDifference("call", "not made", "made with {}", "c.three", None),
    )
    assert field_differences(vmcp, script)[0].head() == "the call to b.two (step second)"


def test_the_outcome_then_elicitations_by_position() -> None:
    asked = ElicitationRecord("Deploy #1?", {"type": "object"}, "accept", "approval")
    vmcp = _trace({"a": 1}, elicitations=(asked,))
    script = _trace(
        error="boom", elicitations=(ElicitationRecord("Deploy 1?", {"type": "object"}, "accept"),)
    )
    found = field_differences(vmcp, script)
    assert [f.field for f in found] == ["outcome", "elicitation 1.message"]
    assert (found[0].vmcp, found[0].script) == ("success", "error: boom")
    assert found[1].head() == "elicitation 1.message (step approval)"


def test_alike_runs_have_no_field_apart() -> None:
    call = _call("a.one", {"n": 1}, "first")
    assert field_differences(_trace({"n": 1}, (call,)), _trace({"n": 1.0}, (call,))) == ()
