"""This transpiler's own code, as one digest: a verdict recorded by another version is stale."""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent
_SUFFIXES = (".py", ".star", ".go")


@cache
def code_digest() -> str:
    """SHA-256 over every source file of the package (path and content, in path order)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in _PACKAGE.rglob("*") if p.suffix in _SUFFIXES):
        digest.update(path.relative_to(_PACKAGE).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()
