"""Every template function in an exact script: its row's helper gives what the renderer gives.

The calls are ``tests.gotemplate.function_cases``' (the renderer agrees with Go
on each); a row without a helper is refused by the exact compiler.
"""

from __future__ import annotations

import pytest

from tests.emit_templates.harness import env_for, render, run_templates
from tests.gotemplate.function_cases import CALLS, CONTEXT
from transpiler.emit.exact.templates import UnsupportedTemplate, compile_template
from transpiler.gotemplate.functions import FUNCTIONS

_TRANSLATED = sorted(name for name, function in FUNCTIONS.items() if function.helper is not None)
_REFUSED = sorted(set(FUNCTIONS) - set(_TRANSLATED))


def test_each_function_computes_as_the_renderer_does(engine: str) -> None:
    templates = [template for name in _TRANSLATED for template in CALLS[name]]
    outcomes = run_templates(templates, [CONTEXT] * len(templates), engine)
    for template, outcome in zip(templates, outcomes, strict=True):
        assert outcome == render(template, CONTEXT), template


@pytest.mark.parametrize("name", _REFUSED)
def test_a_function_without_a_helper_is_refused(name: str) -> None:
    with pytest.raises(UnsupportedTemplate, match=f"the {name} function is not translated"):
        compile_template(CALLS[name][0], env_for(CONTEXT))
