"""Quirks a user may ask the script to fix (``--fix NAME``), as deliberate deviations.

By default a script reproduces vMCP exactly, quirks included. A fix emits the
behaviour vMCP's documentation intends instead; the script's header and the
emit result record it as a requested deviation.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from transpiler.diagnostics import TranspilerError

MISSING_PARAMETER = "missing-parameter-no-value"

FIXES: dict[str, str] = {
    MISSING_PARAMETER: (
        "an argument that is exactly {{.params.X}} for an optional parameter without default "
        "is left out when the client does not send X, instead of being sent as the string "
        '"<no value>"'
    ),
}

_LONE_PARAM = re.compile(r"^\{\{-?\s*\.params\.([A-Za-z_][A-Za-z0-9_]*)\s*-?\}\}$")


class UnknownFix(TranspilerError):
    """A ``--fix`` name that is not a known quirk."""


def checked_fixes(names: Iterable[str]) -> frozenset[str]:
    """The requested fixes, refusing unknown names."""
    chosen = frozenset(names)
    unknown = sorted(chosen - set(FIXES))
    if unknown:
        known = ", ".join(sorted(FIXES))
        raise UnknownFix(f"unknown --fix {', '.join(unknown)} (known: {known})")
    return chosen


def lone_parameter(value: Any) -> str | None:
    """X when ``value`` is exactly the template ``{{.params.X}}``."""
    if not isinstance(value, str):
        return None
    match = _LONE_PARAM.match(value)
    return match.group(1) if match else None


def optional_parameters(parameters: Any) -> frozenset[str]:
    """Declared parameters that are neither required nor defaulted."""
    if not isinstance(parameters, dict) or not isinstance(parameters.get("properties"), dict):
        return frozenset()
    required = parameters.get("required")
    required_names = set(required) if isinstance(required, list) else set()
    return frozenset(
        str(name)
        for name, spec in parameters["properties"].items()
        if name not in required_names and not (isinstance(spec, dict) and "default" in spec)
    )
