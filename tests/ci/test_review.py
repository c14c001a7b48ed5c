"""Living with the gate: every intended change has a green, reviewed path, and nothing unreviewed
passes.

As a team would: a scratch repository with a bare origin, ``corpus/example`` migrated with
``migrate --write`` and merged, then one change at a time, checked with the pre-commit hook
(against ``HEAD``) while staged, then committed and checked as the README's CI runs it
(``check vmcp/ --baseline-git origin/main --format github``), with a small scenario budget.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import CORPUS, UPSTREAM_CORPUS
from transpiler.changes import Change, ChangeKind, markdown_section
from transpiler.cli import main
from transpiler.harness.reporting.github import workflow_annotations
from transpiler.sidecar import read_entries, render

FAST = ["--examples", "6", "--paths", "4", "--jobs", "1"]
CONFIG = Path("vmcp/vmcp-config.yaml")
SIDECAR = Path("vmcp/vmcp-config.yaml.composite-baseline")
POLICY = Path("vmcp/vmcp-transpile.yaml")
#: The repository's vMCP takes annotations on scripted tools, so a migrated script lists the
#: composite tool's hints and declares no ``listing``: a changed description then shows it.
TARGET = "target: thv-0051+annotations\n"
#: Every class corpus/example's scripts show, pinned.
PINNED = TARGET + (
    "accept: [error-text, json-text, missing-value, number-text, output-rendering, "
    "step-timeout, value-text]\n"
)
LEGACY = UPSTREAM_CORPUS / "vmcp-composition-demo" / "vmcp-config-v2-structured-output.yaml"


def git(where: Path, *arguments: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(where), "-c", "user.name=t", "-c", "user.email=t@t", *arguments],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bare origin whose ``main`` holds corpus/example migrated and merged, and whose
    ``before`` holds it before the migration."""
    root = tmp_path_factory.mktemp("review")
    bare = root / "origin.git"
    git(root, "init", "-q", "--bare", str(bare))
    work = root / "seed"
    git(root, "clone", "-q", str(bare), str(work))
    git(work, "checkout", "-q", "-b", "main")
    (work / "vmcp").mkdir()
    shutil.copy(CORPUS / "example" / "vmcp-config.yaml", work / CONFIG)
    (work / POLICY).write_text(TARGET)
    git(work, "add", ".")
    git(work, "commit", "-qm", "composite tools")
    git(work, "branch", "before")
    git(work, "checkout", "-q", "-b", "migrate")
    written = main(["migrate", str(work / "vmcp"), "--write", "--no-diff", *FAST[:4]])
    assert written == 0
    git(work, "add", "-A")
    git(work, "commit", "-qm", "migrate")
    git(work, "checkout", "-q", "main")
    git(work, "merge", "-q", "--no-ff", "migrate", "-m", "merge the migration")
    git(work, "push", "-q", "origin", "main", "before")
    return bare


@pytest.fixture
def work(
    seeded: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> Iterator[Path]:
    """A clone of its own origin (a copy of the seeded one), on ``main``, as the working
    directory."""
    origin = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(seeded), str(origin))
    clone = tmp_path / "work"
    git(tmp_path, "clone", "-q", "-b", "main", str(origin), str(clone))
    monkeypatch.chdir(clone)
    monkeypatch.setenv("TRANSPILER_CACHE", str(tmp_path / "cache"))
    capsys.readouterr()
    yield clone


def ci(capsys: pytest.CaptureFixture[str], *more: str, rev: str = "origin/main") -> tuple[int, str]:
    """The README's CI command on the committed change."""
    code = main(["check", "vmcp/", "--baseline-git", rev, "--format", "github", *FAST, *more])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def hook(capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """The pre-commit hook on the staged change: its args, then the staged files it matches."""
    staged = git(Path("."), "diff", "--cached", "--name-only", "--diff-filter=ACMR").split()
    files = [name for name in staged if re.search(r"\.(ya?ml|json|star|composite-baseline)$", name)]
    code = main(["hook", "vmcp/", *FAST, *files])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def change(capsys: pytest.CaptureFixture[str], message: str) -> tuple[int, str, int, str]:
    """Stage everything, run the hook, commit, run CI: both exit codes and outputs."""
    git(Path("."), "add", "-A")
    hooked, hook_out = hook(capsys)
    git(Path("."), "commit", "-qm", message)
    code, out = ci(capsys)
    return hooked, hook_out, code, out


def push(message: str) -> None:
    """Commit and merge into origin's main (a reviewed pull request)."""
    git(Path("."), "add", "-A")
    git(Path("."), "commit", "-qm", message)
    git(Path("."), "push", "-q", "origin", "main")


def edit(path: Path, old: str, new: str, within: str | None = None) -> None:
    """Replace ``old`` by ``new`` in ``path`` (only inside the tool ``within``, when given)."""
    text = path.read_text()
    start, end = tool_span(text, within) if within is not None else (0, len(text))
    assert old in text[start:end], old
    path.write_text(text[:start] + text[start:end].replace(old, new, 1) + text[end:])


def tool_span(text: str, name: str) -> tuple[int, int]:
    """Where the list item of the tool ``name`` is (with the comment lines above it)."""
    at = text.index(f"  - name: {name}\n")
    start = at
    while text.rfind("\n  #", 0, start - 1) == text.rfind("\n", 0, start - 1):
        start = text.rfind("\n", 0, start - 1) + 1
    following = re.compile(r"^  [-#]", re.MULTILINE).search(text, at + 1)
    return start, following.start() if following is not None else len(text)


def drop_tool(path: Path, name: str) -> None:
    text = path.read_text()
    start, end = tool_span(text, name)
    path.write_text(text[:start] + text[end:])


def drop_entry(name: str) -> None:
    kept = [entry for entry in read_entries(SIDECAR) if entry.name != name]
    SIDECAR.write_text(render(CONFIG.name, kept))


def to_csv(path: Path) -> None:
    """sync_inventory's export in another format (in its script, or in its record)."""
    if path == CONFIG:
        edit(CONFIG, '{"format": "json"', '{"format": "csv"', within="sync_inventory")
    else:
        edit(SIDECAR, "format: json", "format: csv", within="sync_inventory")


def commands(out: str, level: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith(f"::{level} ")]


def test_an_unintended_script_edit_fails(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    to_csv(CONFIG)
    hooked, hook_out, code, out = change(capsys, "csv")
    assert (hooked, code) == (1, 1), hook_out + out
    assert re.search(r"FAIL +differs +sync_inventory", out)
    assert not commands(out, "notice")


def test_the_replay_command_a_failure_prints_shows_the_difference(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The ``run`` command printed under a counterexample replays it as ``check`` judged it:
    for the policy's target (scripted tools that list annotations), against REV's record."""
    to_csv(CONFIG)
    code, out = ci(capsys)
    assert code == 1, out
    (replay,) = [line for line in out.splitlines() if line.startswith("  replay: ")]
    words = shlex.split(replay.removeprefix("  replay: "))
    assert words[:3] == ["python", "-m", "transpiler"], words
    assert main(words[3:]) == 0
    shown = capsys.readouterr().out
    assert 'vMCP:   "json"' in shown and 'script: "csv"' in shown, shown


def test_serve_takes_the_policys_target(work: Path) -> None:
    """``serve`` reads the scripted tools as the policy's vMCP takes them (with annotations):
    every migrated tool is served, none refused."""
    served = subprocess.run(
        [sys.executable, "-m", "transpiler", "serve", "vmcp/"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert served.returncode == 0, served.stderr
    assert "not served" not in served.stderr, served.stderr
    assert "serving 4 tool(s) on stdio" in served.stderr, served.stderr


def test_a_script_and_its_record_edited_together_pass_as_a_reviewed_change(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    to_csv(CONFIG)
    to_csv(SIDECAR)
    hooked, hook_out, code, out = change(capsys, "csv, reviewed")
    assert (hooked, code) == (0, 0), hook_out + out
    assert "against HEAD's record: differs" in hook_out
    notices = commands(out, "notice")
    assert len(notices) == 1 and "title=sync_inventory%3A record" in notices[0]
    # The entry's YAML diff, and the old record's verdict with what differs.
    assert "-          format: json%0A+          format: csv" in notices[0]
    assert "against origin/main's record: differs" in notices[0]
    assert '{"format": "json", "include_retired": false}' in notices[0]
    lines = [line for line in out.splitlines() if line.startswith("CHANGE")]
    assert lines == [line for line in lines if "sync_inventory: its record is edited" in line]
    assert len(lines) == 1
    assert "the script, certified against it as edited: equivalent" in lines[0]
    # The JSON and Markdown reports carry it too.
    report, summary = tmp_path / "report.json", tmp_path / "report.md"
    code, _ = ci(capsys, "--report-json", str(report), "--report-md", str(summary))
    assert code == 0
    entries = json.loads(report.read_text())["changes"]
    assert [(e["kind"], e["level"], e["tools"]) for e in entries] == [
        ("record", "allow", ["sync_inventory"])
    ]
    assert entries[0]["before"]["verdict"] == "differs"
    assert entries[0]["before"]["counterexample"]["differences"]
    markdown = summary.read_text()
    assert "## Changes since `origin/main`" in markdown
    assert "**CHANGE** `record`: sync\\_inventory: its record is edited" in markdown


def test_a_rename_names_both_names(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for path in (CONFIG, SIDECAR):
        edit(path, "  - name: sync_inventory\n", "  - name: sync_assets\n")
    hooked, hook_out, code, out = change(capsys, "rename")
    assert (hooked, code) == (0, 0), hook_out + out
    (notice,) = commands(out, "notice")
    assert "sync_inventory -> sync_assets: renamed" in notice


def test_the_ci_command_checks_in_worker_processes(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Scripted tools that list annotations (this repository's target) reach ``check``'s worker
    processes: the CI command on more than one job passes the merged migration."""
    code, out = ci(capsys, "--jobs", "2")
    assert code == 0, out
    assert "4 of 4 tool(s) pass" in out and "internal error" not in out


def test_a_retirement_names_the_tool(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    drop_tool(CONFIG, "sync_inventory")
    drop_entry("sync_inventory")
    hooked, hook_out, code, out = change(capsys, "retire")
    assert (hooked, code) == (0, 0), hook_out + out
    (notice,) = commands(out, "notice")
    assert "title=sync_inventory%3A retire" in notice and "retired" in notice
    assert "3 of 3 tool(s) pass" in out


@pytest.mark.parametrize("first", ["script", "entry"])
def test_the_advice_for_half_a_retirement_leads_to_a_green_one(
    first: str, work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Removing the script alone, or the entry alone, fails saying what to do; doing it passes."""
    if first == "script":
        drop_tool(CONFIG, "sync_inventory")
        advice = "to retire the tool, delete that entry in the same change"
    else:
        drop_entry("sync_inventory")
        advice = "or retire the tool by removing its scripted tool in the same change"
    git(Path("."), "add", "-A")
    code, out = hook(capsys)
    assert code == 1 and advice in out, out
    if first == "script":
        drop_entry("sync_inventory")
    else:
        drop_tool(CONFIG, "sync_inventory")
    hooked, hook_out, code, out = change(capsys, "retire")
    assert (hooked, code) == (0, 0), hook_out + out


def test_a_composite_tool_deleted_before_any_migration_is_retired(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    git(work, "checkout", "-q", "before")
    drop_tool(CONFIG, "sync_inventory")
    hooked, hook_out, code, out = change(capsys, "retire")
    code, out = ci(capsys, rev="origin/before")
    assert (hooked, code) == (0, 0), hook_out + out
    (notice,) = commands(out, "notice")
    assert "sync_inventory: retired; its composite tool" in notice


def test_an_added_tool_is_reported_as_added(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    added = "\ncompositeTools:\n  - name: echo_once\n    description: Echo\n    steps:\n"
    added += "      - id: say\n        tool: echo\n        arguments: {text: hi}\n"
    CONFIG.write_text(CONFIG.read_text() + added)
    hooked, hook_out, code, out = change(capsys, "add")
    assert (hooked, code) == (0, 0), hook_out + out
    (notice,) = commands(out, "notice")
    assert "echo_once: added: a composite tool" in notice


def widen() -> None:
    """A class added to scan_image_packages's header while its description changes, which makes
    the class show (clients list the tool otherwise)."""
    tool = "scan_image_packages"
    edit(CONFIG, "      #   - error-text", "      #   - listing\n      #   - error-text", tool)
    edit(CONFIG, "check each against OSV\n", "check each against OSV, fast\n", tool)


def test_a_widened_declaration_names_the_class_and_a_pinned_accept_refuses_it(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    widen()
    hooked, hook_out, code, out = change(capsys, "widen")
    assert (hooked, code) == (0, 0), hook_out + out
    (notice,) = commands(out, "notice")
    assert "scan_image_packages: its script's header declares listing (shows in this run)" in notice
    # With the policy pinning the classes accepted (merged first), the same change fails.
    git(work, "reset", "-q", "--hard", "origin/main")
    POLICY.write_text(PINNED)
    push("pin the classes")
    widen()
    hooked, hook_out, code, out = change(capsys, "widen")
    assert (hooked, code) == (1, 1), hook_out + out
    assert "title=scan_image_packages%3A widen" in commands(out, "notice")[0]
    assert re.search(r"FAIL +equivalent-except +scan_image_packages", out)


def test_a_class_the_policy_refuses_is_named_and_accepting_it_in_the_change_passes(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The console (what the hook shows) says which class the policy does not accept and where
    to accept it; doing so in the same change passes, with both changes for review."""
    POLICY.write_text(PINNED)
    push("pin the classes")
    widen()
    git(Path("."), "add", "-A")
    hooked, hook_out = hook(capsys)
    assert hooked == 1, hook_out
    assert "  not accepted: listing showed, and the policy's `accept:`" in hook_out
    POLICY.write_text(PINNED.replace("accept: [", "accept: [listing, "))
    hooked, hook_out, code, out = change(capsys, "widen, accepted")
    assert (hooked, code) == (0, 0), hook_out + out
    titles = [notice.split("::")[1] for notice in commands(out, "notice")]
    assert any("title=scan_image_packages%3A widen" in title for title in titles)
    assert any("title=vmcp/vmcp-transpile.yaml%3A policy" in title for title in titles)


def narrow() -> None:
    """deploy_with_approval's header no longer declares rust-engine (which it never shows)."""
    text = CONFIG.read_text()
    start, end = tool_span(text, "deploy_with_approval")
    item = re.sub(r"      #   - rust-engine:.*\n(      #     .*\n)*", "", text[start:end])
    assert item != text[start:end]
    CONFIG.write_text(text[:start] + item + text[end:])


def test_a_narrowed_declaration_is_reported(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    narrow()
    hooked, hook_out, code, out = change(capsys, "narrow")
    assert (hooked, code) == (0, 0), hook_out + out
    (notice,) = commands(out, "notice")
    assert "deploy_with_approval: its script's header no longer declares rust-engine" in notice


@pytest.mark.parametrize("where", ["change", "revision"])
def test_the_policy_can_deny_a_kind_and_a_change_cannot_loosen_it(
    where: str, work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if where == "revision":
        POLICY.write_text(TARGET + "changes: {widen: deny}\n")
        push("deny widening")
        POLICY.write_text(TARGET)  # the change drops the rule while it widens
    else:
        POLICY.write_text(TARGET + "changes: {widen: deny}\n")
    widen()
    hooked, hook_out, code, out = change(capsys, "widen")
    assert (hooked, code) == (1, 1), hook_out + out
    (error,) = [a for a in commands(out, "error") if "widen" in a]
    assert "title=scan_image_packages%3A widen" in error and "changes: widen: deny" in error
    assert any("title=vmcp/vmcp-transpile.yaml%3A policy" in a for a in commands(out, "notice"))


def test_the_policy_can_make_a_kind_a_warning(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    POLICY.write_text(TARGET + "changes: {narrow: warn}\n")
    push("warn on narrowing")
    narrow()
    hooked, hook_out, code, out = change(capsys, "narrow")
    assert (hooked, code) == (0, 0), hook_out + out
    (warning,) = [a for a in commands(out, "warning") if "narrow" in a]
    assert "title=deploy_with_approval%3A narrow" in warning
    assert re.search(r"^WARN +narrow +deploy_with_approval:", out, re.MULTILINE)


def test_a_bad_change_level_exits_2_naming_file_and_line(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    POLICY.write_text(TARGET + "accept: declared\nchanges:\n  widen: sometimes\n")
    git(Path("."), "add", "-A")
    code, out = hook(capsys)
    assert code == 2
    assert "vmcp/vmcp-transpile.yaml:4:10: changes: widen: give allow, warn or deny" in out


def test_a_configuration_vmcp_rejects_beside_good_ones_fails_naming_file_phase_and_error(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(LEGACY, "vmcp/legacy.yaml")
    hooked, hook_out, code, out = change(capsys, "legacy")
    assert (hooked, code) == (1, 1), hook_out + out
    (error,) = commands(out, "error")
    assert error.startswith("::error file=vmcp/legacy.yaml,")
    assert "not-converted" in error and "P1 (config load)" in error
    assert "field incoming_auth not found" in error or "field group not found" in error


def test_a_composite_tool_beside_a_recorded_script_does_not_replace_its_record(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The script is still checked against the revision's record (and differs from it); the
    composite tool beside it is reported as a change of its record, with its own verdict."""
    to_csv(CONFIG)
    (entry,) = [e for e in read_entries(SIDECAR) if e.name == "sync_inventory"]
    beside = entry.body.replace("format: json", "format: csv")
    CONFIG.write_text(CONFIG.read_text() + "\ncompositeTools:\n" + beside)
    hooked, hook_out, code, out = change(capsys, "beside")
    assert (hooked, code) == (1, 1), hook_out + out
    assert re.search(r"FAIL +differs +sync_inventory", out)
    (notice,) = commands(out, "notice")
    assert "a composite tool beside its script" in notice
    assert "the script against the composite tool beside it: equivalent" in notice


def test_scripts_in_script_files_are_read_as_the_revision_holds_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A revision's ``scriptFile`` is read from the revision (not from a file named
    ``REV:path`` on disk): no input is unreadable, and a class added to a script file's header
    is reported at its line there."""
    repository = tmp_path / "gateway"
    (repository / "vmcp").mkdir(parents=True)
    shutil.copy(CORPUS / "example" / "vmcp-config.yaml", repository / CONFIG)
    monkeypatch.chdir(repository)
    monkeypatch.setenv("TRANSPILER_CACHE", str(tmp_path / "cache"))
    git(repository, "init", "-q")
    migrated = main(["migrate", "vmcp", "--write", "--no-diff", "--script-dir", "vmcp/scripts"])
    assert migrated == 0
    git(repository, "add", "-A")
    git(repository, "commit", "-qm", "migrated")
    script = Path("vmcp/scripts/sync_inventory.star")
    edit(script, "#   - error-text", "#   - json-text\n#   - error-text")
    capsys.readouterr()
    code, out = ci(capsys, rev="HEAD")
    assert code == 0, out
    assert "cannot be read" not in out and "INPUT.unreadable" not in out
    (notice,) = commands(out, "notice")
    line = script.read_text().splitlines().index("#   - json-text") + 1
    assert notice.startswith(f"::notice file={script},title=sync_inventory%3A widen,line={line}::")


@pytest.mark.parametrize("recorded", [True, False])
def test_a_scripted_tool_added_says_what_it_is_checked_against(
    recorded: bool, work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = CONFIG.read_text()
    start, end = tool_span(text, "sync_inventory")
    copy = text[start:end].replace("  - name: sync_inventory\n", "  - name: sync_copy\n")
    CONFIG.write_text(text + copy)
    if recorded:
        (entry,) = [e for e in read_entries(SIDECAR) if e.name == "sync_inventory"]
        body = entry.body.replace("  - name: sync_inventory\n", "  - name: sync_copy\n")
        SIDECAR.write_text(SIDECAR.read_text() + body)
    hooked, hook_out, code, out = change(capsys, "copy")
    assert (hooked, code) == (0, 0), hook_out + out
    (notice,) = commands(out, "notice")
    if recorded:
        assert "sync_copy: added: a scripted tool" in notice
        assert "certified against its record" in notice
        assert re.search(r"PASS +equivalent(-except)? +sync_copy", out)
    else:
        assert "sync_copy: added: a scripted tool" in notice
        assert "with no record: nothing checks it" in notice
        assert "with no composite tool to check against: sync_copy" in out


def test_a_configuration_vmcp_rejects_alone_is_not_converted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(LEGACY, tmp_path / "legacy.yaml")
    code = main(["check", str(tmp_path / "legacy.yaml"), *FAST])
    out = capsys.readouterr().out
    assert code == 1
    assert "nothing to check" not in out
    assert re.search(r"FAIL +not-converted +vmcp-config", out)
    assert "vMCP rejects the configuration at P1 (config load)" in out


def test_a_change_is_shown_inert_in_every_report() -> None:
    """Names and texts from the input never become markup, commands or extra lines."""
    hostile = "x\n::error::y`|<b>"
    change = Change(
        ChangeKind.RENAME, (hostile, "z"), f"{hostile} -> z: renamed", "f.yaml", 3, (hostile,)
    )
    assert "\n" not in change.console()
    (annotation,) = workflow_annotations([], None, None, [change])
    command = annotation.command()
    assert command.startswith("::notice file=f.yaml,title=") and "\n" not in command
    assert "\r" not in command and "%0A" in command  # the details are lines of the message
    section = markdown_section([change], "origin/main")
    (prose,) = [line for line in section.splitlines() if line.startswith("- **CHANGE**")]
    assert "<b>" not in prose and "\\<b\\>" in prose and "\\`" in prose
    assert "\n  ```\n  x\\x0a::error::y`|<b>\n  ```" in section  # the details, fenced
    assert json.loads(json.dumps(Change.to_json(change)))["tools"] == [hostile, "z"]
