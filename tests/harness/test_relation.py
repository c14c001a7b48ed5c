"""The relation itself: what two traces must agree on, compared exactly, and a difference said so
a person can act on it."""

from __future__ import annotations

import pytest

from tests.composite.helpers import scenario
from transpiler.composite import run_composite
from transpiler.config.loader import load_bytes
from transpiler.config.units import LoadedTool
from transpiler.declaration import TITLE, header_item
from transpiler.deviations import Deviation
from transpiler.gobuild import go_available
from transpiler.harness.judging.relation import canonical, differences
from transpiler.harness.judging.verdict import Verdict
from transpiler.harness.running import check
from transpiler.harness.running.check import CheckOptions, check_tool
from transpiler.starlark_runtime import run_starlark

BOTH = ["rust", pytest.param("go", marks=pytest.mark.go)]
SMALL = CheckOptions(examples=4, paths=4)


def loaded(text: str) -> LoadedTool:
    """The one composite tool of a configuration's YAML text."""
    load = load_bytes(text.encode())
    assert not load.errors and len(load.tools) == 1, [d.render() for d in load.errors]
    return load.tools[0]


def _engine(engine: str) -> CheckOptions:
    if engine == "go" and not go_available(needs_starlark=True):
        pytest.skip("LOUD SKIP: go.starlark.net is not installed (./dev installs it)")
    return CheckOptions(examples=SMALL.examples, paths=SMALL.paths, engines=(engine,))


BIG_ID = """\
compositeTools:
  - name: close_ticket
    description: Close one ticket
    steps:
      - id: close
        tool: tickets.close
        arguments: {id: 9007199254740993}
"""
CLOSE = (
    f"# {TITLE}\n{header_item(Deviation.ERROR_TEXT)}\n{header_item(Deviation.LISTING)}\n"
    'def run(params):\n    return call_tool("tickets.close", {"id": %s})\n'
)


def test_numbers_compare_by_their_exact_value() -> None:
    assert canonical(3) == canonical(3.0)
    assert canonical({"n": [1e21]}) == canonical({"n": [10**21]})
    assert canonical(2**53 + 1) != canonical(2.0**53)
    assert canonical(0.5) != canonical(0)


@pytest.mark.parametrize("engine", BOTH)
def test_an_integer_above_two_to_the_53_is_not_its_neighbour(engine: str) -> None:
    """vMCP sends a YAML integer argument as the int64 it is; a script sending the nearest
    float64 (or any other integer that rounds to it) sends another number."""
    tool = loaded(BIG_ID)
    world = scenario(backends={"tickets.close": {"results": [{"structuredContent": {}}]}})
    vmcp = run_composite(tool.effective, world)
    assert vmcp.calls[0].args == {"id": 9007199254740993}
    off_by_one = run_starlark(CLOSE % "9007199254740992", world, engine=engine)
    assert [d.field for d in differences(vmcp, off_by_one)] == ["calls"]
    assert not differences(vmcp, run_starlark(CLOSE % "9007199254740993", world, engine=engine))
    options = _engine(engine)
    assert check_tool(tool, options, script=CLOSE % "9007199254740993").passes(None)
    wrong = check_tool(tool, options, script=CLOSE % "9007199254740992")
    assert wrong.verdict is Verdict.DIFFERS, wrong.reason


REPORT = """\
compositeTools:
  - name: report_user
    description: Report one user
    steps:
      - id: fetch
        tool: user.get
    output:
      properties:
        name: {type: string, description: Name, value: "{{.steps.fetch.output.name}}"}
        line: {type: string, description: A line, value: "user {{.steps.fetch.output.name}}"}
"""
REPORT_SCRIPT = (
    f"# {TITLE}\n{header_item(Deviation.ERROR_TEXT)}\n{header_item(Deviation.MISSING_VALUE)}\n"
    f"{header_item(Deviation.LISTING)}\n"
    f"{header_item(Deviation.OUTPUT_RENDERING)}\n{header_item(Deviation.VALUE_TEXT)}\n"
    f"{header_item(Deviation.NUMBER_TEXT)}\n{header_item(Deviation.RUST_ENGINE)}\n"
    "def run(params):\n"
    '    name = call_tool("user.get", {}).get("name")\n'
    '    return {"name": name, "line": %s}\n'
)


@pytest.mark.parametrize("engine", BOTH)
def test_missing_value_none_is_null_only_where_an_output_is_that_one_value(engine: str) -> None:
    """``none`` returns the missing value itself where an output property's template is that
    one value, and prints it as the text ``None`` inside text, as its text says: a script
    returning null for a property that is text around the value differs."""
    tool, options = loaded(REPORT), _engine(engine)
    right = check_tool(tool, options, script=REPORT_SCRIPT % '"user " + str(name)')
    assert right.verdict is Verdict.EQUIVALENT_EXCEPT, right.reason
    assert "missing-value" in right.observed
    wrong = check_tool(
        tool, options, script=REPORT_SCRIPT % '"user " + name if name != None else None'
    )
    assert wrong.verdict is Verdict.DIFFERS, wrong.reason


MERGE = """\
compositeTools:
  - name: merge_pr
    description: Merge one pull request
    parameters:
      type: object
      properties:
        pr: {type: integer}
      required: [pr]
    steps:
      - id: merge
        tool: github.merge_pull_request
        arguments: {pull_number: "{{.params.pr}}"}
"""
MERGE_SCRIPT = (
    f"# {TITLE}\n{header_item(Deviation.ERROR_TEXT)}\n{header_item(Deviation.NUMBER_TEXT)}\n"
    f"{header_item(Deviation.LISTING)}\n"
    'def run(params):\n    return call_tool("github.merge_pull_request", '
    '{"pull_number": params["pr"]})\n'
)


def test_a_number_sent_where_vmcp_sends_its_text_is_said_so() -> None:
    """vMCP renders the argument to text and, with no inputSchema typing it, sends the text;
    the report says so, why, and what to do, beside the values."""
    tool = loaded(MERGE)
    report = check_tool(tool, SMALL, script=MERGE_SCRIPT)
    assert report.verdict is Verdict.DIFFERS and report.counterexample is not None
    (calls,) = [d for d in report.counterexample.differences if d.field == "calls"]
    assert calls.why.startswith("vMCP sends `pull_number` as the text ")
    assert calls.why.endswith(
        ": no inputSchema of github.merge_pull_request types it; give `--tools` a tools/list "
        "dump, or send `str(...)`"
    )
    assert calls.why in report.reason and "why:" in calls.render()
    typed = check_tool(tool, _typed_as("string"), script=MERGE_SCRIPT)
    assert typed.counterexample is not None
    assert "the inputSchema of github.merge_pull_request types it as string" in typed.reason
    assert check_tool(tool, _typed_as("integer"), script=MERGE_SCRIPT).passes(None)


def _typed_as(kind: str) -> CheckOptions:
    """Small options with a tools/list dump typing ``pull_number`` as ``kind``."""
    schema = {"type": "object", "properties": {"pull_number": {"type": kind}}}
    return CheckOptions(examples=4, paths=4, tool_schemas={"github.merge_pull_request": schema})


TOTAL = """\
compositeTools:
  - name: report_total
    description: Post a ledger's total
    steps:
      - id: total
        tool: ledger.total
      - id: post
        tool: chat.post
        dependsOn: [total]
        arguments: {text: "total {{.steps.total.output.sum}}"}
"""
TOTAL_HEADER = "".join(
    f"{line}\n"
    for line in (
        f"# {TITLE}",
        *(
            header_item(c)
            for c in (
                Deviation.ERROR_TEXT,
                Deviation.MISSING_VALUE,
                Deviation.NUMBER_TEXT,
                Deviation.VALUE_TEXT,
                Deviation.RUST_ENGINE,
                Deviation.LISTING,
            )
        ),
    )
)
READ = 'def run(params):\n    s = call_tool("ledger.total", {})["sum"]\n'
POST = '    return call_tool("chat.post", {"text": "total %s" % s})\n'
#: Right: prints the total. Wrong: adds an argument where the total's JSON holds text beyond
#: ASCII, which is also where starlark-rust prints the total its own way.
TOTAL_RIGHT = TOTAL_HEADER + READ + POST
TOTAL_WRONG = (
    TOTAL_HEADER
    + READ
    + '    if [c for c in json.encode(s).elems() if c > "~"]:\n'
    + '        return call_tool("chat.post", {"text": "total %s" % s, "alert": True})\n'
    + POST
)


@pytest.mark.parametrize("go", ["absent", pytest.param("present", marks=pytest.mark.go)])
def test_rust_engine_allows_starlark_rust_formatting_alone_with_or_without_go(
    go: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On starlark-rust a script passes only where starlark-rust's own formatting, taken at
    its site, makes the model's run the script's: an extra argument in the runs where the
    class applies differs whether go.starlark.net is installed or not."""
    if go == "absent":
        monkeypatch.setattr(check, "go_available", lambda needs_starlark=False: False)
    elif not go_available(needs_starlark=True):
        pytest.skip("LOUD SKIP: go.starlark.net is not installed (./dev installs it)")
    tool, options = loaded(TOTAL), CheckOptions(examples=20, paths=16, engines=("rust",))
    right = check_tool(tool, options, script=TOTAL_RIGHT)
    assert right.verdict is Verdict.EQUIVALENT_EXCEPT, right.reason
    assert "rust-engine" in right.observed
    assert right.witnesses[Deviation.RUST_ENGINE].variant == "starlark-rust"
    wrong = check_tool(tool, options, script=TOTAL_WRONG)
    assert wrong.verdict is Verdict.DIFFERS, (wrong.verdict, wrong.notes)
    assert wrong.counterexample is not None and wrong.counterexample.engine == "rust"
