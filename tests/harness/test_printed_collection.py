"""A forEach over a collection that prints one value (``{{.steps.s.output.items}}``).

vMCP parses the text the template prints: a text holding a JSON array is the
list, a list prints in Go's syntax (``[a b]``), which parses only when empty or
of one number. The readable script decodes a text and takes a list as it is
(value-text), through JSON where a loop prints whole items. The gate
passes it on both engines, whichever failure a long list meets first (a
scenario where vMCP fails at the printed list and the script at the iteration
cap must not fix vMCP's printing at that site), and refuses each wrong edit.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.harness.edits import edited_report
from transpiler.config.loader import load_bytes
from transpiler.config.units import LoadedTool
from transpiler.harness.judging.verdict import Verdict
from transpiler.harness.running.check import CheckOptions, check_tool

WORKFLOW = b"""
compositeTools:
- name: echo_each
  description: Echo each item a listing holds
  steps:
  - id: listing
    tool: data.listing
    arguments: {}
  - id: each
    type: forEach
    dependsOn: [listing]
    collection: '{{.steps.listing.output.items}}'
    itemVar: entry
    step:
      id: echo
      type: tool
      tool: echo.echo
      arguments: {value: '{{.forEach.entry}}'}
"""

#: What the emitted script holds, and the wrong edit.
MUTANTS = {
    "a text taken for the list": (
        '    if type(each_items) == "string":\n        each_items = json.decode(each_items)\n',
        "",
    ),
    "a list decoded as text": (
        'if type(each_items) == "string":\n        each_items',
        "if True:\n        each_items",
    ),
    "a cap off by one": ("> 100", ">= 100"),
}
OPTIONS = CheckOptions(examples=0, engines=("rust",))


def _tool() -> LoadedTool:
    return load_bytes(WORKFLOW, "printed.yaml").tools[0]


@pytest.mark.parametrize("engine", ["rust", pytest.param("go", marks=pytest.mark.go)])
def test_the_readable_script_passes(engine: str) -> None:
    report = check_tool(_tool(), replace(OPTIONS, engines=(engine,)))
    assert report.emitted is not None
    assert "json.decode(each_items)" in report.emitted.script
    assert report.verdict is Verdict.EQUIVALENT_EXCEPT, report.reason


@pytest.mark.parametrize("mutant", sorted(MUTANTS))
def test_a_wrong_edit_is_refused(mutant: str) -> None:
    before, after = MUTANTS[mutant]
    report = edited_report(_tool(), OPTIONS, before, after)
    assert report.verdict in (Verdict.DIFFERS, Verdict.INCOMPLETE), f"{mutant!r} survived"
