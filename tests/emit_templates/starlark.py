"""Evaluate library expressions on an engine, many per script."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import pytest

from tests.starlark_runtime.helpers import run, scenario
from transpiler.emit.exact.templates import helper_source
from transpiler.gobuild import go_available

GO_SKIP = pytest.mark.skipif(
    not go_available(needs_starlark=True),
    reason="LOUD SKIP: the go engine needs Debian packages golang-go and golang-starlark-dev "
    "(./dev installs them)",
)
ENGINES = ["rust", pytest.param("go", marks=[pytest.mark.go, GO_SKIP])]

# A script stays well under the engines' step budget with this many rows.
ROWS_PER_SCRIPT = 150


def evaluate(expressions: Sequence[str], helpers: Iterable[str], engine: str) -> list[Any]:
    """The values of Starlark expressions over the named helpers (errors as texts)."""
    needed = {"go_is_error", "go_error_text", *helpers}
    values: list[Any] = []
    for start in range(0, len(expressions), ROWS_PER_SCRIPT):
        chunk = expressions[start : start + ROWS_PER_SCRIPT]
        rows = "\n".join(f"        {expression}," for expression in chunk)
        script = (
            helper_source(needed)
            + "\n\ndef shown(value):\n"
            + '    return {"error": go_error_text(value)} if go_is_error(value) else value\n'
            + '\ndef run(params):\n    return {"rows": [shown(v) for v in [\n'
            + rows
            + "\n    ]]}\n"
        )
        trace = run(script, scenario(), engine)
        assert trace.outcome == "success", f"{engine}: {trace.error}\n{script[-3000:]}"
        values.extend(trace.output["rows"])
    return values
