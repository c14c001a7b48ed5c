"""What the tool's templates read of ``.params`` and ``.workflow``.

``.workflow`` (S73) is partly out of a script's reach: vMCP gives each run a
random id and a start time, and measures the duration; a script has no clock
and no run id, so it uses fixed placeholders and says so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from transpiler.deviations import RUN_ID_PLACEHOLDER, START_TIME_PLACEHOLDER, Deviation
from transpiler.emit import ir
from transpiler.plan.reads import workflow_reads

if TYPE_CHECKING:
    from transpiler.emit.exact.scope import EmitState


def workflow_map(state: EmitState, status: str, step_count: ir.Expr) -> ir.Expr:
    """``.workflow`` as the script can know it, noting what it cannot."""
    read = workflow_reads(state.site_reads, output_only=status == "completed")
    if read & {"id", "*"}:
        state.note(
            "deviation",
            Deviation.WORKFLOW_METADATA,
            ".workflow.id: vMCP gives every run a random UUID; the script uses "
            + RUN_ID_PLACEHOLDER,
        )
    if read & {"start_time", "*"}:
        state.note(
            "deviation",
            Deviation.WORKFLOW_METADATA,
            f".workflow.start_time: the script has no clock and uses {START_TIME_PLACEHOLDER}",
        )
    if status == "completed" and read & {"duration_ms", "*"}:
        state.note(
            "deviation",
            Deviation.WORKFLOW_METADATA,
            ".workflow.duration_ms in the output: the script has no clock and reports 0",
        )
    return ir.Dict(
        (
            (ir.Str("id"), ir.Str(RUN_ID_PLACEHOLDER)),
            (ir.Str("duration_ms"), ir.Literal(0)),
            (ir.Str("step_count"), step_count),
            (ir.Str("status"), ir.Str(status)),
            (ir.Str("start_time"), ir.Str(START_TIME_PLACEHOLDER)),
        )
    )
