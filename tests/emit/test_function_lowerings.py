"""Every template function in a readable script: written as its row's lowering says, or not.

A tool sends each function's first call (``tests.gotemplate.function_cases``)
as an argument. Where the row gives a plain form the script is readable and
sends what vMCP sends; where it refuses one the tool is emitted in the exact
style with the refusal as the reason, or not at all without an exact helper.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml

import transpiler
from tests.gotemplate.function_cases import CALLS, CONTEXT
from tests.starlark_runtime.helpers import run, scenario
from transpiler.gotemplate import parse, render
from transpiler.gotemplate.functions import FUNCTIONS, Lowering

_SCHEMAS = {str: "string", float: "number", int: "integer", bool: "boolean", list: "array"}


def _transpiled(template: str) -> transpiler.Transpiled:
    properties = {
        key: {"type": _SCHEMAS.get(type(value), "object")}
        for key, value in CONTEXT["params"].items()
    }
    tool = {
        "name": "probe",
        "description": "Sends one template",
        "parameters": {"type": "object", "properties": properties},
        "steps": [{"id": "send", "tool": "backend.send", "arguments": {"text": template}}],
    }
    return transpiler.loads(yaml.safe_dump({"compositeTools": [tool]})).transpile("probe")


def _sent(script: str) -> Any:
    world = scenario(
        params=CONTEXT["params"],
        backends={"backend.send": {"results": [{"structuredContent": {}}]}},
    )
    trace = run(script, world, "rust")
    assert trace.outcome == "success", trace.error
    return trace.calls[0].args["text"]


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_each_function_is_written_as_its_row_says(name: str) -> None:
    template, function = CALLS[name][0], FUNCTIONS[name]
    result = _transpiled(template)
    if function.readable.lowering is not Lowering.REFUSED:
        assert result.style == "readable" and result.script is not None, result.warnings
        assert _sent(result.script) == render(parse(template), CONTEXT)
    elif function.helper is not None:
        assert result.style == "exact"
        refusal = f"the template function {name}: {function.readable.refusal}"
        assert any(refusal in note.text for note in result.warnings), result.warnings
    else:
        assert not result.converted
