"""The gate after migration: every way of pairing a script with its workflow (issue 12).

Scripts are paired through the scripted tool beside the composite tool (a
config, or a pair of definitions), a baseline (files, or a git revision), or
one ``--script`` for one ``--tool``. Each mode runs on both engines; edits
that change behaviour are counterexamples, an edit that fixes a named quirk
is reported as that class, a ``while`` script runs on go.starlark.net alone.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import CORPUS
from transpiler.cli import main
from transpiler.declaration import TITLE, header_item
from transpiler.deviations import Deviation
from transpiler.gobuild import go_available

EXAMPLE = CORPUS / "example" / "vmcp-config.yaml"
HANDWRITTEN = CORPUS / "goldens" / "handwritten"
BOTH = ["--engine", "both"] if go_available(needs_starlark=True) else ["--engine", "rust"]
QUICK = ["--examples", "4", "--paths", "12", "--jobs", "1"]
PASSED = re.compile(r"(\d+) of (\d+) tool\(s\) pass")


def header(*classes: Deviation) -> str:
    """A script header declaring ``classes``, and ``listing``: under THV-0051 a scripted tool
    lists no annotations, where vMCP lists the composite tool's (docs/target.md)."""
    declared = sorted({*classes, Deviation.LISTING})
    return "".join(f"{line}\n" for line in [f"# {TITLE}", *map(header_item, declared)])


def check(capsys: pytest.CaptureFixture[str], *arguments: str | Path) -> tuple[int, str]:
    code = main(["check", *map(str, arguments)])
    return code, capsys.readouterr().out


def verdicts(out: str) -> dict[str, str]:
    """Each tool's verdict in ``check``'s console output."""
    found = re.findall(
        r"^(?:PASS|FAIL)\s+(equivalent-except|equivalent|differs|not-converted|unchecked)"
        r"\s+(\S+)\s",
        out,
        re.MULTILINE,
    )
    return {tool: verdict for verdict, tool in found}


@pytest.fixture
def config(tmp_path: Path) -> Path:
    """A copy of the bundled example (four composite tools)."""
    path = tmp_path / "gateway" / "vmcp-config.yaml"
    path.parent.mkdir()
    shutil.copy(EXAMPLE, path)
    return path


def migrate(path: Path, *options: str) -> None:
    assert main(["migrate", str(path), "--write", "--examples", "2", *options]) == 0


# --- scripted tools beside their composite tools -----------------------------------------


def test_migrate_keep_composite_then_check_is_green_and_a_broken_edit_is_not(
    config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    migrate(config, "--keep-composite")
    capsys.readouterr()
    code, out = check(capsys, config, *BOTH, *QUICK)
    assert code == 0, out
    assert set(verdicts(out)) == {
        "deploy_with_approval",
        "investigate_incident",
        "scan_image_packages",
        "sync_inventory",
    }
    assert "emitted" not in out and out.count(f"script {config}:") == 4
    text = config.read_text()
    scripted = text.index("scriptedTools:")
    edited = text[:scripted] + text[scripted:].replace(
        '"include_retired": False', '"include_retired": True'
    )
    assert edited != text
    config.write_text(edited)
    code, out = check(capsys, config, *BOTH, *QUICK, "--counterexamples", config.parent / "ce")
    assert code == 1
    assert verdicts(out)["sync_inventory"] == "differs"
    assert "include_retired" in out and "scenario saved to" in out
    assert PASSED.search(out).groups() == ("3", "4")  # type: ignore[union-attr]


def test_definitions_pair_with_their_scripted_definitions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "definition.yaml"
    path.write_text(DEFINITION)
    migrate(path, "--keep-composite")
    assert "kind: VirtualMCPScriptedToolDefinition" in path.read_text()
    capsys.readouterr()
    code, out = check(capsys, path, *BOTH, *QUICK)
    assert code == 0, out
    assert verdicts(out) == {"fetch_twice": "equivalent-except"}
    assert f"script {path}:" in out and "[error-text, listing]" in out


DEFINITION = """\
apiVersion: toolhive.stacklok.dev/v1alpha1
kind: VirtualMCPCompositeToolDefinition
metadata:
  name: fetch-twice
  namespace: tools
spec:
  name: fetch_twice
  description: Fetch a page, then fetch it again
  parameters:
    type: object
    properties:
      url: {type: string}
    required: [url]
  steps:
    - id: first
      tool: web.fetch
      arguments:
        url: "{{.params.url}}"
    - id: second
      tool: web.fetch
      dependsOn: [first]
      arguments:
        url: "{{.params.url}}"
"""


def test_scripts_in_script_files_are_read_from_there(
    config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    migrate(config, "--keep-composite", "--script-dir", str(config.parent / "scripts"))
    assert "scriptFile:" in config.read_text()
    script = config.parent / "scripts" / "sync_inventory.star"
    capsys.readouterr()
    code, out = check(capsys, config, *QUICK)
    assert code == 0, out
    assert f"({script})" in out
    script.write_text(script.read_text().replace('"json"', '"csv"'))
    code, out = check(capsys, config, *QUICK, "--counterexamples", config.parent / "ce")
    assert code == 1 and verdicts(out)["sync_inventory"] == "differs"


# --- a baseline ----------------------------------------------------------------------------


def test_a_migrated_config_against_its_baseline(
    config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    migrate(config)
    capsys.readouterr()
    baseline = config.with_name(config.name + ".composite-baseline")
    code, out = check(capsys, config, *QUICK)
    assert code == 0, out
    assert out.count(f"({baseline}; script {config}:") == 4
    baseline.unlink()  # without its composite baseline, a migrated config has nothing to check
    code, out = check(capsys, config, *QUICK)
    assert "nothing to check" in out and "sync_inventory" in out
    assert code == 1  # a gate with nothing to check does not pass
    code, out = check(capsys, config, *QUICK, "--format", "json")
    assert code == 1
    assert json.loads(out)["unpaired"] == [
        "deploy_with_approval",
        "investigate_incident",
        "scan_image_packages",
        "sync_inventory",
    ]
    code, out = check(capsys, config, "--baseline", EXAMPLE, *BOTH, *QUICK)
    assert code == 0, out
    assert len(verdicts(out)) == 4 and out.count(f"script {config}:") == 4


def test_a_baseline_from_git(config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repository = config.parent
    git = ["git", "-C", str(repository), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "composite"], check=True)
    migrate(config)
    capsys.readouterr()
    code, out = check(capsys, config, "--baseline-git", "HEAD", *BOTH, *QUICK)
    assert code == 0, out
    # The change's record (the composite baseline migrate wrote) certifies each script.
    assert f"({config}.composite-baseline; script " in out and len(verdicts(out)) == 4
    assert out.count("CHANGE  migrate  ") == 4
    text = config.read_text()
    config.write_text(text[: text.index("  - name: sync_inventory")])  # the tool is gone
    code, out = check(capsys, config, "--baseline-git", "HEAD", *QUICK)
    assert code == 1
    assert verdicts(out)["sync_inventory"] == "not-converted"
    assert "no scripted or composite tool named sync_inventory in the configuration" in out
    code, out = check(capsys, config, "--baseline-git", "no-such-revision", *QUICK)
    assert code == 2


# --- one script for one tool ---------------------------------------------------------------


def test_a_hand_written_script_is_equivalent_except_for_its_classes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    script = HANDWRITTEN / "sync_inventory.star"
    code, out = check(
        capsys, EXAMPLE, "--script", script, "--tool", "sync_inventory", *BOTH, *QUICK
    )
    assert code == 0, out
    assert verdicts(out) == {"sync_inventory": "equivalent-except"}
    assert f"script {script})" in out and "[error-text, listing, step-timeout]" in out


BREAKING_EDITS = {
    "dropped retry": (
        "sync_inventory",
        'return retry(\n        lambda: call_tool("cmdb.export_assets", {"format": "json", '
        '"include_retired": False}),\n        max_attempts=4,\n        delay="2s",\n    )',
        'return call_tool("cmdb.export_assets", {"format": "json", "include_retired": False})',
    ),
    "wrong argument": ("sync_inventory", '"format": "json"', '"format": "csv"'),
    "swapped branch": (
        "deploy_with_approval",
        'if approval.action != "accept":',
        'if approval.action == "accept":',
    ),
}


@pytest.mark.parametrize("edit", BREAKING_EDITS)
def test_an_edit_that_changes_behaviour_differs_with_a_counterexample(
    edit: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tool, before, after = BREAKING_EDITS[edit]
    original = (HANDWRITTEN / f"{tool}.star").read_text()
    assert before in original
    script = tmp_path / f"{tool}.star"
    script.write_text(original.replace(before, after))
    arguments: list[str | Path] = ["--script", script, "--tool", tool, *BOTH, *QUICK]
    code, out = check(capsys, EXAMPLE, *arguments, "--counterexamples", tmp_path)
    assert code == 1
    assert verdicts(out) == {tool: "differs"}
    assert "scenario saved to" in out


NOTE_TOOL = """\
compositeTools:
  - name: annotate
    description: Send a note (optional) to the log
    parameters:
      type: object
      properties:
        note: {type: string}
    steps:
      - id: send
        tool: log.write
        arguments:
          text: "{{.params.note}}"
"""


def test_an_edit_that_fixes_a_named_quirk_is_reported_as_that_class(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "annotate.yaml"
    config.write_text(NOTE_TOOL)
    faithful = 'def run(params):\n    return call_tool("log.write", {"text": %s})\n'
    script = tmp_path / "annotate.star"
    script.write_text(header(Deviation.ERROR_TEXT) + faithful % 'params.get("note", "<no value>")')
    code, out = check(capsys, config, "--script", script, "--tool", "annotate", *BOTH, *QUICK)
    assert code == 0 and "[error-text, listing]" in out, out  # the script's wording, always
    script.write_text(header(Deviation.ERROR_TEXT) + faithful % 'params.get("note", "")')
    code, out = check(capsys, config, "--script", script, "--tool", "annotate", *BOTH, *QUICK)
    assert code == 1 and verdicts(out) == {"annotate": "differs"}, out  # the header is the law
    assert "missing-value, which the script does not declare" in out
    assert (
        "add under its header's line 1" in out
        and f"  {header_item(Deviation.MISSING_VALUE)}" in out
    )
    script.write_text(
        header(Deviation.ERROR_TEXT, Deviation.MISSING_VALUE) + faithful % 'params.get("note", "")'
    )
    code, out = check(capsys, config, "--script", script, "--tool", "annotate", *BOTH, *QUICK)
    assert code == 0 and verdicts(out) == {"annotate": "equivalent-except"}, out
    assert "[error-text, listing, missing-value]" in out
    code, out = check(capsys, config, "--script", script, "--tool", "annotate", "--strict", *QUICK)
    assert code == 1


@pytest.mark.skipif(not go_available(needs_starlark=True), reason="needs go.starlark.net")
def test_a_while_loop_runs_on_go_only_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "sync.star"
    script.write_text(
        header(Deviation.ERROR_TEXT, Deviation.STEP_TIMEOUT) + "def run(params):\n"
        "    waited = 0\n"
        "    while waited < 2:\n"
        "        waited += 1\n"
        '    return retry(lambda: call_tool("cmdb.export_assets", '
        '{"format": "json", "include_retired": False}), max_attempts=4, delay="2s")\n'
    )
    rust = ["--engine", "rust"]  # asked for starlark-rust, which cannot parse `while`
    arguments: list[str | Path] = [EXAMPLE, "--script", script, "--tool", "sync_inventory"]
    arguments += [*QUICK, *rust, "--verbose"]
    code, out = check(capsys, *arguments)
    assert code == 0, out
    assert "note: checked on go.starlark.net only" in out and "`while`" in out
    code, out = check(capsys, *arguments, "--format", "json")
    assert code == 0
    (entry,) = json.loads(out)["tools"]
    assert entry["certificate"]["engines"] == ["go"]


def test_a_script_calling_a_tool_the_workflow_never_calls_differs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "sync.star"
    script.write_text(
        'def run(params):\n    call_tool("cmdb.audit", {})\n'
        '    return call_tool("cmdb.export_assets", {"format": "json", "include_retired": False})\n'
    )
    code, out = check(
        capsys,
        EXAMPLE,
        "--script",
        script,
        "--tool",
        "sync_inventory",
        *BOTH,
        *QUICK,
        "--counterexamples",
        tmp_path,
    )
    assert code == 1 and verdicts(out) == {"sync_inventory": "differs"}
    assert "tool not found: cmdb.audit" in out


def test_load_finds_modules_on_the_library_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    library = tmp_path / "lib"
    library.mkdir()
    (library / "cmdb.star").write_text(
        'def export():\n    return retry(lambda: call_tool("cmdb.export_assets", '
        '{"format": "json", "include_retired": False}), max_attempts=4, delay="2s")\n'
    )
    script = tmp_path / "scripts" / "sync.star"
    script.parent.mkdir()
    script.write_text(
        header(Deviation.ERROR_TEXT, Deviation.STEP_TIMEOUT)
        + 'load("cmdb.star", "export")\n\ndef run(params):\n    return export()\n'
    )
    arguments: list[str | Path] = [EXAMPLE, "--script", script, "--tool", "sync_inventory"]
    arguments += [*BOTH, *QUICK]
    code, out = check(capsys, *arguments, "--library-path", library)
    assert code == 0, out
    code, out = check(capsys, *arguments, "--counterexamples", tmp_path)
    assert code == 1 and "cannot load cmdb.star" in out


# --- the policy file and --since -----------------------------------------------------------


def test_the_policy_file_next_to_the_config_decides_and_the_command_line_wins(
    config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (config.parent / "vmcp-transpile.yaml").write_text("strict: true\nexamples: 2\npaths: 8\n")
    code, out = check(capsys, config, "--jobs", "1")
    assert code == 1 and "strict: equivalent only" in out
    code, out = check(
        capsys,
        config,
        "--jobs",
        "1",
        "--accept",
        "error-text,listing,missing-value,number-text,output-rendering,step-timeout,value-text",
    )
    assert code == 0, out
    (config.parent / "vmcp-transpile.yaml").write_text("accept: [no-such-class]\n")
    code, _ = check(capsys, config)
    assert code == 2


def test_since_rechecks_only_what_changed(
    config: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    migrate(config, "--keep-composite")
    capsys.readouterr()
    report = tmp_path / "report.json"
    code, _ = check(capsys, config, *QUICK, "--report-json", report)
    assert code == 0
    code, out = check(capsys, config, *QUICK, "--since", report, "--report-json", report)
    assert code == 0
    assert f"4 pair(s) unchanged since {report}: not checked again; 0 checked" in out
    assert out.count("unchanged since the earlier report") == 4
    text = config.read_text()
    scripted = text.index("scriptedTools:")
    config.write_text(
        text[:scripted] + text[scripted:].replace('"format": "json"', '"format": "csv"')
    )
    code, out = check(capsys, config, *QUICK, "--since", report, "--counterexamples", tmp_path)
    assert code == 1
    assert f"3 pair(s) unchanged since {report}: not checked again; 1 checked" in out
    assert verdicts(out)["sync_inventory"] == "differs"
    code, out = check(capsys, config, *QUICK, "--since", report, "--strict")
    assert code == 1  # the policy applies to carried verdicts too


@pytest.mark.parametrize("timeout", ["    timeout: 1s\n", "    timeout: 30m\n", ""])
def test_the_scripted_tool_runs_with_its_own_timeout(
    config: Path, timeout: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The entry's ``timeout`` bounds the script's runs (none written: THV-0051's 30 minutes),
    so one that differs from the workflow's 2 minutes shows."""
    migrate(config, "--keep-composite")
    text = config.read_text()
    scripted = text.index("scriptedTools:")
    entry = text.index("  - name: sync_inventory\n", scripted)
    written = text.index("    timeout: 2m\n", entry)
    config.write_text(text[:written] + timeout + text[written + len("    timeout: 2m\n") :])
    capsys.readouterr()
    code, out = check(capsys, config, "--paths", "12", "--jobs", "1")
    assert code == 1 and verdicts(out)["sync_inventory"] == "differs", out
