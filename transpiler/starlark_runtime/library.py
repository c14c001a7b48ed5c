"""Starlark modules for ``load()`` from library directories (``run --library-path``).

Every ``.star`` file under a directory is a module named by its path relative
to that directory (``util.star``, ``net/http.star``); with several
directories the first one that has a name wins. Only those names exist, so a
``load()`` of an absolute path, of a name with ``..``, or of a file that a
symbolic link places outside its directory finds no module.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from transpiler.diagnostics import InputError
from transpiler.reading import UnreadableFile, read_text


def library_modules(directories: Sequence[Path]) -> dict[str, str]:
    """Module name -> source for every module the directories offer (first match wins)."""
    modules: dict[str, str] = {}
    for directory in directories:
        if not directory.is_dir():
            raise InputError(f"library path {directory} is not a directory")
        root = directory.resolve()
        for path in sorted(directory.rglob("*.star")):
            name = path.relative_to(directory).as_posix()
            if name in modules or not path.is_file() or not path.resolve().is_relative_to(root):
                continue
            try:
                modules[name] = read_text(path)
            except UnreadableFile as error:
                raise InputError(f"cannot read module {path}: {error.reason}") from None
    return modules
