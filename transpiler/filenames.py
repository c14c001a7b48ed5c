"""File names made from input text (tool names): they stay inside the directory they are for.

Characters outside ``[A-Za-z0-9._-]`` become ``_`` and leading dots are
dropped, so no name is a path, a parent directory or a hidden file.
"""

from __future__ import annotations

import re

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")
MAX_STEM = 100


def safe_stem(text: str, fallback: str = "tool") -> str:
    """A file name stem resembling ``text`` (``fallback`` when nothing is left of it)."""
    return _UNSAFE.sub("_", text).lstrip(".")[:MAX_STEM] or fallback
