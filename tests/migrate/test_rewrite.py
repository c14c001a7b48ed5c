"""Rewriting keeps every byte it does not change: comments, key order, formatting."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.migrate.conftest import MANIFESTS, SMALL_CONFIG, run
from transpiler.harness.judging.verdict import Verdict
from transpiler.migrate.runner import FileStatus


def _migrated(report_after: str | None) -> Any:
    assert report_after is not None
    data = yaml.safe_load(report_after)
    assert isinstance(data, dict)
    return data


def _without(text: str, starts: tuple[str, ...], body_indent: int) -> list[str]:
    """The lines of ``text`` outside the blocks that start with one of ``starts``."""
    kept: list[str] = []
    skipping = False
    for line in text.splitlines():
        stripped = line.lstrip(" ")
        indent = len(line) - len(stripped)
        if stripped.startswith(starts) and indent == body_indent:
            skipping = True
            continue
        if skipping and (not stripped or indent > body_indent):
            continue
        skipping = False
        kept.append(line)
    return kept


def test_everything_but_steps_output_and_hints_is_byte_identical(
    write_file: Callable[[str, str], Path], certify: list[str]
) -> None:
    path = write_file("gw.yaml", SMALL_CONFIG)
    result = run([path]).files[0]
    assert result.status is FileStatus.REWRITTEN and result.after is not None
    old = _without(SMALL_CONFIG, ("steps:", "output:"), 4)
    new = _without(result.after, ("script:", "output:", "annotations:"), 4)
    assert new == [line.replace("compositeTools:", "scriptedTools:") for line in old]
    assert "# Say it twice." in result.after and "# trailing comment" in result.after
    assert "description: Call echo twice   # inline" in result.after


def test_config_shape(write_file: Callable[[str, str], Path], certify: list[str]) -> None:
    path = write_file("gw.yaml", SMALL_CONFIG)
    report = run([path])
    data = _migrated(report.files[0].after)
    assert "compositeTools" not in data
    echo, ping = data["scriptedTools"]
    # THV-0051's ScriptedToolConfig has no annotations (docs/target.md): none is written.
    assert list(echo) == ["name", "description", "parameters", "timeout", "output", "script"]
    assert echo["output"] == {
        "type": "object",
        "properties": {"said": {"type": "string", "description": "What was said"}},
        "required": ["said"],
    }
    assert echo["timeout"] == "1m"
    scripts = {o.name: o.emitted.script for o in report.tools if o.emitted is not None}
    assert echo["script"] == scripts["echo_twice"]
    assert ping["script"] == scripts["ping"] and "output" not in ping
    assert data["operational"] == {"logLevel": "info"}


def test_crd_shapes(write_file: Callable[[str, str], Path], certify: list[str]) -> None:
    path = write_file("gw.yaml", MANIFESTS)
    result = run([path]).files[0]
    assert result.after is not None
    server, definition = yaml.safe_load_all(result.after)
    config = server["spec"]["config"]
    assert "compositeTools" not in config and "compositeToolRefs" not in config
    assert config["scriptedToolRefs"] == [{"name": "shared-echo"}]
    assert [tool["name"] for tool in config["scriptedTools"]] == ["inline_ping"]
    assert definition["apiVersion"] == "toolhive.stacklok.dev/v1beta1"
    assert definition["kind"] == "VirtualMCPScriptedToolDefinition"
    assert definition["metadata"] == {"name": "shared-echo", "namespace": "team"}
    spec = definition["spec"]
    assert set(spec) == {"name", "description", "output", "script"}
    assert spec["output"]["properties"]["text"] == {"type": "string", "description": "The echo"}
    assert result.moved_refs == ("shared-echo",)


def test_refs_to_definitions_elsewhere_stay(
    write_file: Callable[[str, str], Path], certify: list[str]
) -> None:
    server, definition = MANIFESTS.split("---\n")
    server_path = write_file("server.yaml", server)
    write_file("definition.yaml", "---\n" + definition)
    result = run([server_path.parent]).files
    by_name = {f.path.name: f for f in result}
    after = yaml.safe_load(by_name["server.yaml"].after or "")
    assert after["spec"]["config"]["scriptedToolRefs"] == [{"name": "shared-echo"}]
    only_server = run([server_path])
    assert only_server.files[0].status is FileStatus.NOT_CONVERTED or all(
        o.verdict is Verdict.NOT_CONVERTED for o in only_server.tools
    )


def test_keep_composite_adds_beside(
    write_file: Callable[[str, str], Path], certify: list[str]
) -> None:
    path = write_file("gw.yaml", SMALL_CONFIG + "\n---\n" + MANIFESTS.split("---\n")[1])
    result = run([path], keep_composite=True).files[0]
    kept = SMALL_CONFIG[: SMALL_CONFIG.index("        tool: ping\n") + len("        tool: ping\n")]
    assert result.after is not None and result.after.startswith(kept)
    config, composite, scripted = yaml.safe_load_all(result.after)
    assert [t["name"] for t in config["compositeTools"]] == ["echo_twice", "ping"]
    assert [t["name"] for t in config["scriptedTools"]] == ["echo_twice", "ping"]
    assert composite["kind"] == "VirtualMCPCompositeToolDefinition"
    assert scripted["kind"] == "VirtualMCPScriptedToolDefinition"
    assert scripted["metadata"] == composite["metadata"]


def test_partial_migration_keeps_the_rest_composite(
    write_file: Callable[[str, str], Path], certify: list[str]
) -> None:
    broken = SMALL_CONFIG.replace(
        "  # Ping once.",
        "  - name: odd\n    description: x\n    steps:\n      - id: a\n        tool: t\n"
        "        arguments: {a: 1}\n      - id: b\n        type: forEach\n"
        '        collection: "{{json .steps.a.output.items}}"\n        dependsOn: [a]\n'
        "        onError:\n          action: continue\n        step:\n          id: in\n"
        "          tool: t\n          onError:\n            action: retry\n"
        "            retryCount: 2\n  # Ping once.",
    )
    path = write_file("gw.yaml", broken)
    report = run([path])
    verdicts = {o.name: o.verdict for o in report.tools}
    assert verdicts["odd"] is Verdict.NOT_CONVERTED
    assert report.files[0].status is FileStatus.REFUSED
    forced = run([path], force=True).files[0]
    data = _migrated(forced.after)
    assert [t["name"] for t in data["compositeTools"]] == ["odd"]
    assert [t["name"] for t in data["scriptedTools"]] == ["echo_twice", "ping"]


@pytest.mark.parametrize(
    "layout",
    [
        pytest.param(lambda text: text.replace("\n", "\r\n"), id="crlf"),
        pytest.param(
            lambda text: text.replace(
                "  - name: ping", "  - steps:\n      - id: p\n        tool: ping\n    name: ping"
            ).replace(
                "    description: Ping\n    steps:\n      - id: p\n        tool: ping\n",
                "    description: Ping\n",
            ),
            id="steps-first",
        ),
        pytest.param(
            lambda text: text.replace("\n  ", "\n    ").replace(
                "compositeTools:\n    #", "compositeTools:\n    #"
            ),
            id="four-spaces",
        ),
        pytest.param(
            lambda text: text.replace("compositeTools:", '"compositeTools":'), id="quoted-key"
        ),
        pytest.param(lambda text: text.rstrip("\n"), id="no-final-newline"),
    ],
)
def test_layouts_read_back_as_the_migrated_data(
    layout: Callable[[str], str], write_file: Callable[[str, str], Path], certify: list[str]
) -> None:
    path = write_file("gw.yaml", layout(SMALL_CONFIG))
    report = run([path])
    result = report.files[0]
    assert result.status is FileStatus.REWRITTEN, result.reason
    data = _migrated(result.after)
    assert [t["name"] for t in data["scriptedTools"]] == ["echo_twice", "ping"]
    if "\r\n" in layout(SMALL_CONFIG):
        assert result.after is not None and "\n" not in result.after.replace("\r\n", "")


def test_flow_style_and_anchors_are_not_converted_with_a_reason(
    write_file: Callable[[str, str], Path], certify: list[str]
) -> None:
    flow = "compositeTools:\n  - {name: a, description: d, steps: [{id: s, tool: t}]}\n"
    anchored = (
        "compositeTools:\n  - name: a\n    description: &d shared\n    steps:\n"
        "      - id: s\n        tool: t\n        arguments: {x: *d}\n"
    )
    reports = [run([write_file(f"{n}.yaml", t)]) for n, t in (("flow", flow), ("anchor", anchored))]
    reasons = [r.tools[0].reason for r in reports]
    assert all(r.tools[0].verdict is Verdict.NOT_CONVERTED for r in reports)
    assert "flow style" in reasons[0] and "anchors" in reasons[1]


def test_same_input_same_bytes(write_file: Callable[[str, str], Path], certify: list[str]) -> None:
    path = write_file("gw.yaml", SMALL_CONFIG)
    assert run([path]).files[0].after == run([path]).files[0].after
