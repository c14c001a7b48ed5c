"""Deliberate emitter bugs (mutants) must not survive the harness, in either style.

Each mutant edits the emitted script the way a plausible emitter bug would;
``check``, excusing only what the script declares, must find a scenario where
the mutant differs from the workflow. Library mutants edit the
``vmcp_compat.star`` an exact script loads (the harness must run the modules
the emit result gives, not a copy of its own).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from transpiler.config.loader import load_bytes
from transpiler.config.units import LoadedTool
from transpiler.emit import emit_tool
from transpiler.emit.library import LIBRARY_NAME
from transpiler.harness.judging.verdict import Verdict
from transpiler.harness.running.check import CheckOptions, check_tool

WORKFLOW = b"""
compositeTools:
- name: mutant_target
  description: Every construct a mutant below breaks
  parameters:
    type: object
    properties:
      who: {type: string}
      note: {type: string}
    required: [who]
  steps:
  - id: fetch
    tool: svc.fetch
    arguments: {who: "{{.params.who}}", note: "{{.params.note}}"}
    onError: {action: retry, retryCount: 3, retryDelay: 1s}
  - id: ask
    type: elicitation
    dependsOn: [fetch]
    message: "Go on with {{.params.who}}?"
    schema: {type: object, properties: {ok: {type: boolean}}}
    onDecline: {action: abort}
    onCancel: {action: continue}
  - id: maybe
    tool: svc.maybe
    dependsOn: [ask]
    condition: '{{eq .steps.fetch.output.state "ready"}}'
    arguments: {first: "{{.params.who}}", second: "{{.steps.fetch.output.state}}"}
    defaultResults: {value: fallback}
  - id: notify
    tool: svc.notify
    dependsOn: [maybe]
    arguments: {text: done}
  output:
    properties:
      value: {type: string, description: the value, value: "{{.steps.maybe.output.value}}"}
"""

MUTANTS = {
    "readable": {
        "swapped branch": ('if fetch["state"] == "ready":', 'if fetch["state"] != "ready":'),
        "dropped retry": ("max_attempts=4", "max_attempts=1"),
        "wrong default": ('{"value": "fallback"}', '{"value": "fallback!"}'),
        "dropped call": ('call_tool("svc.notify", {"text": "done"})', "None"),
        "swapped arguments": (
            '{"first": who, "second": str(fetch["state"])}',
            '{"first": str(fetch["state"]), "second": who}',
        ),
        "wrong elicitation branch": ('if ask.action == "decline":', 'if ask.action == "cancel":'),
    },
    "exact": {
        "swapped branch": ("    if vmcp_condition(", "    if not vmcp_condition("),
        "dropped retry": ("max_attempts=4", "max_attempts=1"),
        "wrong default": ('{"value": "fallback"}', '{"value": "fallback!"}'),
        "lost <no value>": ('go_text(params.get("note", GO_MISSING))', 'params.get("note", "")'),
        "dropped call": ('notify = vmcp_call("notify", "svc.notify", {"text": "done"})', "pass"),
        "swapped arguments": (
            '{"first": params["who"], "second": go_text(go_map_get(fetch, "state"))}',
            '{"first": go_text(go_map_get(fetch, "state")), "second": params["who"]}',
        ),
        "wrong elicitation branch": (
            '"abort",\n        "continue",',
            '"continue",\n        "abort",',
        ),
    },
}
LIBRARY_MUTANTS = {
    "wrong call error": (
        '"tool call failed: tool %s in step %s: %s"',
        '"tool call failed: tool %s at step %s: %s"',
    ),
    "lost <no value>": ('        return "<no value>"', '        return ""'),
}
CASES = [(style, name) for style, mutants in MUTANTS.items() for name in sorted(mutants)]
EXAMPLES, PATHS = 60, 32


def _tool() -> LoadedTool:
    return load_bytes(WORKFLOW, "mutants.yaml").tools[0]


@pytest.mark.parametrize("style", sorted(MUTANTS))
def test_the_unmutated_script_passes(style: str) -> None:
    report = check_tool(_tool(), CheckOptions(examples=EXAMPLES, paths=PATHS, style=style))
    assert report.verdict is Verdict.EQUIVALENT_EXCEPT, report.reason
    if style == "exact":  # all the exact style cannot reproduce: a step's deadline (and the
        # entry's annotations, which THV-0051's scripted tool does not have)
        assert set(report.observed) == {"listing", "step-timeout"}, report.observed


@pytest.mark.parametrize(("style", "name"), CASES)
def test_the_harness_kills_the_mutant(style: str, name: str) -> None:
    tool = _tool()
    emitted = emit_tool(tool.effective, "mutants.yaml", style=style)
    before, after = MUTANTS[style][name]
    assert before in emitted.script, f"the mutant {name!r} no longer applies to the {style} script"
    mutant = replace(emitted, script=emitted.script.replace(before, after, 1))
    options = CheckOptions(examples=EXAMPLES, paths=PATHS, style=style)
    report = check_tool(tool, options, emitted=mutant)
    assert report.verdict is Verdict.DIFFERS, f"{style} mutant {name!r} survived"
    assert report.counterexample is not None


@pytest.mark.parametrize("name", sorted(LIBRARY_MUTANTS))
def test_the_harness_kills_the_library_mutant(name: str) -> None:
    tool = _tool()
    emitted = emit_tool(tool.effective, "mutants.yaml", style="exact")
    before, after = LIBRARY_MUTANTS[name]
    library = emitted.modules[LIBRARY_NAME]
    assert library.count(before) == 1, f"the library mutant {name!r} no longer applies"
    mutant = replace(emitted, modules={LIBRARY_NAME: library.replace(before, after)})
    options = CheckOptions(examples=EXAMPLES, paths=PATHS, style="exact")
    report = check_tool(tool, options, emitted=mutant)
    assert report.verdict is Verdict.DIFFERS, f"library mutant {name!r} survived"
    assert report.counterexample is not None
