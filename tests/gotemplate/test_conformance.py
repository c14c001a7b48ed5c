"""Every ``kind: template`` case of the shared conformance suite (read at test time)."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import CONFORMANCE
from transpiler.golang.values import GoTime, GoValue
from transpiler.gotemplate import TemplateExecError, TemplateSyntaxError, parse, render


def _template_cases() -> list[Path]:
    return sorted(
        path
        for path in CONFORMANCE.rglob("*.yaml")
        if yaml.safe_load(path.read_text(encoding="utf-8")).get("kind") == "template"
    )


def _go_value(value: Any) -> GoValue:
    """A YAML value as vMCP holds it: YAML ints stay Go ints, timestamps become times."""
    if isinstance(value, dict):
        return {str(key): _go_value(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_go_value(item) for item in value]
    if isinstance(value, datetime):
        return GoTime(value)
    if isinstance(value, date):
        return GoTime(datetime(value.year, value.month, value.day))
    return value  # type: ignore[no-any-return]


def _expand(data: Any, context: GoValue) -> Any:
    """vMCP's argument expansion: every string, at any depth, rendered on its own."""
    if isinstance(data, str):
        return render(parse(data), context)
    if isinstance(data, dict):
        return {key: _expand(item, context) for key, item in data.items()}
    if isinstance(data, list):
        return [_expand(item, context) for item in data]
    return data


CASES = _template_cases()


def test_the_suite_has_template_cases() -> None:
    """The shared suite is where we expect it, with its 18 template cases."""
    assert len(CASES) == 18


@pytest.mark.parametrize("path", CASES, ids=[path.stem for path in CASES])
def test_conformance_case(path: Path) -> None:
    """The case's expectation (output, expanded value, or failure) holds."""
    case = yaml.safe_load(path.read_text(encoding="utf-8"))
    context = _go_value(case.get("context", {}))
    expect = case["expect"]
    source = case["template"] if "template" in case else case["data"]
    if expect.get("error") is True:
        with pytest.raises((TemplateSyntaxError, TemplateExecError)):
            _expand(source, context)
        return
    result = _expand(source, context)
    if "out" in expect:
        assert result == expect["out"]
    if "value" in expect:
        assert result == _go_value(expect["value"])
