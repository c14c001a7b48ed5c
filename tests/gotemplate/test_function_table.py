"""The function and verb tables against everything that restates them: Go, the helper file.

Every row of :data:`FUNCTIONS` has calls (``function_cases``) on which the
renderer agrees with Go's ``text/template``; the Go oracle's ``FuncMap`` adds
no function the table lacks; each row's exact helper is in
``vmcp_compat.star``; each readable form is complete. ``go_sprintf``'s chain of
verbs handles exactly the verbs of :data:`VERBS` (the helper file is shipped,
and inlined into scripts, as it is: the table is the home, the file is held to
it).
"""

from __future__ import annotations

import ast
import re

import pytest

from tests.gotemplate.differential import DISAGREE, compare
from tests.gotemplate.function_cases import CALLS, CONTEXT
from tests.gotemplate.strategies import FUNCTIONS_WEIGHTED
from transpiler.cli.template import render_request
from transpiler.deviations import Deviation
from transpiler.emit.library import helper_library
from transpiler.gotemplate.functions import FUNCTIONS, Lowering
from transpiler.gotemplate.oracle import SOURCE, GoOracle
from transpiler.gotemplate.protocol import RenderRequest
from transpiler.gotemplate.verbs import VERBS

_FUNC_MAP = re.compile(r"func vmcpFuncs\(\) template\.FuncMap \{(.*?)\n\}", re.DOTALL)
_FUNC_NAME = re.compile(r'^\t\t"(\w+)": func', re.MULTILINE)
_VERB_CHAIN = ("go_sprintf", "go_fmt_arg", "go_fmt_scalar")
_NAMED = (Lowering.CALL, Lowering.LOGIC, Lowering.COMPARE)


def test_every_function_has_calls() -> None:
    assert set(CALLS) == set(FUNCTIONS)


@pytest.mark.go
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_each_function_renders_as_go_does(oracle: GoOracle, name: str) -> None:
    requests = [RenderRequest(template, CONTEXT) for template in CALLS[name]]
    failures = []
    for request, go in zip(requests, oracle.render_many(requests), strict=True):
        verdict = compare(request.template, go, render_request(request), oracle.go_version)
        if verdict.kind == DISAGREE:
            failures.append(f"{request.template!r}\n{verdict.detail}")
    assert not failures, "\n".join(failures)


def test_the_oracle_funcs_are_rows() -> None:
    block = _FUNC_MAP.search(SOURCE.read_text(encoding="utf-8"))
    assert block is not None, "the oracle's vmcpFuncs moved"
    names = _FUNC_NAME.findall(block.group(1))
    assert names and set(names) <= set(FUNCTIONS)


def test_each_helper_is_in_the_library() -> None:
    library = helper_library()
    for name, function in FUNCTIONS.items():
        if function.helper is not None:
            assert function.helper.startswith("go_"), name  # how compiled code finds helpers
            assert function.helper in library, name


def test_each_readable_form_is_complete() -> None:
    for name, function in FUNCTIONS.items():
        readable = function.readable
        assert (readable.lowering is Lowering.REFUSED) == bool(readable.refusal), name
        assert (readable.lowering in _NAMED) == bool(readable.starlark), name
        assert all(isinstance(c, Deviation) for c in readable.classes), name


def test_go_sprintf_handles_exactly_the_verbs_of_the_table() -> None:
    library = helper_library()
    handled: set[str] = set()
    for helper in _VERB_CHAIN:
        tree = ast.parse(library.definitions[helper].source)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Compare)
                and isinstance(node.left, ast.Name)
                and node.left.id == "verb"
            ):
                handled.update(_strings(node.comparators[0]))
    assert handled == set(VERBS)


def _strings(node: ast.expr) -> set[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, ast.Tuple):
        return {text for item in node.elts for text in _strings(item)}
    return set()


def test_the_template_generator_draws_every_function() -> None:
    """The generated templates of the differential tests call every row (a new one too)."""
    assert {name for name, _ in FUNCTIONS_WEIGHTED} == set(FUNCTIONS)
