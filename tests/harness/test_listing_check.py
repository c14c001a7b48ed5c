"""``check`` compares the ``tools/list`` entry: each field that differs is a ``listing``
difference with its witness, one that makes the script look safer is ``listing-safety`` (a
finding, failing unless the policy names it), and a composite tool vMCP hides is a
``visibility`` difference, not a counterexample. Annotations are a field of the scripted entry
only where the target takes them (``thv-0051+annotations``), which these tests use."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import CORPUS
from transpiler.cli import main
from transpiler.config.target import THV_0051_ANNOTATIONS
from transpiler.deviations import Deviation, accepts
from transpiler.emit.tools_file import load_tool_annotations
from transpiler.harness.running.check import CheckOptions
from transpiler.migrate.runner import MigrateOptions, migrate

DESTRUCTIVE = CORPUS / "listing" / "vmcp-config.yaml"
SMALL = ["--examples", "3", "--paths", "2", "--jobs", "1", "--engine", "rust"]
TARGET = ["--target", str(THV_0051_ANNOTATIONS)]
WITH_ANNOTATIONS = CheckOptions(target=THV_0051_ANNOTATIONS)
DERIVED = (
    "derived from github.delete_branch (no annotations), github.create_branch (no annotations)"
)
#: Backends that declare themselves read-only and closed-world.
SAFE_BACKENDS = {
    "tools": [
        {
            "name": name,
            "inputSchema": {"type": "object"},
            "annotations": {"readOnlyHint": True, "destructiveHint": False, "openWorldHint": False},
        }
        for name in ("github.delete_branch", "github.create_branch")
    ]
}


def _migrated(folder: Path, options: MigrateOptions | None = None) -> tuple[Path, Path]:
    """The corpus tool's migrated configuration (written by ``migrate``) and its baseline."""
    report = migrate([DESTRUCTIVE], options or MigrateOptions(check=WITH_ANNOTATIONS))
    (result,) = report.files
    assert result.after is not None
    config = folder / "vmcp-config.yaml"
    config.write_text(result.after)
    base = folder / "base" / "vmcp-config.yaml"
    base.parent.mkdir()
    base.write_text(DESTRUCTIVE.read_text())
    return config, base


def _edited(config: Path, edit: Any) -> None:
    """Change the scripted entry (a mapping) with ``edit``, keeping its script."""
    document = yaml.safe_load(config.read_text())
    edit(document["scriptedTools"][0])
    config.write_text(yaml.safe_dump(document, sort_keys=False))


def _check(tmp_path: Path, *arguments: str, base: Path | None = None) -> tuple[int, dict[str, Any]]:
    """``check``'s exit code and its one tool's JSON entry."""
    report = tmp_path / "report.json"
    given = [*arguments, *SMALL, *TARGET, "--report-json", str(report)]
    given += ["--counterexamples", str(tmp_path / "saved")]
    if base is not None:
        given += ["--baseline", str(base)]
    code = main(["check", *given])
    (tool,) = json.loads(report.read_text())["tools"]
    return code, tool


def _sites(tool: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {entry["site"]: entry for entry in tool["listing"]}


def test_a_migrated_entry_lists_what_vmcp_lists(tmp_path: Path) -> None:
    config, base = _migrated(tmp_path)
    code, tool = _check(tmp_path, str(config), base=base)
    assert tool["listing"] == [] and code == 0, tool["reason"]


def test_an_entry_keeping_the_written_annotations_shows_the_change_with_its_witness(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config, base = _migrated(tmp_path)
    _edited(config, lambda entry: entry.update(annotations={"title": "Force a release"}))
    code, tool = _check(tmp_path, str(config), base=base)
    sites = _sites(tool)
    assert set(sites) == {
        "annotations.readOnlyHint",
        "annotations.destructiveHint",
        "annotations.openWorldHint",
    }
    shown = sites["annotations.destructiveHint"]
    assert shown["class"] == "listing"  # absent is no safer than true: clients assume the worst
    assert shown["witness"] == f"destructiveHint: vMCP true ({DERIVED}), script: absent"
    assert code == 1 and tool["verdict"] == "differs"
    assert "#   - listing: " in tool["reason"]  # what to declare, and where
    (shown_line,) = [
        line for line in capsys.readouterr().out.splitlines() if "listing at annotations" in line
    ]  # the hints on one short line; where vMCP's come from is in the reports
    assert shown_line == (
        "  listing at annotations: readOnlyHint: vMCP false, script: absent; destructiveHint: "
        "vMCP true, script: absent; openWorldHint: vMCP true, script: absent"
    )


def test_an_entry_that_drops_destructive_hint_fails_with_the_safety_finding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config, base = _migrated(tmp_path)
    _edited(config, lambda entry: entry["annotations"].update(destructiveHint=False))
    code, tool = _check(tmp_path, str(config), "--format", "github", base=base)
    (dropped,) = tool["listing"]
    assert dropped == {
        "class": "listing-safety",
        "site": "annotations.destructiveHint",
        "witness": f"destructiveHint: vMCP true ({DERIVED}), script: false",
    }
    assert code == 1
    assert any("listed as safer than vMCP" in finding for finding in tool["findings"])
    out = capsys.readouterr().out
    assert any(
        line.startswith("::error") and "safety hint dropped" in line for line in out.splitlines()
    )


def test_a_declared_safety_drop_passes_only_where_the_policy_names_it(tmp_path: Path) -> None:
    config, base = _migrated(tmp_path)

    def safer(entry: dict[str, Any]) -> None:
        entry["annotations"]["readOnlyHint"] = True
        entry["script"] = entry["script"].replace(
            "#   - error-text:", "#   - listing-safety: read-only\n#   - error-text:"
        )

    _edited(config, safer)
    code, tool = _check(tmp_path, str(config), base=base)
    assert _sites(tool)["annotations.readOnlyHint"]["class"] == "listing-safety"
    assert tool["verdict"] == "equivalent-except" and not tool["passes"] and code == 1
    named = "--accept=listing-safety,error-text"
    code, tool = _check(tmp_path, str(config), named, base=base)
    assert tool["passes"] and code == 0
    assert not accepts(None, Deviation.LISTING_SAFETY) and accepts(None, Deviation.LISTING)


def test_a_description_or_parameters_that_differ_show_that_field(tmp_path: Path) -> None:
    config, base = _migrated(tmp_path)

    def reworded(entry: dict[str, Any]) -> None:
        entry["description"] = "Recreate the release branch"
        entry["parameters"]["required"] = ["repository"]

    _edited(config, reworded)
    _, tool = _check(tmp_path, str(config), base=base)
    sites = _sites(tool)
    assert set(sites) == {"description", "inputSchema"}
    assert sites["description"]["witness"] == (
        'description: vMCP "Delete a release branch and re-create it from a tag", '
        'script: "Recreate the release branch"'
    )
    assert '"required": ["repository", "tag"]' in sites["inputSchema"]["witness"]
    assert all(entry["class"] == "listing" for entry in tool["listing"])


def _read_only_composite(folder: Path) -> Path:
    config = folder / "vmcp-config.yaml"
    text = DESTRUCTIVE.read_text().replace(
        "      title: Force a release\n", "      title: Force a release\n      readOnlyHint: true\n"
    )
    assert "readOnlyHint: true" in text
    config.write_text(text)
    return config


def test_a_composite_vmcp_hides_is_a_listing_difference_not_a_counterexample(
    tmp_path: Path,
) -> None:
    config = _read_only_composite(tmp_path)
    code, tool = _check(tmp_path, str(config))
    (hidden,) = tool["listing"]
    assert hidden["site"] == "visibility" and hidden["class"] == "listing-safety"
    assert hidden["witness"] == (
        f"vMCP does not list force_release (readOnlyHint=true contradicts the floor {DERIVED}); "
        "the scripted tool is listed"
    )
    assert tool["counterexample"] is None and tool["certificate"]["scenarios"] == 0
    assert code == 1


def test_a_hidden_composite_never_passes_whatever_the_script_declares(tmp_path: Path) -> None:
    """vMCP runs nothing for a tool it does not list: a script declaring every listing class
    is unchecked (exit 1), never certified with no scenario run."""
    config = _read_only_composite(tmp_path)
    script = tmp_path / "any.star"
    script.write_text(
        "# Where it differs from vMCP (see docs/deviations.md):\n"
        "#   - listing\n#   - listing-safety\n\n"
        'def run(params):\n    call_tool("anything.at_all", {"all": True})\n    return {}\n'
    )
    code, tool = _check(
        tmp_path,
        str(config),
        "--tool",
        "force_release",
        "--script",
        str(script),
        "--accept",
        "listing,listing-safety",
    )
    assert tool["verdict"] == "unchecked" and code == 1
    assert "vMCP hides force_release" in tool["reason"] and "Two ways out" in tool["reason"]


def test_backend_annotations_from_tools_change_vmcps_side(tmp_path: Path) -> None:
    config = _read_only_composite(tmp_path)
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(SAFE_BACKENDS))
    code, tool = _check(tmp_path, str(config), "--tools", str(tools))
    # Listed now (the floor is read-only), and the emitted entry carries the same hints.
    assert tool["listing"] == [] and tool["certificate"]["scenarios"] > 0
    assert code == 0, tool["reason"]

    folder = tmp_path / "migrated"
    folder.mkdir()
    migrated, base = _migrated(folder)
    _, tool = _check(tmp_path, str(migrated), "--tools", str(tools), base=base)
    sites = _sites(tool)
    # migrate wrote the conservative hints of unknown backends; vMCP lists safer ones now.
    assert sites["annotations.destructiveHint"]["witness"] == (
        "destructiveHint: vMCP false (derived from github.delete_branch, github.create_branch), "
        "script: true"
    )
    assert all(entry["class"] == "listing" for entry in tool["listing"])


def test_a_migration_given_the_backends_tools_list_writes_the_hints_vmcp_lists(
    tmp_path: Path,
) -> None:
    """``migrate --tools`` and ``check --tools`` read the same backends: no difference."""
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(SAFE_BACKENDS))
    backends = load_tool_annotations(str(tools))
    check = CheckOptions(tool_annotations=backends, target=THV_0051_ANNOTATIONS)
    options = MigrateOptions(check=check)
    migrated, base = _migrated(tmp_path, options)
    code, tool = _check(tmp_path, str(migrated), "--tools", str(tools), base=base)
    assert tool["listing"] == [] and code == 0, tool["reason"]
