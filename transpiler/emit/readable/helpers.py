"""The small functions a readable script defines after ``run`` when its code calls them.

They live in ``helpers.star``, one top-level ``def`` each; a script carries
the ones it uses, by name.
"""

from __future__ import annotations

import ast
from functools import cache
from importlib import resources


@cache
def helpers() -> dict[str, str]:
    """Each helper's source (its ``def`` to the end of its body) by name."""
    text = (
        resources.files("transpiler.emit.readable")
        .joinpath("helpers.star")
        .read_text(encoding="utf-8")
    )
    lines = text.splitlines(keepends=True)
    return {
        node.name: "".join(lines[node.lineno - 1 : node.end_lineno])
        for node in ast.parse(text).body
        if isinstance(node, ast.FunctionDef)
    }
