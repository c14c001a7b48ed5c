"""Each deviation class's variants as switches of the model: the run a script taking them makes.

One test per variant (``transpiler/deviations.py`` lists them; ``transpiler/composite/variants.py``
implements them): the run under the variant, beside vMCP's run of the same scenario.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest

from tests.composite.helpers import scenario, tool
from transpiler.composite import run_composite
from transpiler.composite.script_text import json_text, starlark_text
from transpiler.composite.variants import SiteKey, Variants
from transpiler.deviations import RUN_ID_PLACEHOLDER, START_TIME_PLACEHOLDER, Deviation
from transpiler.gobuild import go_available
from transpiler.golang.jsondec import unmarshal
from transpiler.sim.scenario import Scenario
from transpiler.sim.trace import Trace
from transpiler.starlark_runtime import run_starlark

ECHO = """
name: t
description: d
steps:
  - id: a
    tool: svc.a
  - id: b
    tool: svc.b
    dependsOn: [a]
    arguments: {text: '%s'}
"""


def _echo_world(a: Any) -> Scenario:
    backends = {
        "svc.a": {"results": [{"structuredContent": a}]},
        "svc.b": {"results": [{"structuredContent": {}}]},
        "svc.c": {"results": [{"structuredContent": {}}]},
    }
    return scenario(backends=backends)


def _run(text: str, a: Any, chosen: Mapping[SiteKey, str]) -> Trace:
    return run_composite(tool(text), _echo_world(a), variants=Variants(chosen))


def _sent(text: str, a: Any, chosen: Mapping[SiteKey, str]) -> Any:
    trace = _run(ECHO % text, a, chosen)
    return [call.args["text"] for call in trace.calls if call.tool == "svc.b"]


def at_b(class_id: Deviation) -> SiteKey:
    """``class_id`` at step b's argument ``text``."""
    return (class_id, "b", "arguments.text")


def test_every_variant_has_a_test_here() -> None:
    tested = {
        (Deviation.MISSING_VALUE, "stop"),
        (Deviation.MISSING_VALUE, "empty"),
        (Deviation.MISSING_VALUE, "none"),
        (Deviation.MISSING_VALUE, "default"),
        (Deviation.NUMBER_TEXT, "digits"),
        (Deviation.VALUE_TEXT, "starlark"),
        (Deviation.VALUE_TEXT, "json"),
        (Deviation.ERROR_TEXT, "own-text"),
        (Deviation.SKIP_REMAINING, "return"),
        (Deviation.OUTPUT_RENDERING, "as-is"),
        (Deviation.OUTPUT_RENDERING, "decoded"),
        (Deviation.CONDITION_TEXT, "truth"),
        (Deviation.LAST_STEP_RACE, "final"),
        (Deviation.WORKFLOW_METADATA, "placeholders"),
        (Deviation.PARALLEL_CAP, "cap"),
        (Deviation.TEMPLATE_ERROR, "stop"),
        (Deviation.TEMPLATE_ERROR, "plain"),
        (Deviation.JSON_TEXT, "encode"),
        (Deviation.ARGUMENT_COERCION, "as-is"),
        (Deviation.STEP_TIMEOUT, "per-call"),
        (Deviation.RUST_ENGINE, "starlark-rust"),
    }
    assert tested == {(c, v.name) for c in Deviation for v in c.about.variants}


def test_missing_value_stop_ends_the_run_there_in_the_scripts_words() -> None:
    trace = _run(ECHO % "{{.steps.a.output.x}}", {}, {at_b(Deviation.MISSING_VALUE): "stop"})
    assert trace.outcome == "error" and trace.any_error_text
    assert trace.stopped_at == at_b(Deviation.MISSING_VALUE)
    assert [call.tool for call in trace.calls] == ["svc.a"]
    vmcp = _run(ECHO % "{{.steps.a.output.x}}", {}, {})
    assert vmcp.outcome == "success" and not vmcp.any_error_text


@pytest.mark.parametrize(("variant", "text"), [("empty", "id "), ("none", "id None")])
def test_missing_value_prints_as_empty_or_none(variant: str, text: str) -> None:
    chosen = {at_b(Deviation.MISSING_VALUE): variant}
    assert _sent("id {{.steps.a.output.x}}", {}, chosen) == [text]
    assert _sent("id {{.steps.a.output.x}}", {}, {}) == ["id <no value>"]


def test_an_absent_field_and_a_null_one_are_two_sites() -> None:
    chosen: dict[SiteKey, str] = {(Deviation.MISSING_VALUE, "b", "arguments.text (null)"): "empty"}
    assert _sent("{{.steps.a.output.x}}", {"x": None}, chosen) == [""]
    assert _sent("{{.steps.a.output.x}}", {}, chosen) == ["<no value>"]


OUTPUT = """
name: t
description: d
steps:
  - id: a
    tool: svc.a
output:
  properties:
    v: {type: %s, description: d, value: '%s'%s}
"""


def _output(
    kind: str, value: str, a: Any, chosen: Mapping[SiteKey, str], default: str = ""
) -> Trace:
    text = OUTPUT % (kind, value, f", default: {default}" if default else "")
    backends = {"svc.a": {"results": [{"structuredContent": a}]}}
    return run_composite(tool(text), scenario(backends=backends), variants=Variants(chosen))


def test_missing_value_default_gives_an_output_its_default() -> None:
    site = (Deviation.MISSING_VALUE, None, "output.v")
    vmcp = _output("string", "x{{.steps.a.output.x}}", {}, {}, default="fallback")
    chosen = _output("string", "x{{.steps.a.output.x}}", {}, {site: "default"}, "fallback")
    assert vmcp.output == {"v": "x<no value>"} and chosen.output == {"v": "fallback"}


def test_missing_value_none_of_a_lone_value_is_null_in_an_output() -> None:
    site = (Deviation.MISSING_VALUE, None, "output.v")
    assert _output("string", "{{.steps.a.output.x}}", {}, {site: "none"}).output == {"v": None}
    # inside text it is the text None, as the docs say, not a null output
    inside = _output("string", "x{{.steps.a.output.x}}", {}, {site: "none"})
    assert inside.output == {"v": "xNone"}


def test_missing_value_none_of_a_lone_value_is_its_text_in_an_argument() -> None:
    """An argument is text: the one missing value prints as ``None``, what ``str()`` of it
    gives, as the variant's text says."""
    chosen = {at_b(Deviation.MISSING_VALUE): "none"}
    assert _sent("{{.steps.a.output.x}}", {}, chosen) == ["None"]
    null: dict[SiteKey, str] = {(Deviation.MISSING_VALUE, "b", "arguments.text (null)"): "none"}
    assert _sent("{{.steps.a.output.x}}", {"x": None}, null) == ["None"]


def test_number_text_digits() -> None:
    chosen = {at_b(Deviation.NUMBER_TEXT): "digits"}
    assert _sent("{{.steps.a.output.n}}", {"n": 1500000}, chosen) == ["1500000"]
    assert _sent("{{.steps.a.output.n}}", {"n": 1500000}, {}) == ["1.5e+06"]


@pytest.mark.parametrize(
    ("variant", "text"),
    [("starlark", '{"b": True, "a": [1, "x"]}'), ("json", '{"a":[1,"x"],"b":true}')],
)
def test_value_text_prints_as_starlark_or_json(variant: str, text: str) -> None:
    value = {"b": True, "a": [1, "x"]}
    assert _sent("{{.steps.a.output.m}}", {"m": value}, {at_b(Deviation.VALUE_TEXT): variant}) == [
        text
    ]
    assert _sent("{{.steps.a.output.m}}", {"m": value}, {}) == ["map[a:[1 x] b:true]"]


@pytest.mark.parametrize(
    ("template", "a", "chosen", "vmcp", "script"),
    [
        ('{{printf "%v" .steps.a.output.x}}', {"x": None}, "none", "<nil>", "None"),
        ('{{printf "%s" .steps.a.output.x}}', {"x": None}, "none", "%!s(<nil>)", "None"),
        ('{{printf "%v" .steps.a.output.x}}', {}, "empty", "<nil>", ""),
        ('{{printf "%v" .steps.a.output.b}}', {"b": True}, "starlark", "true", "True"),
        ('{{printf "%s" .steps.a.output.l}}', {"l": [1]}, "json", "[%!s(float64=1)]", "[1]"),
        ('{{printf "%d" .steps.a.output.n}}', {"n": 3}, "starlark", "%!d(float64=3)", "3"),
        ('{{printf "%v" .steps.a.output.n}}', {"n": 1500000}, "digits", "1.5e+06", "1500000"),
    ],
)
def test_printf_operands_print_as_the_variant_prints_them(
    template: str, a: Any, chosen: str, vmcp: str, script: str
) -> None:
    """A readable script formats ``printf``'s operands with ``%``: each prints as the variant
    chosen at the site prints it (``%d`` of a whole number as its digits)."""
    classes = {
        "none": Deviation.MISSING_VALUE,
        "empty": Deviation.MISSING_VALUE,
        "starlark": Deviation.VALUE_TEXT,
        "json": Deviation.VALUE_TEXT,
        "digits": Deviation.NUMBER_TEXT,
    }
    place = "arguments.text (null)" if a.get("x", 0) is None else "arguments.text"
    site = (classes[chosen], "b", place)
    assert _sent(template, a, {}) == [vmcp]
    assert _sent(template, a, {site: chosen}) == [script]


def test_starlark_and_json_text_follow_go_starlark() -> None:
    assert starlark_text({"k": ["é\n", None, 2.5]}) == '{"k": ["é\\n", None, 2.5]}'
    assert json_text({"z": "<b>", "a": "é"}) == '{"a":"é","z":"<b>"}'
    assert json_text({"t": "<é>"}) == '{"t":"\\u003cé\\u003e"}'


def test_error_text_own_text_lets_a_failure_carry_any_text() -> None:
    backends = {"svc.a": {"results": [{"transportError": "reset"}]}, "svc.b": {"results": []}}
    text = ECHO % "x"
    site = (Deviation.ERROR_TEXT, None, "result")
    own_text = Variants({site: "own-text"})
    chosen = run_composite(tool(text), scenario(backends=backends), variants=own_text)
    vmcp = run_composite(tool(text), scenario(backends=backends))
    assert chosen.any_error_text and not vmcp.any_error_text
    assert chosen.client_result == vmcp.client_result


SKIP = """
name: t
description: d
steps:
  - id: ask
    type: elicitation
    message: go?
    schema: {type: object, properties: {}}
    onDecline: {action: skip_remaining}
  - id: later
    tool: svc.a
    dependsOn: [ask]
    defaultResults: {done: false}
output:
  properties:
    done: {type: boolean, description: d, value: '{{.steps.later.output.done}}'}
"""


def test_skip_remaining_return_skips_every_step_not_started() -> None:
    world = scenario(
        backends={"svc.a": {"results": [{"structuredContent": {"done": True}}]}},
        elicitations=[{"action": "decline"}],
    )
    site = (Deviation.SKIP_REMAINING, "ask", "onDecline")
    chosen = run_composite(tool(SKIP), world, variants=Variants({site: "return"}))
    vmcp = run_composite(tool(SKIP), world)
    assert [c.tool for c in vmcp.calls] == ["svc.a"] and vmcp.output == {"done": True}
    assert chosen.calls == [] and chosen.output == {"done": False}


def test_output_rendering_as_is_and_decoded() -> None:
    site = (Deviation.OUTPUT_RENDERING, None, "output.v")
    assert _output("integer", "{{.steps.a.output.n}}", {"n": "7x"}, {}).outcome == "error"
    as_is = _output("integer", "{{.steps.a.output.n}}", {"n": "7x"}, {site: "as-is"})
    assert as_is.output == {"v": "7x"}
    decoded = _output("array", "{{.steps.a.output.j}}", {"j": "[1]"}, {site: "decoded"})
    assert decoded.output == {"v": [1.0]}
    stopped = _output("array", "{{.steps.a.output.j}}", {"j": []}, {site: "decoded"})
    assert stopped.stopped_at == site and stopped.outcome == "error"


CONDITION = """
name: t
description: d
steps:
  - id: a
    tool: svc.a
  - id: b
    tool: svc.b
    dependsOn: [a]
    condition: '{{.steps.a.output.flag}}'
"""


@pytest.mark.parametrize(("flag", "called"), [("yes", True), ("", False), (None, False)])
def test_condition_text_truth(flag: Any, called: bool) -> None:
    backends = {
        "svc.a": {"results": [{"structuredContent": {"flag": flag}}]},
        "svc.b": {"results": [{"structuredContent": {}}]},
    }
    site = (Deviation.CONDITION_TEXT, "b", "condition")
    chosen = run_composite(
        tool(CONDITION), scenario(backends=backends), variants=Variants({site: "truth"})
    )
    assert ("svc.b" in [c.tool for c in chosen.calls]) is called
    assert run_composite(tool(CONDITION), scenario(backends=backends)).outcome == "error"


RACE = """
name: t
description: d
steps:
  - id: a
    tool: svc.a
  - id: b
    tool: svc.b
    condition: '{{eq .params.go "yes"}}'
"""


def test_last_step_race_final_returns_the_final_steps_output() -> None:
    backends = {
        "svc.a": {"results": [{"structuredContent": {"from": "a"}}]},
        "svc.b": {"results": [{"structuredContent": {"from": "b"}}]},
    }
    world = scenario(backends=backends, params={"go": "no"})
    site = (Deviation.LAST_STEP_RACE, None, "result")
    assert run_composite(tool(RACE), world).output == {"from": "a"}
    final = run_composite(tool(RACE), world, variants=Variants({site: "final"}))
    assert final.client_result["content"][0]["text"] == "null"  # b was skipped: no output


def test_workflow_metadata_placeholders() -> None:
    chosen = {at_b(Deviation.WORKFLOW_METADATA): "placeholders"}
    text = "{{.workflow.id}} {{.workflow.start_time}}"
    assert _sent(text, {}, chosen) == [f"{RUN_ID_PLACEHOLDER} {START_TIME_PLACEHOLDER}"]
    assert _sent(text, {}, {}) != _sent(text, {}, chosen)


LOOP = """
name: t
description: d
steps:
  - id: each
    type: forEach
    collection: '[1, 2, 3]'
    maxParallel: 1
    step:
      id: one
      tool: svc.a
      arguments: {n: '{{.forEach.item}}'}
"""


def test_parallel_cap_runs_up_to_ten_iterations_at_once() -> None:
    failing = {"svc.a": {"results": [{"transportError": "reset", "delay": "1s"}]}}
    world = scenario(backends=failing)
    site = (Deviation.PARALLEL_CAP, "each", "forEach")
    vmcp = run_composite(tool(LOOP), world)
    capped = run_composite(tool(LOOP), world, variants=Variants({site: "cap"}))
    assert len(vmcp.calls) == 1 and len(capped.calls) == 3
    assert (site[0], site[1], site[2]) in {(e.deviation, e.step, e.site) for e in vmcp.quirks}


CONTINUING = """
name: t
description: d
steps:
  - id: a
    tool: svc.a
  - id: b
    tool: svc.b
    dependsOn: [a]
    arguments: {text: '%s'}
    onError: {action: continue}
  - id: c
    tool: svc.c
    dependsOn: [b]
"""


def _continuing(text: str, a: Any, chosen: Mapping[SiteKey, str]) -> Trace:
    return _run(CONTINUING % text, a, chosen)


#: Go's ``eq`` of a JSON number and an integer literal is a type error; Starlark's ``==`` is not.
COMPARES = "{{if eq .steps.a.output.n 3}}three{{else}}other{{end}}"


def test_template_error_stop_ends_the_run_whatever_on_error_says() -> None:
    vmcp = _continuing(COMPARES, {"n": 3}, {})
    assert vmcp.outcome == "success" and [c.tool for c in vmcp.calls] == ["svc.a", "svc.c"]
    stopped = _continuing(COMPARES, {"n": 3}, {at_b(Deviation.TEMPLATE_ERROR): "stop"})
    assert stopped.outcome == "error" and stopped.any_error_text
    assert stopped.stopped_at == at_b(Deviation.TEMPLATE_ERROR)
    assert [c.tool for c in stopped.calls] == ["svc.a"]


def test_template_error_plain_compares_as_starlark_and_stops_on_what_still_fails() -> None:
    chosen = {at_b(Deviation.TEMPLATE_ERROR): "plain"}
    assert _sent(COMPARES, {"n": 3}, chosen) == ["three"]
    assert _sent(COMPARES, {"n": 4}, chosen) == ["other"]
    assert _sent("{{if eq .steps.a.output.s 3}}three{{else}}other{{end}}", {"s": "x"}, chosen) == [
        "other"
    ]  # values of different types are unequal
    ordered = _continuing("{{if lt .steps.a.output.s 3}}less{{end}}", {"s": "x"}, chosen)
    assert ordered.outcome == "error" and ordered.stopped_at == at_b(Deviation.TEMPLATE_ERROR)
    assert _sent(COMPARES, {"n": 3}, {}) == []  # vMCP: the step fails, nothing is sent


def test_json_text_encode_writes_what_json_encode_writes() -> None:
    value = {"t": "<b>&", "a": 1}
    encoded = _sent(
        "{{json .steps.a.output.m}}", {"m": value}, {at_b(Deviation.JSON_TEXT): "encode"}
    )
    assert encoded == ['{"a":1,"t":"<b>&"}']
    assert _sent("{{json .steps.a.output.m}}", {"m": value}, {}) == [
        '{"a":1,"t":"\\u003cb\\u003e\\u0026"}'
    ]


def test_argument_coercion_as_is_sends_the_printed_value() -> None:
    def sent(value: Any, chosen: Mapping[SiteKey, str]) -> Any:
        backends = {
            "svc.a": {"results": [{"structuredContent": {"n": value}}]},
            "svc.b": {
                "results": [{"structuredContent": {}}],
                "inputSchema": {"type": "object", "properties": {"text": {"type": "integer"}}},
            },
        }
        trace = run_composite(
            tool(ECHO % "{{.steps.a.output.n}}"),
            scenario(backends=backends),
            variants=Variants(chosen),
        )
        return [call.args["text"] for call in trace.calls if call.tool == "svc.b"]

    as_is = {at_b(Deviation.ARGUMENT_COERCION): "as-is"}
    assert sent(1.5, {}) == ["1.5"] and sent(1.5, as_is) == [1.5]
    assert sent("15", {}) == [15] and sent("15", as_is) == ["15"]
    assert sent(15, {}) == [15] and sent(15, as_is) == [15]


#: Values whose text go.starlark.net writes its own way (DEL, non-ASCII, HTML characters, line
#: separators, key order, whole floats, exponents, big whole numbers).
TRICKY = [
    "plain",
    ";8\x7f;7",
    "é<b>&",
    "a\u2028b",
    "tab\there",
    {"z": 1, "a": [True, None, "x"]},
    [1.5, 1e21, 1e-7, 2.0, 123456789012345678],
    {"n": {"b": False, "a": {}}},
]


@pytest.mark.go
def test_starlark_and_json_text_are_what_go_starlark_writes() -> None:
    """The variants' text helpers against go.starlark.net itself (what vMCP embeds)."""
    if not go_available(needs_starlark=True):
        pytest.skip("LOUD SKIP: go.starlark.net is not installed (./dev installs it)")
    script = (
        "def run(params):\n"
        '    values = params["values"]\n'
        '    return {"json": [json.encode(v) for v in values], "text": [str(v) for v in values]}\n'
    )
    trace = run_starlark(script, scenario(params={"values": TRICKY}), engine="go")
    assert trace.outcome == "success", trace.output
    held = unmarshal(json.dumps(TRICKY))  # as the model holds them: Go's JSON values
    assert trace.output == {
        "json": [json_text(value) for value in held],
        "text": [starlark_text(value) for value in held],
    }


SLOW = """
name: t
description: d
steps:
  - id: a
    tool: svc.a
    timeout: %s
"""


def _slow(timeout: str, delay: str, chosen: Mapping[SiteKey, str]) -> Trace:
    backends = {"svc.a": {"results": [{"structuredContent": {"x": 1}, "delay": delay}]}}
    world = scenario(backends=backends)
    return run_composite(tool(SLOW % timeout), world, variants=Variants(chosen))


PER_CALL: dict[SiteKey, str] = {(Deviation.STEP_TIMEOUT, "a", "timeout"): "per-call"}


def test_step_timeout_per_call_lets_a_call_run_past_the_steps_timeout() -> None:
    vmcp = _slow("30s", "31s", {})
    assert vmcp.client_result["content"][0]["text"] == "Workflow execution timeout exceeded"
    assert (Deviation.STEP_TIMEOUT, "a", "timeout") in [
        (q.deviation, q.step, q.site) for q in vmcp.quirks
    ]
    script = _slow("30s", "31s", PER_CALL)
    assert script.outcome == "success" and script.output == {"x": 1}


def test_step_timeout_per_call_cuts_a_call_at_five_minutes_as_an_ordinary_failure() -> None:
    assert _slow("10m", "5m1s", {}).outcome == "success"
    script = _slow("10m", "5m1s", PER_CALL)
    assert script.outcome == "error"
    assert script.client_result["content"][0]["text"].startswith("Workflow execution failed: ")
    assert script.calls[0].end_ns == 5 * 60 * 1_000_000_000


#: Templates at step b's argument, what step a answers, the other variants taken at the site,
#: and the script's expression (of ``v``, step a's answer's ``v``) that writes the same text.
RUST_CASES: list[tuple[str, Any, dict[Deviation, str], str]] = [
    ("{{.steps.a.output.v}}", 1234567.8, {}, "str(v)"),
    ("{{.steps.a.output.v}}", 0.00001, {}, "str(v)"),
    ("n={{.steps.a.output.v}}", 123456789.5, {}, '"n=%s" % v'),
    (
        "{{.steps.a.output.v}}",
        {"b": ["é\x07", 1.5e-7]},
        {Deviation.VALUE_TEXT: "starlark"},
        "str(v)",
    ),
    (
        "{{.steps.a.output.v}}",
        {"b": "<é>", "a": 1e21},
        {Deviation.VALUE_TEXT: "json"},
        "json.encode(v)",
    ),
    (
        "{{json .steps.a.output.v}}",
        {"z": "é&", "a": 1234567.8},
        {Deviation.JSON_TEXT: "encode"},
        "json.encode(v)",
    ),
    ("{{len .steps.a.output.v}}", "héllo", {}, "str(len(v))"),
    ('{{printf "%v of %d" .steps.a.output.v 3}}', 2.5e-5, {}, '"%s of %d" % (v, 3)'),
]


@pytest.mark.parametrize(("template", "value", "others", "expression"), RUST_CASES)
def test_rust_engine_starlark_rust_writes_what_starlark_rust_writes(
    template: str, value: Any, others: dict[Deviation, str], expression: str
) -> None:
    """The variant at its site gives, byte for byte, what the script's expression gives on
    starlark-rust; vMCP's behaviour, and every run on go.starlark.net, give vMCP's text."""
    chosen = {at_b(c): v for c, v in others.items()}
    rust = {**chosen, at_b(Deviation.RUST_ENGINE): "starlark-rust"}
    (model,) = _sent(template, {"v": value}, rust)
    script = f'def run(params):\n    v = params["v"]\n    return {{"t": {expression}}}\n'
    ran = run_starlark(script, scenario(params={"v": value}), engine="rust")
    assert ran.output == {"t": model}
    (vmcp,) = _sent(template, {"v": value}, chosen)
    assert vmcp != model
    trace = _run(ECHO % template, {"v": value}, rust)
    fired = [(q.deviation, q.step, q.site) for q in trace.quirks]
    assert at_b(Deviation.RUST_ENGINE) in fired
    on_go = run_composite(
        tool(ECHO % template), _echo_world({"v": value}), variants=Variants(rust).on("go")
    )
    assert [c.args["text"] for c in on_go.calls if c.tool == "svc.b"] == [vmcp]
