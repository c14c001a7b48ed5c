"""Random valid composite tools covering every construct, for testing the transpiler.

Tool, elicitation and forEach steps; ``dependsOn`` on earlier steps; templates
over parameters and earlier outputs (field chains, ``json``, ``eq``, ``if``,
``printf``, ``index``, ``len``); conditions; ``onError`` abort, continue
(with ``defaultResults``) and retry; elicitation handlers; forEach with
``itemVar`` and ``maxParallel``; an ``output`` block with every property type
and defaults, or none. Every generated tool passes vMCP's validation.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from hypothesis import strategies as st

from transpiler.config.model import STEP_KINDS, StepKind, exhaustive
from transpiler.harness.scenarios.shapes import CALLS

PARAMETERS = {
    "type": "object",
    "properties": {
        "who": {"type": "string"},
        "flag": {"type": "boolean"},
        "count": {"type": "integer"},
        "items": {"type": "array", "items": {"type": "string"}},
        "note": {"type": "string", "default": "none"},
    },
    "required": ["who", "flag"],
}
DEFAULTS = {"state": "unknown", "items": [], "n": 0}


def _reference(step: str) -> st.SearchStrategy[str]:
    return st.sampled_from(
        [
            f"{{{{.steps.{step}.output.state}}}}",
            f"{{{{json .steps.{step}.output.items}}}}",
            f'{{{{if eq .steps.{step}.output.state "ready"}}}}go{{{{else}}}}wait{{{{end}}}}',
            f'{{{{printf "%v-%v" .steps.{step}.output.n .params.who}}}}',
            f"{{{{.steps.{step}.status}}}}",
            f'{{{{index .steps "{step}" "output" "state"}}}}',
        ]
    )


PARAM_TEMPLATES = st.sampled_from(
    [
        "{{.params.who}}",
        "{{.params.count}}",
        "{{.params.note}}",
        "{{len .params.items}}",
        "hello {{.params.who}} ({{.params.flag}})",
        "{{json .params.items}}",
    ]
)


def _tool_step(
    draw: st.DrawFn, step: dict[str, Any], index: int, template: str, _readable: list[str]
) -> None:
    step["tool"] = f"svc.op{index}"
    step["arguments"] = {"value": template, "fixed": draw(st.sampled_from([1, "x", True]))}


def _elicitation_step(
    draw: st.DrawFn, step: dict[str, Any], _index: int, template: str, _readable: list[str]
) -> None:
    step["type"] = StepKind.ELICITATION.value
    step["message"] = f"Continue with {template}?"
    step["schema"] = {"type": "object", "properties": {"state": {"type": "string"}}}
    for handler in ("onDecline", "onCancel"):
        action = draw(st.sampled_from([None, "abort", "continue", "skip_remaining"]))
        if action is not None:
            step[handler] = {"action": action}


def _for_each_step(
    draw: st.DrawFn, step: dict[str, Any], index: int, _template: str, readable: list[str]
) -> None:
    source = (
        f"{{{{json .steps.{readable[0]}.output.items}}}}" if readable else "{{json .params.items}}"
    )
    step["type"] = StepKind.FOR_EACH.value
    step["collection"] = source
    step["itemVar"] = draw(st.sampled_from(["item", "entry"]))
    if draw(st.booleans()):
        step["maxParallel"] = 1
    step["step"] = {
        "id": f"{step['id']}_one",
        "tool": f"svc.each{index}",
        "arguments": {
            "item": f"{{{{.forEach.{step['itemVar']}}}}}",
            "at": "{{.forEach.index}}",
        },
    }


#: Each kind's own keys: (draw, step, index, a template, the earlier steps it may read).
_STEP_BODIES: Final[
    Mapping[StepKind, Callable[[st.DrawFn, dict[str, Any], int, str, list[str]], None]]
] = exhaustive(
    StepKind,
    {
        StepKind.TOOL: _tool_step,
        StepKind.ELICITATION: _elicitation_step,
        StepKind.FOR_EACH: _for_each_step,
    },
)


@st.composite
def workflows(draw: st.DrawFn) -> dict[str, Any]:
    """One vMCP config document with one composite tool."""
    count = draw(st.integers(1, 5))
    steps: list[dict[str, Any]] = []
    tool_steps: list[str] = []
    for index in range(count):
        step_id = f"s{index}"
        earlier = [s["id"] for s in steps]
        depends = (
            draw(st.lists(st.sampled_from(earlier), unique=True, max_size=2)) if earlier else []
        )
        readable = [s for s in tool_steps if s in depends]
        kind = draw(
            st.sampled_from([*[StepKind.TOOL] * 3, StepKind.ELICITATION, StepKind.FOR_EACH])
        )
        step: dict[str, Any] = {"id": step_id}
        if depends:
            step["dependsOn"] = depends
        template = (
            draw(st.one_of(PARAM_TEMPLATES, _reference(readable[0])))
            if readable
            else draw(PARAM_TEMPLATES)
        )
        _STEP_BODIES[kind](draw, step, index, template, readable)
        if CALLS[kind].answers:
            tool_steps.append(step_id)
        action = draw(st.sampled_from([None, "abort", "continue", "retry"]))
        if STEP_KINDS[kind].retries and action == "retry":
            step["onError"] = {
                "action": "retry",
                "retryCount": draw(st.integers(1, 3)),
                "retryDelay": "1s",
            }
        elif action in ("abort", "continue"):
            step["onError"] = {"action": action}
        if draw(st.booleans()):
            step["condition"] = draw(
                st.sampled_from(
                    ["{{.params.flag}}", "{{not .params.flag}}"]
                    + (
                        [f'{{{{eq .steps.{readable[0]}.output.state "ready"}}}}']
                        if readable
                        else []
                    )
                )
            )
        if "condition" in step or action == "continue":
            step["defaultResults"] = dict(DEFAULTS)
        steps.append(step)
    tool: dict[str, Any] = {
        "name": "generated",
        "description": "a generated workflow",
        "parameters": PARAMETERS,
        "steps": steps,
    }
    with_output: bool = draw(st.booleans())
    if tool_steps and with_output:
        tool["output"] = draw(_output(tool_steps[-1]))
    return {"compositeTools": [tool]}


def _output(step: str) -> st.SearchStrategy[dict[str, Any]]:
    properties = {
        "state": {
            "type": "string",
            "description": "state",
            "value": f"{{{{.steps.{step}.output.state}}}}",
        },
        "n": {
            "type": "integer",
            "description": "n",
            "value": f"{{{{.steps.{step}.output.n}}}}",
            "default": 0,
        },
        "ok": {"type": "boolean", "description": "ok", "value": '{{eq .params.who "main"}}'},
        "items": {
            "type": "array",
            "description": "items",
            "value": f"{{{{json .steps.{step}.output.items}}}}",
        },
        "nested": {
            "type": "object",
            "description": "nested",
            "properties": {
                "who": {"type": "string", "description": "who", "value": "{{.params.who}}"}
            },
        },
    }
    return st.sets(st.sampled_from(sorted(properties)), min_size=1).map(
        lambda names: {"properties": {name: properties[name] for name in sorted(names)}}
    )
