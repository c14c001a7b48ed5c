"""What a reviewer reads: PASS/FAIL lines, GitHub annotations at the line that differs (escaped
as GitHub's toolkit escapes), a Markdown report that leads with failures, JUnit a file-linking
reporter can use."""

from __future__ import annotations

import re
from pathlib import Path
from xml.etree import ElementTree

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.harness.test_witnesses import FILE_ISSUE, FILE_ISSUE_SCRIPT
from transpiler.cli import main
from transpiler.deviations import Deviation
from transpiler.harness.check import ToolReport
from transpiler.harness.github import Annotation, escape_data, escape_property
from transpiler.harness.places import Place
from transpiler.harness.reports import junit
from transpiler.harness.verdict import Verdict

SMALL = ["--examples", "4", "--paths", "4", "--jobs", "1", "--engine", "rust"]
SCRIPTED = """\
scriptedTools:
  - name: file_issue
    description: File an issue that carries a count
    parameters:
      type: object
      properties:
        count: {type: integer}
      required: [count]
    scriptFile: file_issue.star
"""


def _unescape(text: str) -> str:
    return re.sub(r"%([0-9A-F]{2})", lambda m: chr(int(m[1], 16)), text)


def test_escaping_is_the_toolkit_s() -> None:
    assert escape_data("50% done\r\nnext: a, b") == "50%25 done%0D%0Anext: a, b"
    assert escape_property("50% done\r\nnext: a, b") == "50%25 done%0D%0Anext%3A a%2C b"


@given(st.text())
def test_escaped_text_keeps_to_one_command_and_reads_back(text: str) -> None:
    data, prop = escape_data(text), escape_property(text)
    assert not set("\r\n") & set(data) and not set("\r\n:,") & set(prop)
    assert _unescape(data) == text and _unescape(prop) == text


def test_a_command_cannot_be_broken_by_its_texts() -> None:
    annotation = Annotation("error", Place("a,b:c.yaml", 3), "t::x,y", "one\n::error::two")
    assert annotation.command() == (
        "::error file=a%2Cb%3Ac.yaml,title=t%3A%3Ax%2Cy,line=3::one%0A::error::two"
    )
    assert "\n" not in annotation.command()


def _differing_pair(folder: Path) -> Path:
    config = folder / "vmcp-config.yaml"
    config.write_text(FILE_ISSUE + SCRIPTED)
    (folder / "file_issue.star").write_text(FILE_ISSUE_SCRIPT.replace('"count: %d"', '"n: %d"'))
    return config


def test_a_difference_is_annotated_at_the_script_line_that_makes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _differing_pair(tmp_path)
    reports = {name: tmp_path / name for name in ("r.md", "r.xml")}
    arguments = ["check", str(config), *SMALL, "--format", "github"]
    arguments += ["--report-md", str(reports["r.md"]), "--junit", str(reports["r.xml"])]
    assert main([*arguments, "--counterexamples", str(tmp_path / "saved")]) == 1
    out = capsys.readouterr().out
    assert re.search(r"^FAIL +differs  file_issue", out, re.M), out
    (command,) = [line for line in out.splitlines() if line.startswith("::error")]
    script = escape_property(str(tmp_path / "file_issue.star"))
    assert command.startswith(f"::error file={script},title=file_issue%3A FAIL differs,line=2::")
    message = _unescape(command.split("::", 2)[2])
    assert message.startswith("at step open_issue\ndiffers on rust:\ncalls:\n")
    assert '"n: ' in message and '"count: ' in message
    page = reports["r.md"].read_text()
    assert page.startswith("**0 of 1 tool(s) pass**")
    assert page.index("## Failing") < page.index("{\"body\": \"n: 1\"}") < page.index("## Tools")
    case = ElementTree.parse(reports["r.xml"]).getroot().find("testcase")
    assert case is not None and case.get("classname") == str(config)
    failure = case.find("failure")
    assert failure is not None and failure.get("message") == "differs at step open_issue"


def test_a_refused_class_is_annotated_at_its_step_and_every_line_says_fail(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "vmcp-config.yaml"
    config.write_text(FILE_ISSUE)
    arguments = ["check", str(config), *SMALL, "--strict", "--format", "github"]
    assert main([*arguments, "--counterexamples", str(tmp_path / "saved")]) == 1
    out = capsys.readouterr().out
    assert re.search(r"^FAIL +equivalent-except  file_issue", out, re.M), out
    assert "0 of 1 tool(s) pass (strict: equivalent only)" in out
    step_line = FILE_ISSUE.splitlines().index("      - id: open_issue") + 1
    (command,) = [line for line in out.splitlines() if line.startswith("::error")]
    assert f",line={step_line}::" in command
    assert "number-text" in _unescape(command)


def test_passing_tools_say_pass_and_unseen_classes_take_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "vmcp-config.yaml"
    config.write_text(FILE_ISSUE)
    page = tmp_path / "r.md"
    arguments = ["check", str(config), *SMALL, "--report-md", str(page)]
    assert main([*arguments, "--counterexamples", str(tmp_path / "saved")]) == 0
    assert re.search(r"^PASS +equivalent", capsys.readouterr().out, re.M)
    text = page.read_text()
    assert "## Failing" not in text and "| **PASS** |" in text
    unseen = [line for line in text.splitlines() if "not observed" in line]
    assert len(unseen) <= 1
    assert all(line.startswith("Declared, not observed in ") for line in unseen)


def test_junit_names_the_work_tree_file_and_carries_the_classes() -> None:
    report = ToolReport(
        "t", "origin/main:vmcp/config.yaml", Verdict.EQUIVALENT, declared=(Deviation.ERROR_TEXT,)
    )
    case = ElementTree.fromstring(junit([report], None, "origin/main")).find("testcase")
    assert case is not None and case.get("classname") == "vmcp/config.yaml"
    assert case.find("failure") is None
    shown = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert shown == {"verdict": "equivalent", "class:error-text": "declared, not observed"}
