"""The hand-written scripts pass the gate against the workflows they replace.

Each declares in its header the deviation classes it shows, like any script;
each tool must come out equivalent, or equivalent except for those classes,
each reported with a witness.
"""

from __future__ import annotations

import pytest

from tests.conftest import REPO_ROOT, UNREACHABLE_STEPS
from tests.emit.test_readable import HANDWRITTEN, SPECIFIED
from transpiler.config.loader import load_paths
from transpiler.gobuild import go_available
from transpiler.harness.judging.verdict import Verdict
from transpiler.harness.running.check import ENGINES, CheckOptions, check_tool


@pytest.mark.parametrize("name", sorted(SPECIFIED))
def test_the_hand_written_script_passes(name: str) -> None:
    path, tool_name = SPECIFIED[name]
    tool = next(t for t in load_paths([REPO_ROOT / path]).tools if t.effective.name == tool_name)
    engines = ENGINES if go_available(needs_starlark=True) else ("rust",)
    options = CheckOptions(
        examples=30, paths=32, engines=engines, accept_gaps=UNREACHABLE_STEPS
    )
    report = check_tool(tool, options, script=(HANDWRITTEN / f"{name}.star").read_text())
    assert report.verdict in (Verdict.EQUIVALENT, Verdict.EQUIVALENT_EXCEPT), report.reason
    listed = {difference.deviation for difference in report.listing}
    assert set(report.witnesses) | listed == set(report.observed)
