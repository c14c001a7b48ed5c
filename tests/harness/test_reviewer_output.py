"""What a reviewer reads: PASS/FAIL lines, GitHub annotations at the line that differs (escaped
as GitHub's toolkit escapes), a Markdown report that leads with failures, JUnit a file-linking
reporter can use."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from xml.etree import ElementTree

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.harness.test_findings import LOOP
from tests.harness.test_witnesses import FILE_ISSUE, FILE_ISSUE_SCRIPT, ISSUE_TITLE
from transpiler.cli import main
from transpiler.deviations import Deviation
from transpiler.harness.judging.verdict import Verdict
from transpiler.harness.reporting.github import Annotation, escape_data, escape_property
from transpiler.harness.reporting.places import Place
from transpiler.harness.reporting.reports import junit
from transpiler.harness.running.check import ToolReport

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
    assert message.startswith(
        "at step open_issue\ndiffers on rust:\n"
        "  arguments.body of the call to github.create_issue (step open_issue):\n"
        '    vMCP:   "count: '
    )
    assert '    script: "n: ' in message and "{" not in message.split("scenario saved")[0]
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


INLINE_SCRIPTED = SCRIPTED.replace(
    "scriptFile: file_issue.star",
    """script: |
      def run(params):
          count = params["count"]
          return call_tool("github.create_issue", {"body": "n: %d" % count})""",
)


def _errors(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("::error")]


def test_an_inline_script_is_annotated_at_its_line_inside_the_configuration(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "vmcp-config.yaml"
    config.write_text(FILE_ISSUE + INLINE_SCRIPTED)
    arguments = ["check", str(config), *SMALL, "--format", "github"]
    assert main([*arguments, "--counterexamples", str(tmp_path / "saved")]) == 1
    (command,) = _errors(capsys.readouterr().out)
    call = '          return call_tool("github.create_issue", {"body": "n: %d" % count})'
    line = config.read_text().splitlines().index(call) + 1
    assert command.startswith(f"::error file={escape_property(str(config))},") and (
        f",line={line}::" in command
    )


ISSUE_TITLE_TOOL = ISSUE_TITLE.removeprefix("compositeTools:\n")
WRONG_TITLE = """\
def run(params):
    issue = call_tool("github.get_issue", {"number": "1"})
    return {
        "title": "always this",
    }
"""


def test_a_differing_output_is_annotated_at_the_line_that_returns_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "vmcp-config.yaml"
    config.write_text(ISSUE_TITLE)
    script = tmp_path / "title.star"
    script.write_text(WRONG_TITLE)
    arguments = ["check", str(config), "--script", str(script), "--tool", "issue_title", *SMALL]
    assert main([*arguments, "--format", "github", "--counterexamples", str(tmp_path)]) == 1
    (command,) = _errors(capsys.readouterr().out)
    assert f"::error file={escape_property(str(script))}," in command
    assert ",line=4::" in command  # the "title" key of run's return
    assert 'output.title:%0A    vMCP:   "fetch.title"%0A    script: "always this"' in command


def test_the_printed_replay_command_replays_the_scenario_and_shows_the_difference(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _differing_pair(tmp_path)
    saved = tmp_path / "saved"
    assert main(["check", str(config), *SMALL, "--counterexamples", str(saved)]) == 1
    out = capsys.readouterr().out
    (replay,) = [line.strip() for line in out.splitlines() if line.strip().startswith("replay: ")]
    words = shlex.split(replay.removeprefix("replay: "))
    assert words[:5] == ["python", "-m", "transpiler", "run", "--form"]
    scenario = Path(words[words.index("--scenario") + 1])
    assert scenario.is_relative_to(saved) and scenario.is_file()
    assert main(words[3:]) == 0
    replayed = capsys.readouterr().out
    field = "  arguments.body of the call to github.create_issue (step open_issue):\n"
    shown = out[out.index(field) :].splitlines()[:3]
    assert "\n".join(line.strip() for line in shown) in "\n".join(
        line.strip() for line in replayed.splitlines()
    )


def _two_tools(folder: Path) -> Path:
    """A configuration with file_issue's script wrong and issue_title left to the emitter."""
    config = _differing_pair(folder)
    text = config.read_text()
    config.write_text(text.replace("scriptedTools:", ISSUE_TITLE_TOOL + "scriptedTools:"))
    return config


def test_a_passing_tool_takes_one_line_unless_verbose_and_none_when_quiet(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _two_tools(tmp_path)
    arguments = ["check", str(config), *SMALL, "--counterexamples", str(tmp_path / "saved")]
    printed = {}
    for shown in ((), ("--verbose",), ("--quiet",)):
        assert main([*arguments, *shown]) == 1
        printed[shown] = capsys.readouterr().out.splitlines()

    def block(lines: list[str], tool: str) -> list[str]:
        start = next(i for i, line in enumerate(lines) if f"  {tool}  " in line)
        end = next(
            (i for i in range(start + 1, len(lines)) if not lines[i].startswith(" ")), len(lines)
        )
        return lines[start:end]

    assert len(block(printed[()], "issue_title")) == 1
    assert block(printed[()], "issue_title")[0].startswith("PASS")
    verbose = block(printed[("--verbose",)], "issue_title")
    assert any(line.startswith("  witness: ") for line in verbose)
    quiet = printed[("--quiet",)]
    assert not any("issue_title" in line for line in quiet)
    failing = block(printed[()], "file_issue")
    assert failing[0].startswith("FAIL") and block(quiet, "file_issue")[1:] == failing[1:]
    assert quiet[-1] == printed[()][-1] and quiet[-1].startswith("1 of 2 tool(s) pass")
    assert not any(line.startswith("  composite: ") for line in failing)  # both runs: verbose
    assert any(
        line.startswith("  composite: ") for line in block(printed[("--verbose",)], "file_issue")
    )


def test_a_finding_from_placeholder_values_is_a_note_not_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "vmcp-config.yaml"
    config.write_bytes(LOOP)
    arguments = ["check", str(config), *SMALL, "--format", "github", "--verbose"]
    main([*arguments, "--counterexamples", str(tmp_path / "saved")])
    out = capsys.readouterr().out
    warnings = [line for line in out.splitlines() if line.startswith("::warning")]
    assert any("prints a map or list" in line for line in warnings)  # whatever the values
    assert not any("always fails" in line for line in warnings)  # the simulator's free texts only
    assert "  note: step visit, collection: a template that always fails" in out
