"""S17: the forEach step's own checks, in vMCP's order."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from transpiler.config.model import MAX_ITERATIONS, MAX_PARALLEL, StepKind, WorkflowStepConfig
from transpiler.diagnostics import Diagnostic
from transpiler.golang.strconv import quote
from transpiler.validate.checker import Checker
from transpiler.validate.templates import template_error

TOOL_NAME: Final = re.compile(r"[a-zA-Z0-9][a-zA-Z0-9._-]*")
GO_IDENTIFIER: Final = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")


def for_each(check: Checker, s: str, step: WorkflowStepConfig) -> Iterator[Diagnostic]:
    """S17, in vMCP's order."""
    sid, where = step.id or None, step.where
    if step.tool:
        yield check.error(
            "P2.S17.tool", f"{s}: forEach step must not have 'tool' field", where.of("tool"), sid
        )
    if step.message:
        yield check.error(
            "P2.S17.message",
            f"{s}: forEach step must not have 'message' field",
            where.of("message"),
            sid,
        )
    if not step.collection:
        yield check.error(
            "P2.S17.collectionRequired",
            f"{s}.collection is required for forEach steps",
            where.of("collection"),
            sid,
        )
    else:
        problem = template_error(step.collection)
        if problem is not None:
            yield check.error(
                "P2.S17.collectionTemplate",
                f"{s}.collection: invalid template: invalid template syntax: {problem}",
                where.of("collection"),
                sid,
            )
    inner = step.inner_step
    if inner is None:
        yield check.error(
            "P2.S17.stepRequired", f"{s}.step is required for forEach steps", where.of("step"), sid
        )
    else:
        yield from _inner_step(check, s, sid, inner)
    if step.item_var:
        if not GO_IDENTIFIER.fullmatch(step.item_var):
            yield check.error(
                "P2.S17.itemVar",
                f"{s}.itemVar must be a valid Go identifier (got {quote(step.item_var)})",
                where.of("itemVar"),
                sid,
            )
        elif step.item_var == "index":
            yield check.error(
                "P2.S17.itemVarIndex",
                f"{s}.itemVar cannot be 'index' (reserved)",
                where.of("itemVar"),
                sid,
            )
    yield from _limit(check, s, sid, step, "maxParallel", step.max_parallel, MAX_PARALLEL)
    yield from _limit(check, s, sid, step, "maxIterations", step.max_iterations, MAX_ITERATIONS)


def _inner_step(
    check: Checker, s: str, sid: str | None, inner: WorkflowStepConfig
) -> Iterator[Diagnostic]:
    where = inner.where
    if inner.kind is not StepKind.TOOL:
        yield check.error(
            "P2.S17.innerType",
            f"{s}.step.type must be 'tool' (got {quote(inner.effective_type)}); "
            "only tool inner steps are supported",
            where.of("type"),
            sid,
        )
        return
    if not inner.tool:
        yield check.error(
            "P2.S17.innerToolRequired",
            f"{s}.step.tool is required for tool inner steps",
            where.of("tool"),
            sid,
        )
        return
    if not TOOL_NAME.fullmatch(inner.tool):
        yield check.error(
            "P2.S17.innerToolName",
            f"{s}.step.tool must be a valid tool name",
            where.of("tool"),
            sid,
        )
        return
    for key, value in (inner.arguments or {}).items():
        if isinstance(value, str):
            problem = template_error(value)
            if problem is not None:
                yield check.error(
                    "P2.S17.innerArgumentTemplate",
                    f"{s}.step.arguments[{key}]: invalid template: "
                    f"invalid template syntax: {problem}",
                    where.of("arguments"),
                    sid,
                )


def _limit(
    check: Checker,
    s: str,
    sid: str | None,
    step: WorkflowStepConfig,
    key: str,
    value: int,
    cap: int,
) -> Iterator[Diagnostic]:
    if value < 0:
        yield check.error(
            f"P2.S17.{key}Negative", f"{s}.{key} must be non-negative", step.where.of(key), sid
        )
    elif value > cap:
        yield check.error(
            f"P2.S17.{key}", f"{s}.{key} must be <= {cap} (got {value})", step.where.of(key), sid
        )
