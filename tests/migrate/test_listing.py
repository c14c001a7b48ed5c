"""The hints clients see: where the target takes annotations, migrate writes vMCP's advertised
annotations into the scripted tool (tests/migrate/test_target.py: where it does not)."""

from __future__ import annotations

import yaml

from tests.conftest import CORPUS
from transpiler.config.loader import load_bytes
from transpiler.config.model import ToolAnnotations
from transpiler.config.target import THV_0051_ANNOTATIONS
from transpiler.harness.running.check import CheckOptions
from transpiler.listing import hint_differences, scripted_annotations
from transpiler.migrate.runner import MigrateOptions, migrate
from transpiler.migrate.summary import summary_text

DESTRUCTIVE = CORPUS / "listing" / "vmcp-config.yaml"


def test_a_scripted_tool_keeping_the_written_annotations_looks_different_from_vmcp() -> None:
    (tool,) = load_bytes(DESTRUCTIVE.read_bytes(), str(DESTRUCTIVE)).tools
    shown = [d.render() for d in hint_differences(tool.config, tool.config.annotations)]
    assert shown[1] == (
        "destructiveHint: vMCP true (derived from github.delete_branch (no annotations), "
        "github.create_branch (no annotations)), script: absent"
    )
    same = ToolAnnotations(
        title="Force a release", read_only_hint=False, destructive_hint=True, open_world_hint=True
    )
    assert not hint_differences(tool.config, same)


def test_a_script_declaring_itself_safer_drops_a_safety_hint() -> None:
    (tool,) = load_bytes(DESTRUCTIVE.read_bytes(), str(DESTRUCTIVE)).tools
    safer = ToolAnnotations(destructive_hint=False)
    (dropped,) = [d for d in hint_differences(tool.config, safer) if d.drops_safety]
    assert dropped.hint == "destructiveHint" and dropped.script is False


def test_migrate_writes_the_derived_hints_and_its_audit_shows_the_change() -> None:
    check = CheckOptions(examples=4, paths=4, target=THV_0051_ANNOTATIONS)
    report = migrate([DESTRUCTIVE], MigrateOptions(check=check))
    (result,) = report.files
    assert result.after is not None
    (scripted,) = yaml.safe_load(result.after)["scriptedTools"]
    assert scripted["annotations"] == {
        "title": "Force a release",
        "readOnlyHint": False,
        "destructiveHint": True,
        "openWorldHint": True,
    }
    (tool,) = load_bytes(DESTRUCTIVE.read_bytes(), str(DESTRUCTIVE)).tools
    assert scripted["annotations"] == scripted_annotations(tool.config)
    audit = summary_text(report)
    assert (
        'the scripted entry holds vMCP\'s listing: title "Force a release", readOnlyHint false, '
        "destructiveHint true, openWorldHint true (readOnlyHint, destructiveHint, openWorldHint "
        "derived from github.delete_branch (no annotations), github.create_branch (no "
        "annotations)) (the composite tool's own: title \"Force a release\")"
    ) in audit
