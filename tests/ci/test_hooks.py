"""The gate in other people's CI: the pre-commit hook (for real, with ``pre-commit run`` on a
scratch repository whose configuration names this project) and the GitHub Action's definition."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import CORPUS, REPO_ROOT
from transpiler.cli import main
from transpiler.cli.hook import configurations_for, split_arguments
from transpiler.gobuild import GOPATH_VARIABLE, SHARED_GOPATH

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
HOOK_ID = "vmcp-transpile-check"


def commit(repository: Path, message: str) -> None:
    subprocess.run([*GIT, "-C", str(repository), "add", "."], check=True)
    subprocess.run([*GIT, "-C", str(repository), "commit", "-q", "-m", message], check=True)


@pytest.fixture(scope="module")
def hook_source(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """This project as pre-commit fetches it: a repository whose one commit holds the working
    tree (uncommitted edits included), and that commit."""
    source = tmp_path_factory.mktemp("hook-source")
    listed = subprocess.run(
        ["git", "-C", str(REPO_ROOT), "ls-files", "-z", "-co", "--exclude-standard"],
        capture_output=True,
        check=True,
    ).stdout
    for name in filter(None, listed.decode().split("\0")):
        origin = REPO_ROOT / name
        if origin.is_file():  # a tracked file deleted in the work tree is not there
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(origin, source / name)
    subprocess.run(["git", "init", "-q", str(source)], check=True)
    commit(source, "the hook under test")
    rev = subprocess.run(
        ["git", "-C", str(source), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    return source, rev


def run_hook(
    repository: Path, home: Path, source: tuple[Path, str]
) -> subprocess.CompletedProcess[str]:
    """``pre-commit run`` of this project's hook in ``repository``, configured as a team would
    (a ``repo`` and its ``rev``); ``home`` keeps pre-commit's environment between runs, as on a
    developer's machine (its output shown whatever the outcome)."""
    repo, rev = source
    config = home / "pre-commit-config.yaml"
    home.mkdir(exist_ok=True)
    config.write_text(
        yaml.safe_dump({"repos": [{"repo": str(repo), "rev": rev, "hooks": [{"id": HOOK_ID}]}]})
    )
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PRE_COMMIT")}
    environment["PRE_COMMIT_HOME"] = str(home)
    environment["TRANSPILER_CACHE"] = str(home / "transpiler-cache")
    # The toolchain named, not the one other tests running beside this one last recorded in the
    # user's cache: the hook's verdicts, and whether a pair is unchanged, depend on it.
    environment[GOPATH_VARIABLE] = str(SHARED_GOPATH)
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "-c", str(config), "--all-files", "--verbose"],
        cwd=repository,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_the_pre_commit_hook_passes_a_sound_migration_and_fails_a_broken_edit(
    tmp_path: Path, hook_source: tuple[Path, str]
) -> None:
    repository = tmp_path / "gateway"
    repository.mkdir()
    subprocess.run(["git", "init", "-q", str(repository)], check=True)
    config = repository / "vmcp-config.yaml"
    shutil.copy(CORPUS / "example" / "vmcp-config.yaml", config)
    assert main(["migrate", str(config), "--write", "--keep-composite", "--examples", "2"]) == 0
    (repository / "vmcp-transpile.yaml").write_text("examples: 3\npaths: 8\n")
    commit(repository, "migrated, composite tools kept")
    green = run_hook(repository, tmp_path / "pre-commit", hook_source)
    assert green.returncode == 0, green.stdout + green.stderr
    assert re.search(r"vmcp-transpile check\.+Passed", green.stdout), green.stdout
    text = config.read_text()
    scripted = text.index("scriptedTools:")
    config.write_text(text[:scripted] + text[scripted:].replace('"json"', '"csv"'))
    commit(repository, "a broken edit")
    red = run_hook(repository, tmp_path / "pre-commit", hook_source)
    assert red.returncode == 1, red.stdout + red.stderr
    assert re.search(r"vmcp-transpile check\.+Failed", red.stdout), red.stdout
    assert "FAIL            differs  sync_inventory" in red.stdout
    # The edit undone in a commit that also adds a file no pair reads: the pair that failed is
    # checked again, and the three that did not change are carried over from the hook's last
    # report (how long that takes is measured by benchmarks/bench_startup.py).
    config.write_text(text)
    (repository / "NOTES.md").write_text("not a configuration\n")
    commit(repository, "the edit undone")
    fixed = run_hook(repository, tmp_path / "pre-commit", hook_source)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert re.search(r"\b3 pair\(s\) unchanged since .*; 1 checked", fixed.stdout), fixed.stdout


def test_the_hook_definition_runs_on_the_staged_files_it_reads() -> None:
    (hook,) = yaml.safe_load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == HOOK_ID
    assert hook["entry"] == "vmcp-transpile hook" and hook["language"] == "python"
    assert hook["pass_filenames"] is True
    pattern = re.compile(hook["files"])
    reads = ("a.yaml", "a.yml", "a.json", "lib/a.star", "a.yaml.composite-baseline")
    assert all(pattern.search(n) for n in reads)
    assert not any(pattern.search(n) for n in ("a.py", "README.md", "a.star.orig"))


def test_a_staged_script_brings_the_configuration_that_names_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repository = tmp_path / "gateway"
    (repository / "lib").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repository)], check=True)
    (repository / "a.yaml").write_text("scriptedTools:\n  - name: a\n    scriptFile: a.star\n")
    (repository / "b.yaml").write_text("compositeTools: []\n")
    (repository / "a.star").write_text('load("helpers.star", "h")\n')
    (repository / "lib" / "helpers.star").write_text("h = 1\n")
    (repository / "workflow.yaml").write_text("on: push\n")
    commit(repository, "scripts")
    monkeypatch.chdir(repository)
    assert configurations_for([Path("a.star")], []) == [Path("a.yaml")]
    assert configurations_for([Path("lib/helpers.star")], []) == [Path("a.yaml")]
    assert configurations_for([Path("b.yaml"), Path("workflow.yaml")], []) == [Path("b.yaml")]
    assert configurations_for([Path("a.star")], [repository / "lib"]) == []
    (repository / "a.yaml.composite-baseline").write_text("compositeTools: []\n")
    assert configurations_for([Path("a.yaml.composite-baseline")], []) == [Path("a.yaml")]
    files, scopes, options = split_arguments(
        ["lib", "--strict", "--engine", "go", "--baseline-git", "main", "a.yaml"]
    )
    assert files == [Path("a.yaml")] and scopes == [Path("lib")]
    assert options == ["--strict", "--engine", "go", "--baseline-git", "main"]


def test_the_action_is_valid_and_its_inputs_are_documented() -> None:
    action = yaml.safe_load((REPO_ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    inputs = set(action["inputs"])
    assert inputs == {
        "paths",
        "engine",
        "shard",
        "args",
        "junit",
        "report-md",
        "counterexamples",
        "artifact-name",
        "python-version",
    }
    assert action["inputs"]["engine"]["default"] == "go"
    uses = [str(step.get("uses", "")) for step in action["runs"]["steps"]]
    assert any(use.startswith("actions/setup-go@") for use in uses)
    assert action["inputs"]["paths"]["required"] is True
    readme = (REPO_ROOT / "README.md").read_text()
    step = re.search(r"uses: \S+/vmcp-starlark-transpiler@", readme)
    assert step is not None, "the README shows no step using the Action"
    start = readme.index("with:", step.end())
    example = readme[start : readme.index("```", start)]
    documented = set(re.findall(r"^\s+([a-z-]+):", example, re.MULTILINE))
    assert documented == inputs, documented
    for step in action["runs"]["steps"]:
        for line in str(step.get("run", "")).splitlines():
            assert "${{" not in line, f"input interpolated into a shell command: {line}"
    check = next(step for step in action["runs"]["steps"] if step.get("id") == "check")
    assert '--junit "$JUNIT" --report-md "$REPORT_MD"' in check["run"]
    assert '--shard "$SHARD"' in check["run"]
    assert "--format github" in check["run"]
    assert "GITHUB_STEP_SUMMARY" in check["run"] and "exit $code" in check["run"]
