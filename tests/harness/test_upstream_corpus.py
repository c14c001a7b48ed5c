"""``check`` over every workflow of the upstream corpus, on both engines.

Every tool vMCP would run must be certified, except where the script declares
a deviation: ``metadata_test`` returns ``.workflow.id`` and ``.workflow.start_time``,
which a script cannot know (vMCP makes a random UUID and reads its clock).
The budget is small for CI; ``UPSTREAM_EXAMPLES`` raises it.
"""

from __future__ import annotations

import os

from tests.conftest import UPSTREAM_CORPUS
from transpiler.gobuild import go_available
from transpiler.harness.check import ENGINES, CheckOptions
from transpiler.harness.gate import check_all, select

EXPECTED_DEVIATIONS = {"metadata_test": ".workflow.id: vMCP gives every run a random UUID"}


def test_every_runnable_upstream_tool_is_certified_or_declares_its_deviation() -> None:
    engines = ENGINES if go_available(needs_starlark=True) else ("rust",)
    examples = int(os.environ.get("UPSTREAM_EXAMPLES", "25"))
    selected, unreadable = select([str(UPSTREAM_CORPUS)])
    assert not unreadable
    reports = check_all(selected, CheckOptions(examples=examples, paths=32, engines=engines))
    runnable = [
        r
        for r in reports
        if r.verdict != "not-converted" or not r.reason.startswith("vMCP would not run")
    ]
    assert len(runnable) == 32
    for report in runnable:
        if report.tool in EXPECTED_DEVIATIONS:
            assert report.verdict == "deviates", report.reason
            assert EXPECTED_DEVIATIONS[report.tool] in report.reason
        else:
            assert report.verdict == "certified", f"{report.tool}: {report.reason}"
