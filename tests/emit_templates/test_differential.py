"""Compiled templates render exactly what the reference renderer renders.

Hypothesis draws batches of (template, root) pairs; each batch compiles to
one script that runs on starlark-rust (and, for a smaller sample, on
go.starlark.net); every output or error text must equal the Python renderer's
(``transpiler.gotemplate.render``, itself checked against Go's text/template).
Templates the compiler declines (``UnsupportedTemplate``) are counted apart.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from tests.emit_templates.generate import roots, templates, typical_templates
from tests.emit_templates.harness import (
    Outcome,
    compiled_outcome,
    env_for,
    render,
    run_compiled,
)
from tests.emit_templates.starlark import GO_SKIP
from transpiler.emit.exact.templates import CompiledTemplate, UnsupportedTemplate, compile_template
from transpiler.gotemplate.errors import TemplateLimitError, TemplateUnsupportedError

TALLY: Counter[str] = Counter()
BATCH = 12
# Each example runs a whole script: shrinking a failing batch would take
# hours, and the assertion names the failing case already.
NO_SHRINK = (Phase.explicit, Phase.reuse, Phase.generate)


def _check_batch(pairs: list[tuple[str, dict[str, Any]]], engine: str) -> None:
    compiled: list[CompiledTemplate] = []
    expected: list[Outcome] = []
    contexts: list[dict[str, Any]] = []
    for template, root in pairs:
        try:
            want = render(template, root)
        except (TemplateLimitError, TemplateUnsupportedError):
            TALLY[f"{engine}: reference declined"] += 1
            continue
        try:
            compiled.append(compile_template(template, env_for(root)))
        except UnsupportedTemplate:
            TALLY[f"{engine}: compiler declined"] += 1
            continue
        expected.append(want)
        contexts.append(root)
    got = run_compiled(compiled, contexts, engine)
    for item, want, outcome, (root) in zip(compiled, expected, got, contexts, strict=True):
        TALLY[f"{engine}: compared"] += 1
        TALLY[f"{engine}: {'text' if want.ok else 'error'}"] += 1
        assert compiled_outcome(item, outcome) == want, (item.expr, item.definitions, root)


@settings(max_examples=120, phases=NO_SHRINK)
@given(pairs=st.lists(st.tuples(templates(), roots()), min_size=BATCH, max_size=BATCH))
def test_rust_engine_renders_like_go(pairs: list[tuple[str, dict[str, Any]]]) -> None:
    _check_batch(pairs, "rust")


@settings(max_examples=60, phases=NO_SHRINK)
@given(pairs=st.lists(st.tuples(typical_templates(), roots()), min_size=BATCH, max_size=BATCH))
def test_typical_templates_render_like_go(pairs: list[tuple[str, dict[str, Any]]]) -> None:
    _check_batch(pairs, "rust")


@pytest.mark.go
@GO_SKIP
@settings(max_examples=25, phases=NO_SHRINK)
@given(pairs=st.lists(st.tuples(templates(), roots()), min_size=BATCH, max_size=BATCH))
def test_go_engine_renders_like_go(pairs: list[tuple[str, dict[str, Any]]]) -> None:
    _check_batch(pairs, "go")


def teardown_module() -> None:
    """Print the counts (visible with ``pytest -s``)."""
    for key in sorted(TALLY):
        print(f"differential {key}: {TALLY[key]}")
