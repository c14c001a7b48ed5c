"""File names made from input text: they stay inside the directory they are for.

Names this transpiler makes (from tool names, :func:`safe_stem`): characters
outside ``[A-Za-z0-9._-]`` become ``_`` and leading dots are dropped, so no
name is a path, a parent directory or a hidden file. Names the input gives
(``scriptFile``, ``load()``, :func:`inside`): read only inside their folder.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

#: The suffix of the composite baseline ``migrate --write`` leaves beside a file it rewrites
#: (:mod:`transpiler.sidecar`); named here so that a look at file names loads nothing else.
SIDECAR_SUFFIX = ".composite-baseline"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")
MAX_STEM = 100


def safe_stem(text: str, fallback: str = "tool") -> str:
    """A file name stem resembling ``text`` (``fallback`` when nothing is left of it)."""
    return _UNSAFE.sub("_", text).lstrip(".")[:MAX_STEM] or fallback


def inside(folder: Path, name: str) -> Path | None:
    """The file ``name`` (a relative path from input, ``/``-separated) names in ``folder``; None
    when it could name anything outside: an absolute path, a ``..`` part, a symbolic link that
    leads out of ``folder``, or no name at all. ``load()`` modules and ``scriptFile`` both
    follow this rule."""
    parts = PurePosixPath(name).parts
    if not parts or PurePosixPath(name).is_absolute() or ".." in parts:
        return None
    path = folder.joinpath(*parts)
    try:
        within = path.resolve().is_relative_to(folder.resolve())
    except (OSError, RuntimeError, ValueError):  # a loop of links, a NUL in the name
        return None
    return path if within else None
