"""``migrate`` writes what the target takes, and says exactly what each file holds.

Under ``thv-0051`` (the default) no ``annotations:`` is written and the script declares what
clients lose; ``--target thv-0051+annotations`` writes vMCP's hints; a file the target would
refuse is not written. A composite tool vMCP hides is left as it is, with the two ways out,
and the file's other tools migrate. Kubernetes: the audit says what becomes of each retired
definition in the cluster. ``deprecation_messages()`` agrees with all of it.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import yaml

import transpiler
from tests.conftest import CORPUS
from transpiler.cli import main
from transpiler.config.target import THV_0051, THV_0051_ANNOTATIONS, VMCP
from transpiler.declaration import declared_in
from transpiler.deviations import Deviation
from transpiler.harness.running.check import CheckOptions
from transpiler.migrate.runner import FileStatus, MigrateOptions, MigrationReport, migrate, state
from transpiler.migrate.summary import summary_text
from transpiler.migrate.verify import TargetRefuses, target_refusal
from transpiler.reading import read_text

QUICK = CheckOptions(examples=4, paths=4)
LISTING = CORPUS / "listing" / "vmcp-config.yaml"
#: One composite tool vMCP hides (``readOnlyHint: true`` over a step tool that declares
#: nothing: not read-only), and one it lists.
HIDDEN = (CORPUS / "listing" / "hidden.yaml").read_text()


def _run(path: Path, **options: object) -> MigrationReport:
    return migrate([path], MigrateOptions(backup_suffix=None, **options))  # type: ignore[arg-type]


def _scripted(report: MigrationReport) -> list[dict[str, object]]:
    (result,) = report.files
    assert result.after is not None, result.reason
    entries: list[dict[str, object]] = yaml.safe_load(result.after)["scriptedTools"]
    return entries


def test_thv_0051_writes_no_annotations_and_says_what_clients_lose() -> None:
    report = _run(LISTING, check=QUICK)
    (entry,) = _scripted(report)
    assert "annotations" not in entry
    declaration = declared_in(str(entry["script"]))
    assert Deviation.LISTING in declaration.classes
    assert Deviation.LISTING_SAFETY not in declaration.classes
    (outcome,) = report.tools
    assert outcome.passes(None) and "listing" in outcome.reason
    (remark,) = [r for r in outcome.remarks if r.kind == "annotations"]
    assert remark.text.startswith("the scripted entry holds no annotations (thv-0051")
    assert 'clients no longer see title "Force a release", readOnlyHint false' in remark.text
    assert "--target thv-0051+annotations writes them" in remark.text


def test_the_annotations_target_writes_vmcps_hints_and_says_exactly_those() -> None:
    report = _run(LISTING, check=CheckOptions(examples=4, paths=4, target=THV_0051_ANNOTATIONS))
    (entry,) = _scripted(report)
    written = entry["annotations"]
    assert written == {
        "title": "Force a release",
        "readOnlyHint": False,
        "destructiveHint": True,
        "openWorldHint": True,
    }
    assert Deviation.LISTING not in declared_in(str(entry["script"])).classes
    (remark,) = [r for r in report.tools[0].remarks if r.kind == "annotations"]
    said = remark.text.split(" (the composite tool's own")[0].split("vMCP's listing: ")[1]
    pairs = re.findall(r'(\w+) ("[^"]*"|true|false)', said)
    assert {key: json.loads(value) for key, value in pairs} == written


def test_nothing_the_target_refuses_is_written(tmp_path: Path) -> None:
    config = tmp_path / "gw.yaml"
    shutil.copy(LISTING, config)
    before = config.read_bytes()
    report = _run(config, write=True, check=CheckOptions(examples=4, paths=4, target=VMCP))
    (result,) = report.files
    assert result.status is FileStatus.FAILED and not report.complete
    assert "the target vmcp" in result.reason
    assert re.search(rf"{config}:\d+:1 \(P1\): field scriptedTools not found", result.reason)
    assert config.read_bytes() == before and sorted(tmp_path.iterdir()) == [config]


def test_a_tool_vmcp_hides_is_left_as_it_is_and_the_others_migrate(tmp_path: Path) -> None:
    config = tmp_path / "gw.yaml"
    config.write_text(HIDDEN)
    report = _run(config, write=True, check=QUICK)
    hidden, echo = report.tools
    assert state(hidden) == "hidden by vMCP" and hidden.hidden
    assert "vMCP hides force_release" in hidden.reason
    fix = "Two ways out: fix its annotations: remove `readOnlyHint: true` (line 8)"
    assert fix in hidden.reason
    assert "or retire it" in hidden.reason and "header" not in hidden.reason
    assert echo.passes(None)
    (result,) = report.files
    assert result.status is FileStatus.REWRITTEN and report.written
    migrated = yaml.safe_load(config.read_text())
    assert [t["name"] for t in migrated["compositeTools"]] == ["force_release"]
    assert migrated["compositeTools"][0]["annotations"] == {"readOnlyHint": True}
    assert [t["name"] for t in migrated["scriptedTools"]] == ["echo"]
    assert not report.complete  # not every tool is migrated: the run exits 1
    audit = summary_text(report)
    assert "written before" not in audit and "readOnlyHint: vMCP absent" not in audit


def test_force_never_publishes_a_tool_vmcp_hides(tmp_path: Path) -> None:
    config = tmp_path / "gw.yaml"
    config.write_text(HIDDEN)
    _run(config, write=True, force=True, check=QUICK)
    names = [t["name"] for t in yaml.safe_load(config.read_text())["scriptedTools"]]
    assert names == ["echo"]


def test_the_cli_exits_1_for_a_hidden_tool_and_writes_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "gw.yaml"
    config.write_text(HIDDEN)
    quick = ["--examples", "4", "--paths", "4"]
    code = main(["migrate", str(config), "--write", "--no-backup", *quick])
    out = capsys.readouterr().out
    assert code == 1 and "force_release: not converted: vMCP hides force_release" in out
    assert "scriptedTools:" in config.read_text()


def test_kubernetes_retired_definitions_and_references_are_said(tmp_path: Path) -> None:
    shutil.copytree(CORPUS / "k8s", tmp_path / "k8s")
    report = _run(tmp_path / "k8s", write=True, check=QUICK)
    (result,) = report.files
    audit = summary_text(report)
    for name in ("release-notes", "rotate-credentials"):
        command = f"kubectl delete virtualmcpcompositetooldefinition {name} -n platform"
        assert command in audit
        assert command in " ".join(result.cluster)
    assert (
        "VirtualMCPServer/platform-gateway (namespace platform): spec.config.compositeToolRefs "
        "release-notes, rotate-credentials become spec.config.scriptedToolRefs"
    ) in audit


def test_a_staged_kubernetes_migration_deletes_nothing_yet(tmp_path: Path) -> None:
    shutil.copytree(CORPUS / "k8s", tmp_path / "k8s")
    report = _run(tmp_path / "k8s", write=True, keep_composite=True, check=QUICK)
    (result,) = report.files
    assert not any("kubectl delete" in line for line in result.cluster)
    assert any("added to spec.config.scriptedToolRefs beside" in line for line in result.cluster)


def test_deprecation_messages_agree_with_migrate(tmp_path: Path) -> None:
    config = tmp_path / "gw.yaml"
    rejected = tmp_path / "legacy.yaml"
    config.write_text(HIDDEN)
    shutil.copy(CORPUS / "validation" / "invalid" / "snake-case-layout.yaml", rejected)
    messages = transpiler.load(tmp_path).deprecation_messages()
    report = _run(tmp_path, check=QUICK)
    states = {outcome.name: state(outcome) for outcome in report.tools}
    assert states == {"force_release": "hidden by vMCP", "echo": "equivalent-except"}
    assert "vMCP hides force_release" in messages["force_release"]
    assert "can be migrated" in messages["echo"]
    (refused,) = [f for f in report.files if f.status is FileStatus.NOT_CONVERTED]
    assert refused.path == rejected
    assert "field composite_tools not found in type config.Config" in messages[str(rejected)]
    assert "field composite_tools not found" in refused.reason


def test_the_target_check_names_the_field_it_refuses() -> None:
    """A rewritten file with a field the target does not define is refused at its place;
    what the original already held is not the migration's doing."""
    original = LISTING.read_text()
    scripted = "scriptedTools:\n  - name: extra\n    annotations: {readOnlyHint: true}\n"
    rewritten = original + scripted + "    script: |\n      def run(params):\n          return {}\n"
    line = rewritten[: rewritten.index("    annotations: {read")].count("\n") + 1
    with pytest.raises(TargetRefuses) as refused:
        target_refusal(("gw.yaml", original), ("gw.yaml", rewritten), THV_0051, read_text)
    assert str(refused.value).endswith(
        f"gw.yaml:{line}:5 (P1): field annotations not found in type config.ScriptedToolConfig"
    )
    target_refusal(("gw.yaml", rewritten), ("gw.yaml", rewritten), THV_0051, read_text)
    target_refusal(("gw.yaml", original), ("gw.yaml", rewritten), THV_0051_ANNOTATIONS, read_text)
