"""Starlark identifiers for the names a workflow uses (step ids, parameters).

Step ids become variable names a reader recognises: ``fetch-logs`` becomes
``fetch_logs``. Names are made unique and never shadow a builtin, a helper or
a Starlark keyword.
"""

from __future__ import annotations

import re

KEYWORDS = frozenset(
    [
        "and",
        "as",
        "assert",
        "async",
        "await",
        "break",
        "class",
        "continue",
        "def",
        "del",
        "elif",
        "else",
        "except",
        "finally",
        "for",
        "from",
        "global",
        "if",
        "import",
        "in",
        "is",
        "lambda",
        "load",
        "nonlocal",
        "not",
        "or",
        "pass",
        "raise",
        "return",
        "try",
        "while",
        "with",
        "yield",
        "True",
        "False",
        "None",
    ]
)
BUILTINS = frozenset(
    [
        "abs",
        "all",
        "any",
        "bool",
        "bytes",
        "call_tool",
        "chr",
        "dict",
        "dir",
        "elicit",
        "enumerate",
        "fail",
        "float",
        "getattr",
        "hasattr",
        "hash",
        "int",
        "json",
        "len",
        "list",
        "log",
        "max",
        "min",
        "ord",
        "parallel",
        "print",
        "range",
        "repr",
        "retry",
        "reversed",
        "sorted",
        "str",
        "struct",
        "try_call_tool",
        "tuple",
        "type",
        "zip",
        "params",
        "run",
    ]
)
_NOT_IDENTIFIER = re.compile(r"[^0-9A-Za-z_]+")
#: Where a camelCase word starts: ``pullNumber`` -> ``pull_Number``, ``HTTPServer`` ->
#: ``HTTP_Server``.
_WORD_START = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


class Namer:
    """Hands out unique identifiers, stable for the same sequence of requests."""

    def __init__(self, reserved: frozenset[str] = frozenset()) -> None:
        self._taken: set[str] = set(KEYWORDS | BUILTINS | reserved)
        self._given: dict[str, str] = {}

    def reserve(self, name: str) -> None:
        """Keep ``name`` out of what this namer hands out."""
        self._taken.add(name)

    def name(self, key: str, hint: str | None = None) -> str:
        """The identifier for ``key`` (the same one every time it is asked for)."""
        if key in self._given:
            return self._given[key]
        base = identifier(hint if hint is not None else key)
        candidate = base
        counter = 2
        while candidate in self._taken:
            candidate = f"{base}_{counter}"
            counter += 1
        self._taken.add(candidate)
        self._given[key] = candidate
        return candidate


def identifier(text: str) -> str:
    """A snake_case Starlark identifier resembling ``text`` (``pullNumber`` -> ``pull_number``)."""
    words = _WORD_START.sub("_", _NOT_IDENTIFIER.sub("_", text))
    base = words.strip("_").lower() or "step"
    if base[0].isdigit():
        base = "step_" + base
    if base.startswith("go_") or base.startswith("vmcp_"):
        base = "step_" + base
    return base
