"""The composite model records each deviation class where vMCP's engine exercises it.

One test per class (``transpiler/deviations.py``): a run where the class fires
at the expected site, and an ordinary run of the same tool where it does not.
The harness excuses a script's difference only on runs where a declared class
fired, so these predicates decide what may ever be excused.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from tests.composite.helpers import scenario, tool
from transpiler.composite import run_composite
from transpiler.config.model import ToolAnnotations
from transpiler.config.target import THV_0051_ANNOTATIONS
from transpiler.deviations import Deviation
from transpiler.harness.judging.entries import listing_differences
from transpiler.listing import ListedTool, listed, migrated

ECHO = """
name: t
description: d
parameters: {type: object, properties: {n: {type: number}, s: {type: string}}}
steps:
  - id: a
    tool: svc.a
  - id: b
    tool: svc.b
    dependsOn: [a]
    arguments: {text: '%s'}
"""


def _sites(text: str, world: dict[str, Any]) -> set[tuple[str, str | None, str]]:
    trace = run_composite(tool(text), scenario(**world))
    return {(event.deviation, event.step, event.site) for event in trace.quirks}


def _backends(a: Any) -> dict[str, Any]:
    return {
        "svc.a": {"results": [{"structuredContent": a}]},
        "svc.b": {"results": [{"structuredContent": {}}]},
    }


def _printed(template: str, a: Any, params: Any = None) -> set[tuple[str, str | None, str]]:
    return _sites(ECHO % template, {"backends": _backends(a), "params": params or {}})


def test_missing_value_fires_where_a_field_is_missing_or_null() -> None:
    """An absent field and a null one are two sites: a script tells them apart."""
    site = ("missing-value", "b", "arguments.text")
    null = ("missing-value", "b", "arguments.text (null)")
    assert site in _printed("{{.steps.a.output.x}}", {})
    assert null in _printed("{{.steps.a.output.x}}", {"x": None})
    assert not {site, null} & _printed("{{.steps.a.output.x}}", {"x": "v"})


def test_number_text_fires_for_a_whole_number_of_a_million_or_more() -> None:
    site = ("number-text", "b", "arguments.text")
    assert site in _printed("{{.params.n}}", {}, {"n": 1500000})
    assert site not in _printed("{{.params.n}}", {}, {"n": 999999})
    assert site not in _printed("{{.params.n}}", {}, {"n": 2.5})


def test_value_text_fires_for_maps_lists_and_booleans_printed_as_text() -> None:
    site = ("value-text", "b", "arguments.text")
    assert site in _printed("{{.steps.a.output}}", {"k": 1})
    assert site in _printed("{{.steps.a.output.v}}", {"v": [1, 2]})
    assert site in _printed("{{.steps.a.output.v}}", {"v": True})
    assert site in _printed('{{printf "%d" .steps.a.output.v}}', {"v": 3})
    assert site not in _printed("{{.steps.a.output.v}}", {"v": "text"})


def test_json_text_fires_when_go_escapes_html_characters_or_writes_numbers_its_way() -> None:
    site = ("json-text", "b", "arguments.text")
    assert site in _printed("{{json .steps.a.output.v}}", {"v": "<b>&"})
    assert site not in _printed("{{json .steps.a.output.v}}", {"v": "b"})
    assert site in _printed("{{json .steps.a.output.v}}", {"v": [[1e21]]})
    assert site in _printed("{{json .steps.a.output.v}}", {"v": 1.2345678901234568e17})
    assert site in _printed("{{json .steps.a.output.v}}", {"v": 1234567.5})
    assert site not in _printed("{{json .steps.a.output.v}}", {"v": [5e15, 2.5, 1e6]})
    assert site in _printed("{{json .steps.a.output.v}}", {"v": {"k": "a\x7f"}})


def test_error_text_fires_when_the_run_fails() -> None:
    failing = {"svc.a": {"results": [{"isError": True}]}, "svc.b": {"results": []}}
    assert ("error-text", None, "result") in _sites(ECHO % "x", {"backends": failing})
    assert ("error-text", None, "result") not in _printed("x", {})


OUTPUT = """
name: t
description: d
steps:
  - id: a
    tool: svc.a
output:
  properties:
    n: {type: integer, description: d, value: "{{.steps.a.output.n}}", default: 0}
    m: {type: object, description: d, value: "{{.steps.a.output.m}}"}
"""


def test_output_rendering_fires_when_the_text_round_trip_changes_the_value() -> None:
    def fired(a: Any) -> set[str]:
        world = {"backends": {"svc.a": {"results": [{"structuredContent": a}]}}}
        return {site for name, _, site in _sites(OUTPUT, world) if name == "output-rendering"}

    assert fired({"n": "abc", "m": "{}"}) == {"output.n"}
    assert fired({"n": 5, "m": {"k": 1}}) == {"output.m"}
    assert fired({"n": 5, "m": '{"k": 1}'}) == set()


CONDITION = """
name: t
description: d
steps:
  - id: a
    tool: svc.a
  - id: b
    tool: svc.b
    dependsOn: [a]
    condition: '%s'
    onError: {action: continue}
    defaultResults: {}
"""


def test_condition_text_fires_unless_a_boolean_renders_the_condition() -> None:
    def fired(template: str, a: Any) -> bool:
        world = {"backends": _backends(a)}
        return ("condition-text", "b", "condition") in _sites(CONDITION % template, world)

    assert fired("{{.steps.a.output.flag}}", {"flag": "true"})
    assert fired("{{.steps.a.output.flag}}", {})
    assert not fired("{{.steps.a.output.flag}}", {"flag": True})
    assert not fired('{{if eq .steps.a.output.v "x"}}true{{else}}false{{end}}', {"v": "y"})


def test_template_error_fires_when_a_go_type_error_stops_the_template() -> None:
    assert ("template-error", "b", "arguments.text") in _printed(
        "{{eq .steps.a.output.n 3}}", {"n": 3}
    )
    assert ("template-error", "b", "arguments.text") not in _printed(
        "{{eq .steps.a.output.n 3.0}}", {"n": 3}
    )
    not_a_list = FOR_EACH.replace("'[1, 2, 3, 4, 5]'", "'{}'") % 10
    world: dict[str, Any] = {"backends": {"svc.one": {"results": [{"structuredContent": {}}]}}}
    assert ("template-error", "each", "collection") in _sites(not_a_list, world)


ELICIT = """
name: t
description: d
steps:
  - id: ask
    type: elicitation
    message: go?
    schema: {type: object}
    onDecline: {action: %s}
  - id: b
    tool: svc.b
    dependsOn: [ask]
"""


def test_skip_remaining_fires_when_its_handler_runs() -> None:
    world = {
        "backends": {"svc.b": {"results": [{"structuredContent": {}}]}},
        "elicitations": [{"action": "decline"}],
    }
    assert ("skip-remaining", "ask", "onDecline") in _sites(ELICIT % "skip_remaining", world)
    assert not any(name == "skip-remaining" for name, _, _ in _sites(ELICIT % "continue", world))


RACE = """
name: t
description: d
steps:
  - id: a
    tool: svc.a
  - id: b
    tool: svc.b
"""


def test_last_step_race_fires_when_another_step_than_the_final_one_wins() -> None:
    def fired(slower: str) -> bool:
        backends: dict[str, Any] = {
            name: {
                "results": [{"structuredContent": {}, "delay": "1s" if name == slower else "0s"}]
            }
            for name in ("svc.a", "svc.b")
        }
        return ("last-step-race", None, "result") in _sites(RACE, {"backends": backends})

    assert fired("svc.a")
    assert not fired("svc.b")


FOR_EACH = """
name: t
description: d
steps:
  - id: each
    type: forEach
    collection: '[1, 2, 3, 4, 5]'
    maxParallel: %d
    step: {id: one, tool: svc.one, arguments: {v: "{{.forEach.item}}"}}
"""


def test_parallel_cap_fires_when_a_failure_stops_a_loop_with_another_cap() -> None:
    world = {"backends": {"svc.one": {"results": [{"isError": True}]}}}
    assert ("parallel-cap", "each", "forEach") in _sites(FOR_EACH % 2, world)
    assert not any(name == "parallel-cap" for name, _, _ in _sites(FOR_EACH % 10, world))


def test_argument_coercion_fires_where_vmcp_sends_other_than_the_printed_value() -> None:
    """At a position the backend types, vMCP sends the text parsed, or kept when it does not
    parse; a script sends the value itself. The class applies where the two differ, at the
    argument's own path; only text kept unparsed is worth a finding."""

    def fired(value: Any, template: str = "{{.params.s}}") -> list[bool]:
        backends = _backends({})
        backends["svc.b"]["inputSchema"] = {
            "type": "object",
            "properties": {"text": {"type": "integer"}},
        }
        trace = run_composite(
            tool(ECHO % template), scenario(backends=backends, params={"s": value})
        )
        return [
            event.notable
            for event in trace.quirks
            if (event.deviation, event.step, event.site)
            == ("argument-coercion", "b", "arguments.text")
        ]

    assert fired("1.5") == [True]  # vMCP sends "1.5", a script 1.5 (text: "1.5")
    assert fired(1.5) == [True]  # vMCP sends the text "1.5", a script the number
    assert fired("15") == [False]  # vMCP sends 15, a script the text "15"
    assert fired(15) == []  # both send 15
    assert fired(15, "n{{.params.s}}") == [True]  # text either way: a latent bug, no variant


def test_workflow_metadata_fires_where_a_template_reads_what_a_script_cannot_know() -> None:
    assert ("workflow-metadata", "b", "arguments.text") in _printed("{{.workflow.id}}", {})
    assert ("workflow-metadata", "b", "arguments.text") not in _printed("{{.workflow.status}}", {})


def test_rust_engine_fires_for_numbers_starlark_rust_prints_its_own_way() -> None:
    assert ("rust-engine", "b", "arguments.text") in _printed("{{.params.n}}", {}, {"n": 1234567.8})
    assert ("rust-engine", "b", "arguments.text") not in _printed("{{.params.n}}", {}, {"n": 12.5})
    # go.starlark.net HTML-escapes JSON text beyond ASCII (Go's encoding/json), starlark-rust not
    encoded = "{{json .steps.a.output.v}}"
    assert ("rust-engine", "b", "arguments.text") in _printed(encoded, {"v": ["\u00e9<"]})
    assert ("rust-engine", "b", "arguments.text") not in _printed(encoded, {"v": ["e<"]})


def test_rust_engine_fires_exactly_where_starlark_rust_writes_otherwise() -> None:
    """Where starlark-rust's text of the value differs from go.starlark.net's, ASCII too
    (go.starlark.net quotes BEL as ``\\a``, starlark-rust as ``\\x07``; it writes 1e21 as
    ``1e21`` in JSON, go.starlark.net ``1e+21``), and nowhere else."""
    site = ("rust-engine", "b", "arguments.text")
    assert site in _printed("{{.steps.a.output.v}}", {"v": ["a\x07"]})
    assert site in _printed("{{json .steps.a.output.v}}", {"v": [1e21]})
    assert site in _printed("{{.steps.a.output.v}}", {"v": 0.00001})
    assert site not in _printed("{{.steps.a.output.v}}", {"v": ["plain", 2.5, None, True]})
    assert site not in _printed("{{json .steps.a.output.v}}", {"v": {"a": [1, "x"]}})


def test_step_timeout_fires_where_a_call_crosses_the_steps_deadline_or_five_minutes() -> None:
    def fired(timeout: str, delay: str) -> bool:
        text = f"name: t\ndescription: d\nsteps:\n  - {{id: a, tool: svc.a, timeout: {timeout}}}\n"
        backends = {"svc.a": {"results": [{"structuredContent": {}, "delay": delay}]}}
        trace = run_composite(tool(text), scenario(backends=backends))
        sites = [(q.deviation, q.step, q.site) for q in trace.quirks]
        return ("step-timeout", "a", "timeout") in sites

    assert fired("30s", "31s")  # vMCP's step deadline cuts the call; a script's does not
    assert fired("10m", "5m1s")  # a script's 5-minute call limit cuts it; vMCP's does not
    assert not fired("30s", "29s")


def test_listing_shows_in_the_tools_list_entry_not_in_a_run() -> None:
    composite = tool("name: t\ndescription: d\nsteps:\n  - {id: a, tool: svc.a}\n")
    vmcp = listed(composite)
    assert isinstance(vmcp, ListedTool)
    entry = migrated(composite, target=THV_0051_ANNOTATIONS)
    assert not listing_differences(composite, vmcp, entry)
    (shown,) = listing_differences(composite, vmcp, replace(entry, description="e"))
    assert (shown.deviation, shown.site) == ("listing", "description")
    # Where the target has no annotations, the migrated entry lists none: clients lose vMCP's.
    dropped = listing_differences(composite, vmcp, migrated(composite))
    assert {(d.deviation, d.site) for d in dropped} == {
        ("listing", f"annotations.{hint}")
        for hint in ("readOnlyHint", "destructiveHint", "openWorldHint")
    }


def test_listing_safety_shows_where_the_script_claims_a_safer_hint() -> None:
    composite = tool("name: t\ndescription: d\nsteps:\n  - {id: a, tool: svc.a}\n")
    safer = replace(migrated(composite), annotations=ToolAnnotations(read_only_hint=True))
    found = {d.site: d.deviation for d in listing_differences(composite, listed(composite), safer)}
    assert found["annotations.readOnlyHint"] == "listing-safety"
    assert found["annotations.destructiveHint"] == "listing"  # absent: no safer than true


@pytest.mark.parametrize("name", sorted(Deviation))
def test_every_class_has_a_test_here(name: str) -> None:
    tests = [key for key in globals() if key.startswith("test_" + name.replace("-", "_"))]
    assert tests, f"no test shows where {name} fires"
