"""Curated templates rendered by us and by Go's text/template; results must match.

The corpora cover parse errors (messages and line numbers), execution errors
(messages, positions, node texts) and printing; compared as in the
differential test (exactly on Go 1.26; see ``differential``).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from tests.gotemplate.differential import DISAGREE, compare
from transpiler.cli.template import render_request
from transpiler.golang.values import NIL_LIST, NIL_MAP, GoTime, Int64
from transpiler.gotemplate.oracle import GoOracle
from transpiler.gotemplate.protocol import RenderRequest

DATA = Path(__file__).resolve().parent / "data"
PARSE_CORPUS: list[str] = json.loads((DATA / "parse_corpus.json").read_text(encoding="utf-8"))
EXEC_CORPUS: list[str] = json.loads((DATA / "exec_corpus.json").read_text(encoding="utf-8"))

CONTEXT: dict[str, Any] = {
    "params": {
        "title": "Test", "n": 1500000.0, "i": 3, "s": "<a&b>", "f": 2.5, "z": 0.0, "nul": None,
        "list": [1.0, None, "x", {"k": "v"}], "m": {"b": 2.0, "a": [1.0, 2.0]}, "nm": NIL_MAP,
        "nl": NIL_LIST, "big": 1e21, "small": 1e-7, "neg0": -0.0, "t": True,
        "json": '{"a": [1, 2, {"b": null}], "c": "\\u2028"}', "u": "\u00e9\u2028\x00\x01",
        "when": GoTime(datetime(2024, 1, 1, 0, 2, 55, 123000, tzinfo=UTC)),
        "zoned": GoTime(datetime(2024, 3, 1, 10, 0, tzinfo=timezone(timedelta(hours=2)))),
    },
    "steps": {
        "fetch": {
            "status": "completed",
            "output": {"items": [{"name": "a"}, {"name": "b"}], "text": '["apple"]', "count": 2.0},
            "content": {},
        }
    },
    "vars": {},
    "workflow": {"id": "wf", "duration_ms": Int64(1000), "step_count": 5},
}  # fmt: skip


def _check(oracle: GoOracle, templates: list[str]) -> None:
    requests = [RenderRequest(template, CONTEXT) for template in templates]
    failures = []
    for request, go in zip(requests, oracle.render_many(requests), strict=True):
        verdict = compare(request.template, go, render_request(request), oracle.go_version)
        if verdict.kind == DISAGREE:
            failures.append(f"{request.template!r}\n{verdict.detail}")
    assert not failures, "\n".join(failures)


@pytest.mark.go
def test_parse_errors_match_go(oracle: GoOracle) -> None:
    """Parse errors: same text and line as Go's parser."""
    _check(oracle, PARSE_CORPUS)


@pytest.mark.go
def test_execution_matches_go(oracle: GoOracle) -> None:
    """Outputs and execution errors: same as Go's executor."""
    _check(oracle, EXEC_CORPUS)
