"""Composite tools as Starlark scripts, in two styles (facade: :func:`emit_tool`).

- ``readable`` (the default): the script a person would write and keep; where
  it differs from vMCP, the deviation classes it declares say how
  (:mod:`transpiler.emit.readable`).
- ``exact``: bug-compatible with vMCP's Go engine through Go-emulation helpers
  (:mod:`transpiler.emit.exact.script`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from transpiler.config.model import CompositeToolConfig
from transpiler.deviations import Deviation
from transpiler.emit.report import EmitResult, Note

STYLES = ("readable", "exact")


def emit_tool(
    tool: CompositeToolConfig,
    source: str,
    *,
    style: str = "readable",
    tool_schemas: Mapping[str, Any] | None = None,
    fixes: Iterable[str] = (),
    inline_helpers: bool = False,
    entry_deviations: Mapping[Deviation, str] | None = None,
) -> EmitResult:
    """The script for one validated tool in the given style.

    An exact script loads its helpers from ``vmcp_compat.star`` (the result's
    ``modules``), or carries them itself when ``inline_helpers``.
    ``entry_deviations`` are the classes the scripted tool's entry (not its code) shows, each
    with its sentence: the script declares them too, since ``check`` holds it to them.

    A readable script is not possible for every workflow (a template function
    with no plain form, a step that reads another's error text): such a tool
    is emitted in the exact style, with a warning note saying why.
    """
    from transpiler.emit.readable import NotReadable, emit_readable

    if style not in STYLES:
        raise ValueError(f"unknown style {style!r} (styles: {', '.join(STYLES)})")
    entry = dict(entry_deviations or {})
    if style == "readable":
        try:
            return emit_readable(tool, source, tool_schemas, fixes, entry)
        except NotReadable as why:
            from transpiler.emit.exact.script import emit_script

            exact = emit_script(tool, source, tool_schemas, fixes, inline_helpers, entry)
            reason = f"emitted in the exact style: {why}"
            note = Note("warning", "exact-fallback", reason)
            return replace(exact, notes=(*exact.notes, note))
    from transpiler.emit.exact.script import emit_script

    return emit_script(tool, source, tool_schemas, fixes, inline_helpers, entry)
