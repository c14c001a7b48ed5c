"""Starlark modules for ``load()`` from library directories (``run --library-path``, and the
library path of ``check``, ``migrate`` and the library API).

Every ``.star`` file under a directory is a module named by its path relative
to that directory (``util.star``, ``net/http.star``); with several
directories the first one that has a name wins. Only those names exist, so a
``load()`` of an absolute path, of a name with ``..``, or of a file that a
symbolic link places outside its directory finds no module
(:func:`module_file`, the one rule for every command).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from transpiler.diagnostics import InputError
from transpiler.filenames import inside
from transpiler.reading import UnreadableFile, read_text


def module_file(directory: Path, name: str) -> Path | None:
    """The file of module ``name`` in ``directory``, or None: a module is a ``.star`` file at
    that relative path, inside the directory (:func:`~transpiler.filenames.inside`). A file
    found there is the module even when it cannot be read (reading it says why)."""
    path = inside(directory, name) if name.endswith(".star") else None
    return path if path is not None and path.exists() else None


def library_modules(directories: Sequence[Path]) -> dict[str, str]:
    """Module name -> source for every module the directories offer (first match wins)."""
    modules: dict[str, str] = {}
    for directory in directories:
        if not directory.is_dir():
            raise InputError(f"library path {directory} is not a directory")
        for path in sorted(directory.rglob("*.star")):
            name = path.relative_to(directory).as_posix()
            if name in modules or not path.is_file() or module_file(directory, name) is None:
                continue
            try:
                modules[name] = read_text(path)
            except UnreadableFile as error:
                raise InputError(f"cannot read module {path}: {error.reason}") from None
    return modules
