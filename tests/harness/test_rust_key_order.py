"""``rust-engine``'s variant lets a script's ``json.encode`` keep its own key order, no more.

starlark-rust's ``json.encode`` writes a dict's keys in the order the script added them; a
script that builds a forEach's iteration records itself adds them in its own order, which
the model cannot know. On starlark-rust the gate reads such a text as the model's when it
is starlark-rust's encoding of the same value with the keys in another order; any other
difference in the text (a value, a number's kind, spacing) is still refused.
"""

from __future__ import annotations

import pytest

from transpiler.config.loader import load_bytes
from transpiler.harness.judging.verdict import Verdict
from transpiler.harness.running.check import CheckOptions, ToolReport, check_tool

WORKFLOW = """
compositeTools:
  - name: stamp_items
    description: Stamp each item, then log what was stamped
    parameters:
      type: object
      properties:
        items:
          type: array
          items: {type: string}
      required: [items]
    steps:
      - id: stamp
        type: forEach
        collection: "{{json .params.items}}"
        itemVar: item
        maxIterations: 4
        step:
          id: stamp_one
          tool: stamps.stamp
          arguments:
            item: "{{.forEach.item}}"
      - id: log
        tool: audit.log
        dependsOn: [stamp]
        arguments:
          records: "{{json .steps.stamp.output.iterations}}"
    output:
      properties:
        stamped:
          type: integer
          description: how many were stamped
          value: "{{.steps.stamp.output.completed}}"
"""

SCRIPT = """\
# stamp_items, ported by hand.
#
# Where it differs from vMCP (see docs/deviations.md):
#   - error-text: own failure texts
#   - json-text: json.encode of the records
#   - rust-engine: starlark-rust writes the records' keys in the order they were added
#   - listing: no annotations
#   - step-timeout: no per-step deadline

def run(params):
    items = params["items"]
    if len(items) > 4:
        fail("at most 4 items, got %d" % len(items))
    outputs = parallel([
        lambda item=item: call_tool("stamps.stamp", {"item": item}) for item in items
    ])
    records = [
        {"index": i, "item": items[i], "status": "completed", "output": outputs[i]}
        for i in range(len(items))
    ]
    call_tool("audit.log", {"records": json.encode(records)})
    return {"stamped": len(items)}
"""

RECORD = '{"index": i, "item": items[i], "status": "completed", "output": outputs[i]}'
ENCODED = "json.encode(records)"

#: Edits that change more than key order: each is refused on starlark-rust too.
WRONG = {
    "another status": (RECORD, RECORD.replace('"completed"', '"done"')),
    "the index as text": (RECORD, RECORD.replace('"index": i', '"index": str(i)')),
    "a float index": (RECORD, RECORD.replace('"index": i', '"index": i * 1.0')),
    "spaces after commas": (ENCODED, 'json.encode(records).replace(",", ", ")'),
    "a key left out": (RECORD, RECORD.replace(', "output": outputs[i]', "")),
}


def _checked(script: str) -> ToolReport:
    tool = load_bytes(WORKFLOW.encode(), "stamp_items.yaml").tools[0]
    options = CheckOptions(examples=12, paths=16, engines=("rust",))
    return check_tool(tool, options, script=script)


def test_records_in_the_scripts_key_order_pass_on_starlark_rust() -> None:
    report = _checked(SCRIPT)
    assert report.verdict is Verdict.EQUIVALENT_EXCEPT, report.reason


@pytest.mark.parametrize("name", sorted(WRONG))
def test_a_text_that_differs_in_more_than_key_order_is_refused(name: str) -> None:
    old, new = WRONG[name]
    assert old in SCRIPT
    report = _checked(SCRIPT.replace(old, new, 1))
    assert report.verdict is Verdict.DIFFERS, (name, report.verdict, report.reason)
