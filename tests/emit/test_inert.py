"""Text from the input never becomes code: issue 13, item 1 (names, ids, keys, strings, paths).

Every script is parsed and certified on both engines: starlark-rust, and
go.starlark.net (what vMCP embeds), which ends a comment at ``\\r`` and the
file at NUL. ``HYPOTHESIS_PROFILE=deep`` runs the fuzz test longer.
"""

from __future__ import annotations

import io
import json
import tokenize
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import fuzz_budget
from tests.starlark_runtime.conftest import ENGINES
from transpiler.cli import main
from transpiler.config.loader import load_bytes
from transpiler.emit.exact.script import emit_script
from transpiler.gobuild import go_available
from transpiler.golang.strconv import quote
from transpiler.harness.running.check import CheckOptions, check_tool
from transpiler.inert import UnrepresentableValue, comment_text, string_literal, unsafe
from transpiler.sim.scenario import Scenario
from transpiler.starlark_runtime import run_starlark
from transpiler.validate import validate

BOTH = ("rust", "go") if go_available(needs_starlark=True) else ("rust",)
#: Characters some reader of a script takes for a line break or the end of the text.
BREAKERS = ["\n", "\r", "\x00", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]
PAYLOAD = 'PWNED = "code injected"'
SAFE_CODE_TOKENS = {
    tokenize.NAME,
    tokenize.NUMBER,
    tokenize.OP,
    tokenize.NEWLINE,
    tokenize.NL,
    tokenize.INDENT,
    tokenize.DEDENT,
    tokenize.ENDMARKER,
}


def config(
    name: str = "t",
    step: str = "a",
    key: str = "k",
    value: str = "v",
    description: str = "d",
    parameter: str = "x",
) -> bytes:
    """One valid tool with the given texts in every place a script can show them."""
    document: dict[str, Any] = {
        "compositeTools": [
            {
                "name": name,
                "description": description,
                "parameters": {"type": "object", "properties": {parameter: {"type": "string"}}},
                "steps": [
                    {
                        "id": step,
                        "tool": "svc.echo",
                        "arguments": {key: value + "{{.params.x}}", "id": step},
                    },
                    {
                        "id": step + "2",
                        "tool": "svc.echo",
                        "dependsOn": [step],
                        "arguments": {"prev": "{{index .steps " + quote(step) + " }}"},
                    },
                ],
            }
        ]
    }
    text = json.dumps(document, ensure_ascii=False)
    # YAML folds a raw line break inside a quoted string: write every unsafe character escaped.
    return "".join(
        (f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}") if unsafe(c) else c
        for c in text
    ).encode()


def assert_inert(script: str) -> None:
    """Only safe characters; outside string literals and comments, only ASCII code tokens."""
    assert not [c for c in script if c != "\n" and unsafe(c)]
    for token in tokenize.generate_tokens(io.StringIO(script).readline):
        if token.type in (tokenize.STRING, tokenize.COMMENT):
            continue
        assert token.type in SAFE_CODE_TOKENS, token
        assert token.string.isascii(), token


def certified(data: bytes, file: str) -> str:
    """The tool's script, after checking it is certified on both engines."""
    load = load_bytes(data, file)
    assert validate(load).valid
    tool = load.tools[0]
    report = check_tool(tool, CheckOptions(examples=3, paths=4, engines=("rust",)))
    assert report.passes(None), report.reason
    assert report.engines == BOTH
    assert report.emitted is not None
    return report.emitted.script


@pytest.mark.parametrize("breaker", BREAKERS)
def test_a_tool_name_cannot_end_the_header_comment(breaker: str) -> None:
    name = f"t{breaker}{PAYLOAD}{breaker}#"
    script = certified(config(name=name), "tool.json")
    assert_inert(script)
    header = script.splitlines()[0]
    assert header.startswith("# Scripted tool t\\") and PAYLOAD in header


@pytest.mark.parametrize("breaker", BREAKERS)
def test_a_step_id_cannot_end_a_comment_or_a_string(breaker: str) -> None:
    script = certified(config(step=f"a{breaker}b", key=f"k{breaker}", value=breaker), "x.json")
    assert_inert(script)


@pytest.mark.parametrize("breaker", ["\n", "\r", "\u2028", "\udcff"])
def test_a_file_path_cannot_end_the_header_comment(breaker: str) -> None:
    file = f"dir{breaker}fail('pwned'){breaker}/x.json"
    script = emit_script(load_bytes(config(), file).tools[0].effective, file + ":1").script
    assert_inert(script)
    assert "fail('pwned')" in script.splitlines()[1]


def test_a_file_named_with_a_newline_is_migrated_inert(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / f"evil\n{PAYLOAD}\n#.yaml"
    path.write_text(yaml.safe_dump(yaml.safe_load(config())))
    assert main(["emit", str(path)]) == 0
    assert_inert(capsys.readouterr().out)
    assert main(["migrate", str(path), "--examples", "2", "--write", "--no-backup"]) == 0
    migrated = yaml.safe_load(path.read_text())["scriptedTools"][0]["script"]
    assert_inert(migrated)
    assert migrated.splitlines()[1].startswith("# (") and PAYLOAD in migrated.splitlines()[1]


def test_escapes_name_the_character() -> None:
    assert comment_text("a\nb\r\x00\u2028\U000e0041") == "a\\x0ab\\x0d\\x00\\u2028\\U000e0041"
    assert comment_text("plain, ünïcødé ✓") == "plain, ünïcødé ✓"
    assert string_literal("a\u2028b") == '("a" + chr(8232) + "b")'
    assert string_literal("\u2029") == "chr(8233)"
    assert string_literal('q"\\\n\t\x00') == '"q\\"\\\\\\n\\t\\x00"'
    with pytest.raises(UnrepresentableValue):
        string_literal("\ud800")


@pytest.mark.parametrize("engine", ENGINES)
def test_string_literals_read_back_exactly(engine: str) -> None:
    texts = ["", "plain", "é✓😀", *BREAKERS, "\x7f\x9f\u200e\u202e\u2066\ufeff\U000e0041\ufffe"]
    texts.append("".join(texts))
    items = ", ".join(string_literal(text) for text in texts)
    trace = run_starlark(
        f"def run(params):\n    return {{'texts': [{items}]}}\n", Scenario(), engine=engine
    )
    assert trace.outcome == "success", trace.error
    assert trace.output == {"texts": texts}


ANY_TEXT = st.text(
    alphabet=st.one_of(
        st.characters(blacklist_categories=["Cs"]),
        st.sampled_from([*BREAKERS, "\u202e", "\ufeff", "\x85", "\x7f", "#", '"', "\\", "'"]),
    ),
    min_size=1,
    max_size=12,
)
PATHS = st.text(
    alphabet=st.one_of(
        st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00"),
        st.sampled_from([*BREAKERS[:2], "\udcff", "\udc80"]),
    ),
    min_size=1,
    max_size=12,
)


@settings(max_examples=fuzz_budget(12), suppress_health_check=list(HealthCheck), deadline=None)
@given(name=ANY_TEXT, step=ANY_TEXT, key=ANY_TEXT, value=ANY_TEXT, path=PATHS)
def test_fuzz_no_input_text_becomes_code(
    name: str, step: str, key: str, value: str, path: str
) -> None:
    """Names, ids, keys, strings and paths from all of Unicode: inert, parsed, certified."""
    data = config(name=name, step=step, key=key if key != "id" else "k", value=value)
    load = load_bytes(data, path)
    if not validate(load).valid:
        return
    tool = load.tools[0]
    report = check_tool(tool, CheckOptions(examples=2, paths=4, engines=BOTH))
    assert report.passes(None), report.reason
    assert report.emitted is not None
    assert_inert(report.emitted.script)


@given(st.text(alphabet=st.characters(max_codepoint=0xFF, blacklist_categories=["Cs"])))
def test_a_string_literal_reads_back_as_its_text(text: str) -> None:
    """Printable ASCII takes the short way (only ``\\`` and ``"`` escaped), the rest the
    escaping one; either way the literal (one or chr() pieces) evaluates to the text."""
    import ast

    literal = string_literal(text)
    value = eval(compile(ast.parse(literal, mode="eval"), "<literal>", "eval"), {"chr": chr})
    assert value == text
    assert "\n" not in literal and "\r" not in literal
