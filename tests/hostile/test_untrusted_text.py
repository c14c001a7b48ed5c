"""Untrusted text is inert in every report ``check`` writes and on its console.

Promise (docs/reference.md, "Limits"; ``transpiler/inert.py``): names, ids, paths and
script messages are data wherever they are shown. In the Markdown report (a
CI job summary) they cannot close a code fence, break out of a table cell,
start a heading, a link or raw HTML; the JUnit XML report is well-formed for
any name (no character XML 1.0 forbids); the console (``check``, ``validate``,
``migrate``) shows control characters and line breaks escaped, one tool per
line.

Reproductions: a ``fail()`` message holding a line break and three backticks
closed the witness's fence (raw ``<img onerror>``, a heading and a link
followed); a tool named with a backtick, ``|`` or a line break broke its table
cell; a tool named ``"ctl\\u0001name"`` made the JUnit report ill-formed.
"""

from __future__ import annotations

import re
import xml.parsers.expat
from pathlib import Path
from xml.etree import ElementTree

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import CORPUS, fuzz_budget
from transpiler.cli import main
from transpiler.harness.judging.verdict import Verdict
from transpiler.harness.reporting.reports import console_line, junit, markdown
from transpiler.harness.running.check import ToolReport
from transpiler.inert import markdown_block, markdown_code, markdown_text, unsafe

HOSTILE = CORPUS / "hostile" / "untrusted-text" / "names-and-messages.yaml"
TABLE_COLUMNS = 9
_FENCE = re.compile(r"^ {0,3}(`{3,})(.*)$")
_CODE_SPAN = re.compile(r"(?<![`\\])(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_ESCAPED = re.compile(r"\\[!-/:-@\[-`{-~]")


def fenced(text: str) -> tuple[list[str], list[list[str]]]:
    """The lines outside fenced code blocks, and each block's lines (CommonMark's rule: a fence
    of N backticks closes only at a line of N or more backticks and nothing else)."""
    outside: list[str] = []
    blocks: list[list[str]] = []
    fence = 0
    for line in text.split("\n"):
        match = _FENCE.match(line)
        if not fence:
            if match and "`" not in match.group(2):
                fence = len(match.group(1))
                blocks.append([])
            else:
                outside.append(line)
        elif match and len(match.group(1)) >= fence and not match.group(2).strip():
            fence = 0
        else:
            blocks[-1].append(line)
    assert not fence, "a code block is never closed"
    return outside, blocks


def prose(line: str) -> str:
    """A Markdown line with its code spans and backslash escapes taken out: what is markup."""
    return _ESCAPED.sub("", _CODE_SPAN.sub("", line))


def assert_inert_markdown(text: str) -> None:
    """Nothing outside code can be markup that the input chose: no HTML, link, image, heading
    but ours, and every table row has its columns."""
    outside, blocks = fenced(text)
    for line in outside:
        markup = prose(line)
        assert not re.search(r"[<>\[\]]", markup), line
        if line.startswith("|"):
            cells = re.split(r"(?<!\\)\|", _CODE_SPAN.sub("code", line))
            assert len(cells) == TABLE_COLUMNS + 2, line
        if line.lstrip().startswith("#"):
            heading = r"## (Failing|Tools)|### (FAIL )?(`+).+?\3(?: \((`+).+?\4\))?: .*"
            assert re.fullmatch(heading, line), line
    for block in blocks:
        assert all(not any(unsafe(char) for char in line) for line in block)


def test_hostile_names_and_messages_stay_inert_in_every_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reports = {name: tmp_path / name for name in ("r.md", "r.xml")}
    code = main(
        [
            "check",
            str(HOSTILE),
            *("--examples", "2", "--paths", "2", "--jobs", "1", "--strict"),
            *("--report-md", str(reports["r.md"]), "--junit", str(reports["r.xml"])),
            *("--counterexamples", str(tmp_path / "counterexamples")),
        ]
    )
    assert code == 1  # the fence tool differs
    page = reports["r.md"].read_text(encoding="utf-8")
    assert_inert_markdown(page)
    assert "<img src=x onerror=alert(1)>" in page  # shown, as code
    assert "\\x0a````\\x0a" in page and "\\x01\\x1b[2J" in page
    suite = ElementTree.fromstring(reports["r.xml"].read_text(encoding="utf-8"))
    names = [case.get("name") for case in suite.iter("testcase")]
    assert names == [
        "ctl\\x01name",
        "tick`|pipe\\x0a# heading <img src=x onerror=alert(1)>",
        "fence```",
    ]
    out = capsys.readouterr().out
    assert not any(unsafe(char) for char in out.replace("\n", ""))
    verdict = re.compile(r"(PASS|FAIL) +(equivalent|differs)")
    verdict_lines = [line for line in out.splitlines() if verdict.match(line)]
    assert len(verdict_lines) == 3
    assert "script: error: boom\\x0a````\\x0a<img" in out  # the outcome's field, inert


TEXT = st.text(st.characters(codec="utf-8") | st.sampled_from("`|\n\r#<>[]()!\\*_"), max_size=40)


@settings(max_examples=fuzz_budget(200))
@given(tool=TEXT, file=TEXT, reason=TEXT)
def test_fuzz_any_text_is_inert_in_every_report(tool: str, file: str, reason: str) -> None:
    report = ToolReport(tool, file, Verdict.DIFFERS, reason=reason)
    assert_inert_markdown(markdown([report], None))
    try:
        suite = ElementTree.fromstring(junit([report], None))
    except (ElementTree.ParseError, xml.parsers.expat.ExpatError) as error:  # pragma: no cover
        pytest.fail(f"ill-formed JUnit XML: {error}")
    assert len(list(suite.iter("testcase"))) == 1
    line = console_line(report, None)
    assert "\n" not in line and not any(unsafe(char) for char in line)


@settings(max_examples=fuzz_budget(300))
@given(text=TEXT)
def test_fuzz_markdown_pieces_cannot_be_escaped_from(text: str) -> None:
    outside, blocks = fenced(markdown_block(text))
    assert outside == [] and len(blocks) == 1
    span = markdown_code(text, cell=True)
    assert "\n" not in span and _CODE_SPAN.fullmatch(span)
    assert not re.search(r"(?<!\\)\|", span)
    assert not re.search(r"[\\`*_\[\]<>&~|!#]", _ESCAPED.sub("", markdown_text(text)))


OTHER_COMMANDS = {"validate": [], "migrate": ["--examples", "1", "--paths", "1", "--no-diff"]}


@pytest.mark.parametrize("command", OTHER_COMMANDS)
def test_other_commands_show_names_escaped(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    main([command, str(HOSTILE), *OTHER_COMMANDS[command]])
    out = capsys.readouterr().out
    assert not any(unsafe(char) for char in out.replace("\n", ""))
    assert "tick`|pipe\\x0a# heading" in out and "ctl\\x01name" in out
