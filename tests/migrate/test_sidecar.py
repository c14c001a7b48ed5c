"""The composite baseline beside a migrated file keeps ``check`` certifying the scripts after
the composite tools are gone: the whole lifecycle in a scratch git repository, and hostile
baselines."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from transpiler.cli import main
from transpiler.config.loader import MAX_FILE_BYTES
from transpiler.sidecar import SUFFIX, read_entries, render

CONFIG = """\
name: gw
groupRef: team

compositeTools:
  # Export the inventory.
  - name: sync_inventory
    description: Pull the asset inventory
    timeout: 2m
    steps:
      - id: pull
        tool: cmdb.export_assets
        arguments:
          format: json
  - name: echo_once
    description: Echo the text
    parameters:
      type: object
      properties:
        text: {type: string}
      required: [text]
    steps:
      - id: say
        tool: echo
        arguments:
          text: "{{.params.text}}"
"""

DEFINITIONS = """\
apiVersion: toolhive.stacklok.dev/v1beta1
kind: VirtualMCPServer
metadata:
  name: gw
  namespace: team
spec:
  groupRef:
    name: team
  incomingAuth:
    type: anonymous
  config:
    groupRef: team
    compositeTools:
      - name: page
        description: Page someone
        steps:
          - id: page
            tool: pagerduty.create_incident
            arguments:
              urgency: high
    compositeToolRefs:
      - name: export
---
apiVersion: toolhive.stacklok.dev/v1beta1
kind: VirtualMCPCompositeToolDefinition
metadata:
  name: export
  namespace: team
spec:
  name: export_inventory
  description: Export the inventory
  steps:
    - id: pull
      tool: cmdb.export_assets
      arguments:
        format: json
"""

FAST = ["--examples", "8", "--paths", "4"]


def _git(repo: Path, *arguments: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com", *arguments],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository holding ``vmcp/gw.yaml``, committed."""
    root = tmp_path / "repo"
    (root / "vmcp").mkdir(parents=True)
    (root / "vmcp" / "gw.yaml").write_text(CONFIG)
    _git(root, "init", "-q")
    _git(root, "add", ".")
    _git(root, "commit", "-qm", "composite tools")
    return root


def _check(repo: Path, *more: str) -> int:
    found = repo.parent / "counterexamples"
    return main(["check", str(repo / "vmcp"), *FAST, "--counterexamples", str(found), *more])


def _migrate(repo: Path, *more: str) -> int:
    return main(["migrate", str(repo / "vmcp"), "--write", "--no-diff", *FAST, *more])


def test_the_gate_holds_before_during_and_after_the_migration(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = repo / "vmcp" / "gw.yaml"
    sidecar = config.with_name("gw.yaml" + SUFFIX)
    # Before: the composite tools, checked against the emitter's scripts.
    assert _check(repo) == 0
    # During: both forms side by side, then the composite tools gone, checked against git.
    assert _migrate(repo, "--keep-composite") == 0
    assert not sidecar.exists()
    assert _check(repo) == 0
    _git(repo, "commit", "-qam", "staged")
    assert _migrate(repo) == 0
    assert sidecar.exists()
    assert "compositeTools" not in config.read_text()
    assert _check(repo, "--baseline-git", "HEAD") == 0
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "migrated")
    capsys.readouterr()
    # After: no flag, and git's revision without any composite tool left: the baseline speaks.
    assert _check(repo) == 0
    out = capsys.readouterr().out
    assert f"sync_inventory  ({sidecar};" in out
    assert "2 of 2 tool(s) pass" in out
    assert _check(repo, "--baseline-git", "HEAD") == 0
    # An edit after the merge fails as it would have before it.
    edited = config.read_text().replace('"format": "json"', '"format": "csv"')
    assert edited != config.read_text()
    config.write_text(edited)
    capsys.readouterr()
    assert _check(repo) == 1
    out = capsys.readouterr().out
    assert "differs  sync_inventory" in out
    assert "scenario saved to" in out
    assert _check(repo, "--baseline-git", "HEAD") == 1
    # A second run changes nothing; the baseline's bytes are its own rendering.
    _git(repo, "checkout", "-q", "--", ".")
    before = sidecar.read_bytes()
    assert _migrate(repo) == 0
    assert sidecar.read_bytes() == before
    assert render("gw.yaml", read_entries(sidecar)).encode() == before


def test_a_tool_migrated_again_replaces_its_entry(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = repo / "vmcp" / "gw.yaml"
    sidecar = config.with_name("gw.yaml" + SUFFIX)
    assert _migrate(repo) == 0
    first = {entry.name: entry for entry in read_entries(sidecar)}
    assert set(first) == {"sync_inventory", "echo_once"}
    # The team brings sync_inventory back as a workflow, changes it, and migrates it again.
    migrated = config.read_text()
    start = migrated.index("  # Export the inventory.")
    end = migrated.index("  - name: echo_once")
    changed = CONFIG.replace("format: json", "format: yaml")
    tool = changed[changed.index("  # Export") : changed.index("  - name: echo_once")]
    config.write_text(migrated[:start] + migrated[end:] + "compositeTools:\n" + tool)
    assert _migrate(repo) == 0
    again = {entry.name: entry for entry in read_entries(sidecar)}
    assert set(again) == {"sync_inventory", "echo_once"}
    assert "format: yaml" in again["sync_inventory"].body
    assert again["echo_once"] == first["echo_once"]
    assert sidecar.read_text().count("- name: sync_inventory") == 1
    assert _check(repo) == 0


def test_kubernetes_documents_get_their_baseline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = tmp_path / "vmcp" / "gw.yaml"
    manifest.parent.mkdir()
    manifest.write_text(DEFINITIONS)
    assert main(["migrate", str(manifest), "--write", "--no-diff", "--no-backup", *FAST]) == 0
    sidecar = manifest.with_name("gw.yaml" + SUFFIX)
    text = sidecar.read_text()
    assert "kind: VirtualMCPCompositeToolDefinition" in text
    assert "kind: VirtualMCPServer" in text
    assert "VirtualMCPCompositeToolDefinition" not in manifest.read_text()
    capsys.readouterr()
    assert main(["check", str(tmp_path / "vmcp"), *FAST]) == 0
    out = capsys.readouterr().out
    assert "2 of 2 tool(s) pass" in out
    assert render("gw.yaml", read_entries(sidecar)) == text


def _migrated(repo: Path) -> Path:
    assert _migrate(repo) == 0
    return repo / "vmcp" / ("gw.yaml" + SUFFIX)


def test_a_baseline_that_is_not_yaml_exits_2_naming_file_and_line(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sidecar = _migrated(repo)
    sidecar.write_text(sidecar.read_text() + "  - name: [broken\n")
    capsys.readouterr()
    assert _check(repo) == 2
    captured = capsys.readouterr()
    assert f"{sidecar}:" in captured.err
    assert "Traceback" not in captured.err + captured.out
    assert "not checked: scripted tool(s) with no composite tool" in captured.out
    # migrate will not write over it either.
    config = repo / "vmcp" / "gw.yaml"
    tools = CONFIG.split("compositeTools:\n")[1]
    config.write_text(config.read_text() + "compositeTools:\n" + tools)
    before = sidecar.read_bytes(), config.read_bytes()
    assert _migrate(repo) == 2
    assert (sidecar.read_bytes(), config.read_bytes()) == before
    assert "composite baseline cannot be read" in capsys.readouterr().out


def test_an_entry_whose_scripted_tool_is_gone_fails_naming_file_and_line(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sidecar = _migrated(repo)
    config = repo / "vmcp" / "gw.yaml"
    text = config.read_text()
    config.write_text(text[: text.index("  - name: echo_once")])
    capsys.readouterr()
    assert _check(repo) == 1
    out = capsys.readouterr().out
    line = sidecar.read_text().splitlines().index("  - name: echo_once") + 1
    assert f"{sidecar}:{line}: the composite baseline records echo_once" in out
    assert "1 of 2 tool(s) pass" in out


def test_a_huge_baseline_exits_2(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sidecar = _migrated(repo)
    sidecar.write_bytes(sidecar.read_bytes() + b"#" * MAX_FILE_BYTES)
    capsys.readouterr()
    assert _check(repo) == 2
    captured = capsys.readouterr()
    assert str(sidecar) in captured.err
    assert "limit" in captured.err


def test_the_library_checks_against_a_baseline_loaded_as_a_configuration(repo: Path) -> None:
    import transpiler
    from transpiler.harness.running.check import CheckOptions

    sidecar = _migrated(repo)
    config = transpiler.load(repo / "vmcp" / "gw.yaml")
    outcomes = config.check(
        options=CheckOptions(examples=8, paths=4), baseline=transpiler.load(sidecar)
    )
    assert sorted(outcomes) == ["echo_once", "sync_inventory"]
    assert all(outcome.passes(None) for outcome in outcomes.values())


def test_after_the_merge_an_edit_is_caught_with_no_flags_and_nothing_is_left_behind(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(repo)
    cache = tmp_path / "cache"
    monkeypatch.setenv("TRANSPILER_CACHE", str(cache))
    assert main(["migrate", "vmcp", "--write", *FAST]) == 0
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "migrated")
    config = repo / "vmcp" / "gw.yaml"
    config.write_text(config.read_text().replace('"format": "json"', '"format": "csv"'))
    capsys.readouterr()
    assert main(["check", "vmcp", *FAST]) == 1
    out = capsys.readouterr().out
    assert "differs  sync_inventory" in out
    assert f"scenario saved to {cache / 'counterexamples'}" in out
    left = sorted(p.relative_to(repo).as_posix() for p in repo.rglob("*") if ".git" not in p.parts)
    assert left == ["vmcp", "vmcp/gw.yaml", "vmcp/gw.yaml" + SUFFIX]  # no .orig, no counterexamples
    assert _git(repo, "status", "--porcelain") == " M vmcp/gw.yaml\n"


@pytest.mark.parametrize("baseline", ["edited alike", "entry removed", "file removed"])
def test_with_a_git_baseline_a_record_changes_only_in_the_open(
    repo: Path, baseline: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Under ``--baseline-git`` a script is certified against its record as the change leaves
    it: a record edited with its script passes as a reviewed change, naming the tool, with the
    entry's diff and the script's verdict against the revision's record; a record removed
    while its script stays is not converted, saying how to restore or retire it."""
    assert _migrate(repo) == 0
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "migrated")
    config = repo / "vmcp" / "gw.yaml"
    sidecar = config.with_name("gw.yaml" + SUFFIX)
    config.write_text(config.read_text().replace('"format": "json"', '"format": "csv"'))
    if baseline == "edited alike":
        sidecar.write_text(sidecar.read_text().replace("format: json", "format: csv"))
    elif baseline == "entry removed":
        kept = [entry for entry in read_entries(sidecar) if entry.name != "sync_inventory"]
        sidecar.write_text(render("gw.yaml", kept))
    else:
        sidecar.unlink()
    capsys.readouterr()
    code = _check(repo, "--baseline-git", "HEAD")
    out = capsys.readouterr().out
    if baseline == "edited alike":
        assert code == 0, out
        assert "CHANGE   record  sync_inventory: its record is edited" in out
        assert "-          format: json\n  +          format: csv" in out
        assert "against HEAD's record: differs" in out
        assert "2 of 2 tool(s) pass" in out
        return
    assert code == 1, out
    assert re.search(r"FAIL +not-converted +sync_inventory", out), out
    assert "restore the entry (to rename the tool" in out
    assert "or retire the tool by removing its scripted tool in the same change" in out
