"""Two steps that call one backend tool answer differently in every answer the gate tries.

The ordinary run keys each call's answer to its arguments; the answers with
lists of other lengths do too, each step's texts its own and every second
caller's lists one item long, so a script that reads the other step's list (its
first item, its length) where only those answers let the step run is told
apart. Their answers compared with each other also meet in the other case and after a
space, unequal only to Go, so a script that folds case or strips spaces shows it.
"""

from __future__ import annotations

import pytest

from tests.harness.edits import edited_report
from transpiler.config.loader import load_bytes
from transpiler.config.units import LoadedTool
from transpiler.harness.judging.verdict import Verdict
from transpiler.harness.running.check import CheckOptions, check_tool
from transpiler.harness.scenarios.analysis import analyse
from transpiler.harness.scenarios.happy import expected

WORKFLOW = b"""
compositeTools:
- name: diff_releases
  description: Compare two releases and record the difference
  parameters:
    type: object
    properties:
      old: {type: string}
      new: {type: string}
    required: [old, new]
  steps:
  - id: before
    tool: releases.get
    arguments: {tag: "{{.params.old}}"}
  - id: after
    tool: releases.get
    arguments: {tag: "{{.params.new}}"}
  - id: record
    tool: changelog.add
    dependsOn: [before, after]
    condition: '{{ne .steps.before.output.checksum .steps.after.output.checksum}}'
    arguments:
      text: >-
        first asset {{index .steps.before.output.assets 0}};
        {{len .steps.after.output.assets}} assets now
"""
OPTIONS = CheckOptions(examples=0, engines=("rust",))
#: The two answers the condition compares, as the emitted script reads them.
READS = ('go_map_get(before, "checksum")', 'go_map_get(after, "checksum")')
CHECKSUMS = ", ".join(READS)


def _each(method: str) -> str:
    """The two reads, each passed through a text's ``method``."""
    change = f'(lambda v: v.{method}() if type(v) == "string" else v)'
    return ", ".join(f"{change}({read})" for read in READS)


#: What the emitted script holds, and the wrong edit.
MUTANTS = {
    "the other step's first item": (
        'go_index(go_map_get(before, "assets"), 0',
        'go_index(go_map_get(after, "assets"), 0',
    ),
    "the checksums compared case-folded": (CHECKSUMS, _each("lower")),
    "the checksums compared stripped": (CHECKSUMS, _each("strip")),
    "the other step's length": (
        'go_len(go_map_get(after, "assets")',
        'go_len(go_map_get(before, "assets")',
    ),
}


def _tool() -> LoadedTool:
    return load_bytes(WORKFLOW, "releases.yaml").tools[0]


def test_each_answer_of_another_length_is_keyed_to_each_call() -> None:
    call = expected(analyse(_tool().effective))
    assert len(call.answers["releases.get"]) == len(call.keyed_others["releases.get"]) + 1
    for entries in call.keyed_others["releases.get"]:
        before, after = sorted(entries, key=lambda entry: entry["when"]["tag"] != "old")
        assert before["structuredContent"] != after["structuredContent"]


def test_the_emitted_script_passes() -> None:
    report = check_tool(_tool(), OPTIONS)
    assert report.verdict is Verdict.EQUIVALENT_EXCEPT, report.reason


@pytest.mark.parametrize("mutant", sorted(MUTANTS))
def test_a_wrong_reading_of_the_two_answers_is_told_apart(mutant: str) -> None:
    before, after = MUTANTS[mutant]
    report = edited_report(_tool(), OPTIONS, before, after)
    assert report.verdict is Verdict.DIFFERS, f"{mutant!r} survived"
