"""The header is the declaration: a script declares exactly the classes its ``Where it differs
from vMCP`` block lists, whoever wrote it; no block, no classes."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import CORPUS
from transpiler.cli import main
from transpiler.config.loader import load_paths
from transpiler.declaration import TITLE, declared_in, header_item
from transpiler.deviations import Deviation
from transpiler.emit import emit_tool
from transpiler.harness.judging.verdict import Verdict
from transpiler.harness.running.check import CheckOptions, check_tool

EXAMPLE = CORPUS / "example" / "vmcp-config.yaml"
CODE = 'def run(params):\n    return call_tool("x.y", {})\n'


def test_no_block_declares_nothing() -> None:
    assert declared_in("# a script\n" + CODE).classes == frozenset()
    declared_after_code = f"# {TITLE}\n{header_item(Deviation.ERROR_TEXT)}\n"
    assert declared_in(CODE + declared_after_code).classes == frozenset()


def test_the_emitters_block_and_the_older_exact_title_are_read() -> None:
    item = header_item(Deviation.MISSING_VALUE)
    text = f"# t: d\n#\n# {TITLE}\n{item}\n#   - error-text\n\n" + CODE
    declaration = declared_in(text)
    assert declaration.lines == {Deviation.MISSING_VALUE: 4, Deviation.ERROR_TEXT: 5}
    assert declaration.title_line == 3 and declaration.problem() is None
    older = "# Where it behaves differently from vMCP:\n#   - parallel-cap: text\n" + CODE
    assert declared_in(older).classes == {Deviation.PARALLEL_CAP}


def test_the_block_ends_at_the_first_line_that_is_not_an_item() -> None:
    text = (
        f"# {TITLE}\n#   - error-text: wording\n#     goes on\n#\n#   - skip-remaining\n" + CODE
    )
    assert declared_in(text).classes == {Deviation.ERROR_TEXT}
    outdented = f"# {TITLE}\n#   - error-text\n# - value-text\n" + CODE
    assert declared_in(outdented).classes == {Deviation.ERROR_TEXT}


def test_an_unknown_class_is_a_problem_naming_its_line() -> None:
    declaration = declared_in(f"# {TITLE}\n#   - eror-text: typo\n" + CODE)
    assert declaration.classes == frozenset()
    problem = declaration.problem()
    assert problem is not None and "line 2" in problem and "eror-text" in problem


@given(st.lists(st.sampled_from(sorted(Deviation)), unique=True))
def test_a_written_block_reads_back_as_its_classes(classes: list[Deviation]) -> None:
    block = "".join(f"{header_item(c)}\n" for c in classes)
    assert declared_in(f"# name: what it does\n#\n# {TITLE}\n{block}\n{CODE}").classes == set(
        classes
    )


@given(st.text(max_size=300))
def test_any_text_is_read_without_error(text: str) -> None:
    declaration = declared_in(text)
    assert declaration.classes <= set(Deviation)


@pytest.mark.parametrize("style", ["readable", "exact"])
def test_every_emitted_script_declares_in_its_header_what_it_reports(style: str) -> None:
    tools = load_paths([EXAMPLE, CORPUS / "goldens" / "workflows.yaml"]).tools
    for tool in tools:
        emitted = emit_tool(tool.effective, "t.yaml:1", style=style)
        assert declared_in(emitted.script).classes == emitted.declared, tool.effective.name


def test_a_script_that_shows_an_undeclared_class_differs_and_is_told_what_to_add() -> None:
    tool = next(t for t in load_paths([EXAMPLE]).tools if t.effective.name == "sync_inventory")
    handwritten = (CORPUS / "goldens" / "handwritten" / "sync_inventory.star").read_text()
    options = CheckOptions(examples=4, paths=8)
    assert check_tool(tool, options, script=handwritten).verdict is Verdict.EQUIVALENT_EXCEPT
    bare = "\n".join(line for line in handwritten.splitlines() if not line.startswith("#"))
    report = check_tool(tool, options, script=bare)
    assert report.verdict is Verdict.DIFFERS
    assert "error-text, which the script does not declare" in report.reason
    assert f"  # {TITLE}" in report.reason and header_item(Deviation.ERROR_TEXT) in report.reason


def test_the_advice_to_declare_a_class_names_what_a_pinned_policy_must_accept() -> None:
    """No advice leads to a state the gate rejects: where the policy pins the classes it
    accepts, declaring the class is not enough, and the advice says so; doing both passes."""
    tool = next(t for t in load_paths([EXAMPLE]).tools if t.effective.name == "sync_inventory")
    handwritten = (CORPUS / "goldens" / "handwritten" / "sync_inventory.star").read_text()
    bare = "\n".join(line for line in handwritten.splitlines() if not line.startswith("#"))
    declared = declared_in(handwritten).classes
    pinned = CheckOptions(examples=4, paths=8, accept=declared - {Deviation.ERROR_TEXT})
    report = check_tool(tool, pinned, script=bare)
    assert report.verdict is Verdict.DIFFERS
    assert "and accept error-text (the policy's `accept:`, or --accept)" in report.reason
    followed = CheckOptions(examples=4, paths=8, accept=declared)
    assert check_tool(tool, followed, script=handwritten).passes(followed.accept)
    assert not check_tool(tool, pinned, script=handwritten).passes(pinned.accept)


def test_a_header_naming_no_known_class_is_unchecked() -> None:
    tool = next(t for t in load_paths([EXAMPLE]).tools if t.effective.name == "sync_inventory")
    report = check_tool(tool, CheckOptions(examples=2, paths=2), script=f"# {TITLE}\n#   - x\n")
    assert report.verdict is Verdict.UNCHECKED and "line 2: '- x'" in report.reason


# --- no vacuous pass --------------------------------------------------------------------------


def test_nothing_to_check_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "vmcp.yaml"
    empty.write_text("name: gateway\ngroupRef: g\n")
    assert main(["check", str(empty)]) == 1
    assert "nothing to check" in capsys.readouterr().out


@pytest.mark.parametrize(
    "flags", [["--paths", "0"], ["--paths", "0", "--examples", "0"], ["--examples", "-1"]]
)
def test_options_that_check_nothing_exit_1_with_the_reason(
    flags: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    script = CORPUS / "goldens" / "handwritten" / "sync_inventory.star"
    command = ["check", str(EXAMPLE), "--script", str(script), "--tool", "sync_inventory"]
    assert main([*command, *flags, "--jobs", "1"]) == 1
    out = capsys.readouterr().out
    assert "unchecked" in out and ("nothing would be certified" in out or "give 0 or more" in out)


def test_a_policy_with_no_paths_checks_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "vmcp-config.yaml"
    config.write_bytes(EXAMPLE.read_bytes())
    (tmp_path / "vmcp-transpile.yaml").write_text("examples: 0\npaths: 0\n")
    assert main(["check", str(config), "--jobs", "1"]) == 1
    assert "0 of 4 tool(s) pass" in capsys.readouterr().out


def test_the_ordinary_run_leaves_optional_parameters_out() -> None:
    """A script whose default for an optional parameter differs from the workflow's differs on
    the all-success path with that parameter omitted."""
    tool = next(
        t for t in load_paths([EXAMPLE]).tools if t.effective.name == "deploy_with_approval"
    )
    handwritten = (CORPUS / "goldens" / "handwritten" / "deploy_with_approval.star").read_text()
    assert '"#deployments"' in handwritten
    changed = handwritten.replace('"#deployments"', '"#deploys"')
    options = CheckOptions(examples=0, paths=4)
    assert check_tool(tool, options, script=handwritten).verdict is not Verdict.DIFFERS
    assert check_tool(tool, options, script=changed).verdict is Verdict.DIFFERS


