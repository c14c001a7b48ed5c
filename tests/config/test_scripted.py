"""THV-0051's scripted tools as a target ``validate`` knows (docs/target.md).

The migrated example and manifests validate at every stage of a migration, naming each
scripted tool; a field the RFC does not define fails at its file:line:col; the targets
``vmcp`` and ``thv-0051+annotations`` judge what they load and nothing else.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import CORPUS
from transpiler.cli import main
from transpiler.config.loader import load_bytes
from transpiler.config.scripted import MAX_SCRIPT_BYTES
from transpiler.config.target import THV_0051, VMCP
from transpiler.harness.running.check import CheckOptions
from transpiler.migrate.runner import MigrateOptions, migrate
from transpiler.validate import validate

QUICK = CheckOptions(examples=4, paths=4)
SCRIPT = 'def run(params):\n    return call_tool("svc.a", {})\n'


def _migrated(tmp_path: Path, corpus: str, keep: bool) -> Path:
    """``corpus/<corpus>`` copied and migrated (``--keep-composite`` when ``keep``)."""
    folder = tmp_path / corpus
    if not folder.exists():
        shutil.copytree(CORPUS / corpus, folder)
    options = MigrateOptions(write=True, keep_composite=keep, backup_suffix=None, check=QUICK)
    report = migrate([folder], options)
    assert report.written and report.complete, [f.reason for f in report.files]
    return folder


def _validate(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, str]:
    code = main(["validate", *arguments])
    return code, capsys.readouterr().out


@pytest.mark.parametrize(
    ("corpus", "tools"),
    [
        (
            "example",
            "deploy_with_approval, investigate_incident, scan_image_packages, sync_inventory",
        ),
        ("k8s", "page_on_call, release_notes, rotate_credentials"),
    ],
)
def test_each_stage_of_a_migration_validates_and_names_its_scripted_tools(
    corpus: str, tools: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for keep in (True, False):
        folder = _migrated(tmp_path, corpus, keep)
        code, out = _validate(capsys, str(folder))
        assert code == 0, out
        assert "(target thv-0051)" in out
        listed = re.findall(r"scripted tools: (.*)", out)
        named = {name.strip() for line in listed for name in line.split(",")}
        assert sorted(named) == tools.split(", "), out
    # THV-0051 defines no annotations: none is left once the composite tools are gone.
    text = next(folder.glob("*.yaml")).read_text()
    assert not re.search(r"^ *annotations:", text, re.MULTILINE)


def test_a_field_the_rfc_does_not_define_fails_at_its_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _migrated(tmp_path, "example", keep=False)
    config = folder / "vmcp-config.yaml"
    lines = config.read_text().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith("  - name: sync_inventory"))
    lines.insert(at + 1, "    retries: 3\n")
    config.write_text("".join(lines))
    code, out = _validate(capsys, str(config))
    assert code == 1
    assert f"{config}:{at + 2}:5: error[P1.S7.unknownField]" in out
    assert "field retries not found in type config.ScriptedToolConfig" in out


def test_a_manifest_field_the_rfc_does_not_define_fails_at_its_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _migrated(tmp_path, "k8s", keep=False)
    manifest = folder / "platform-gateway.yaml"
    text = manifest.read_text()
    marker = "spec:\n  name: release_notes\n"
    assert marker in text
    manifest.write_text(text.replace(marker, marker + "  retries: 3\n"))
    line = manifest.read_text()[: manifest.read_text().index("  retries: 3")].count("\n") + 1
    code, out = _validate(capsys, str(manifest))
    assert code == 1
    where = f"{manifest}:{line}:3: error[K8S.admission.unknownField] (admission)"
    assert f'{where}: unknown field "spec.retries"' in out


def test_annotations_are_a_target_of_their_own(capsys: pytest.CaptureFixture[str]) -> None:
    path = CORPUS / "validation" / "invalid" / "thv0051-unknown-field.yaml"
    code, out = _validate(capsys, str(path))
    assert code == 1 and "--target thv-0051+annotations judges them" in out
    code, out = _validate(capsys, str(path), "--target", "thv-0051+annotations")
    assert code == 0, out


def test_vmcp_has_no_scripted_tools(capsys: pytest.CaptureFixture[str]) -> None:
    path = CORPUS / "validation" / "valid" / "scripted-tools.yaml"
    assert _validate(capsys, str(path))[0] == 0
    code, out = _validate(capsys, str(path), "--target", "vmcp")
    assert code == 1 and "field scriptedTools not found in type config.Config" in out
    manifest = CORPUS / "validation" / "valid" / "kubernetes-scripted-definition.yaml"
    code, out = _validate(capsys, str(manifest), "--target", "vmcp")
    assert code == 1 and 'unknown field "spec.config.scriptedTools"' in out
    assert 'no matches for kind "VirtualMCPScriptedToolDefinition"' in out


def test_the_target_is_the_files_own_unless_given(tmp_path: Path) -> None:
    scripted = (CORPUS / "validation" / "valid" / "scripted-tools.yaml").read_bytes()
    composite = (CORPUS / "example" / "vmcp-config.yaml").read_bytes()
    assert load_bytes(scripted).units[0].target == THV_0051
    assert load_bytes(composite).units[0].target == VMCP
    assert load_bytes(composite, target=THV_0051).units[0].target == THV_0051


def test_the_policy_names_the_target(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copy(CORPUS / "validation" / "valid" / "scripted-tools.yaml", tmp_path / "gw.yaml")
    (tmp_path / "vmcp-transpile.yaml").write_text("target: vmcp\n")
    code, out = _validate(capsys, str(tmp_path / "gw.yaml"))
    assert code == 1 and "(target vmcp)" in out
    assert _validate(capsys, str(tmp_path / "gw.yaml"), "--target", "thv-0051")[0] == 0


def test_a_script_over_the_size_limit() -> None:
    padding = "# " + "x" * 78 + "\n"
    body = padding * (MAX_SCRIPT_BYTES // len(padding) + 1) + SCRIPT
    indented = "".join(f"      {line}\n" for line in body.splitlines())
    text = f"scriptedTools:\n  - name: big\n    script: |\n{indented}"
    report = validate(load_bytes(text.encode(), "big.yaml"))
    (finding,) = [d for d in report.diagnostics if d.rule == "P2.THV0051.size"]
    assert f"vMCP loads at most {MAX_SCRIPT_BYTES}" in finding.message
    assert finding.location.line == 3


def test_a_while_loop_parses_as_vmcp_allows_it() -> None:
    path = CORPUS / "validation" / "valid" / "scripted-tools.yaml"
    report = validate(load_bytes(path.read_bytes(), str(path)))
    assert report.valid and "while" in path.read_text()


def test_a_script_file_is_read_and_parsed(tmp_path: Path) -> None:
    (tmp_path / "demo.star").write_text("def run(params):\n    return 1 < 2 < 3\n")
    text = "scriptedTools:\n  - name: demo\n    scriptFile: demo.star\n"
    report = validate(load_bytes(text.encode(), str(tmp_path / "gw.yaml")))
    (finding,) = [d for d in report.diagnostics if d.rule == "P2.THV0051.syntax"]
    assert f"{tmp_path / 'demo.star'}: the script does not parse: line 2" in finding.message
    (check,) = report.units[0].scripted
    assert check.script is not None and check.script_file == tmp_path / "demo.star"
