"""Probes of the first scenario are not crowded out, and exact scripts' comparisons count.

A script that branches on several parameters makes each of their probes a base
for every other probe; those bases have a budget of their own, so each literal
a read of the first scenario is compared with (the third of a parameter's,
here) is still tried. The helper library's ``go_eq``... ``go_ge`` compare as
``==``... ``>=`` do, so the literals an exact script compares with are probed.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.harness.edits import edited_report
from transpiler.config.loader import load_bytes
from transpiler.config.units import LoadedTool
from transpiler.harness.judging.verdict import Verdict
from transpiler.harness.running.check import CheckOptions
from transpiler.harness.scenarios.scriptreads import PARAMS, Read, script_reads

WORKFLOW = b"""
compositeTools:
- name: provision
  description: A network, then a database and a cache as the tier asks
  parameters:
    type: object
    properties:
      env: {type: string}
      tier: {type: string, default: small}
      region: {type: string, default: eu-west-1}
      with_cache: {type: boolean, default: false}
    required: [env]
  steps:
  - id: network
    tool: cloud.network
    arguments: {region: "{{.params.region}}"}
  - id: database
    tool: cloud.database
    dependsOn: [network]
    condition: '{{and (ne .params.tier "none") (not (eq .params.env "scratch"))}}'
    arguments:
      network: "{{.steps.network.output.id}}"
      size: '{{if eq .params.tier "large"}}big{{else}}small{{end}}'
    defaultResults: {endpoint: none}
  - id: cache
    tool: cloud.cache
    dependsOn: [network]
    condition: '{{or .params.with_cache (eq .params.tier "large")}}'
    arguments: {network: "{{.steps.network.output.id}}"}
    defaultResults: {endpoint: ""}
  - id: register
    tool: registry.put
    dependsOn: [database, cache]
    arguments:
      env: "{{.params.env}}"
      db: "{{.steps.database.output.endpoint}}"
      cache: "{{.steps.cache.output.endpoint}}"
"""
OPTIONS = CheckOptions(examples=0, engines=("rust",))


def _tool() -> LoadedTool:
    return load_bytes(WORKFLOW, "provision.yaml").tools[0]


@pytest.mark.parametrize(
    ("style", "before", "after"),
    [
        ("readable", 'tier == "large"', 'tier in ("large", "xlarge")'),
        (
            "exact",
            'go_ne(params.get("tier", GO_MISSING), "none"',
            'go_ne(params.get("tier", GO_MISSING), "nil"',
        ),
    ],
)
def test_a_literal_only_the_script_compares_with_is_tried(
    style: str, before: str, after: str
) -> None:
    report = edited_report(_tool(), replace(OPTIONS, style=style), before, after)
    assert report.verdict is Verdict.DIFFERS, report.reason


def test_the_library_s_comparisons_are_read_as_comparisons() -> None:
    reads = script_reads(
        "def run(params):\n"
        '    if go_eq(params.get("mode", GO_MISSING), "fast", "quick"):\n'
        '        return go_gt(params["size"], 10)\n'
    )
    assert reads.compared[Read(PARAMS, ("mode",))] == ["fast", "quick"]
    assert reads.ordered[Read(PARAMS, ("size",))] == [10]
