"""A script's text as vMCP reads it: the one reading every reader here follows.

vMCP hands a scripted tool's text to go.starlark.net as it is: THV-0051's
engine loads a script from its source string (``LoadScript(ctx, name,
source)``), and the code-mode engine vMCP ships (``pkg/script``) passes the
string to ``starlark.ExecFileOptions`` unchanged; nothing normalises it. So
the reading that counts is go.starlark.net's scanner, which reads ``\\r\\n``
and a lone ``\\r`` as one line break everywhere (comments and string literals
included) and a NUL outside a string literal as the end of the file.

The other readers here read those bytes otherwise: starlark-rust keeps a lone
``\\r`` inside a comment (so code after it is no code) and drops it from a
string literal, and reads a NUL as text; Python's parser (the map of a
script's call sites and the probes) refuses a NUL. What one reader sees and
another does not would be a place to hide a call, so every reader takes
:func:`as_vmcp_reads` of the text (line breaks as go.starlark.net reads them,
which Python's parser agrees with), and a text holding a NUL
(:func:`nul_problem`) runs on go.starlark.net alone.
"""

from __future__ import annotations


def as_vmcp_reads(source: str) -> str:
    """``source`` with each ``\\r\\n`` and each lone ``\\r`` one ``\\n``, as go.starlark.net
    reads them (the same lines, the same columns)."""
    if "\r" not in source:
        return source
    return source.replace("\r\n", "\n").replace("\r", "\n")


def nul_problem(source: str) -> str | None:
    """Why a reader other than go.starlark.net cannot read ``source`` as vMCP does: a NUL
    byte, with its line (None when it holds none)."""
    index = source.find("\x00")
    if index < 0:
        return None
    line = as_vmcp_reads(source[:index]).count("\n") + 1
    return (
        f"a NUL byte on line {line}, which go.starlark.net (what vMCP embeds) reads as the end "
        "of the file outside a string literal, and starlark-rust and Python's parser otherwise"
    )
