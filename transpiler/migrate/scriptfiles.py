"""Script files for ``--script-dir``: one ``.star`` file per tool, never overwriting another.

A tool's file is ``<name>.star`` (the name made safe by
:func:`transpiler.filenames.safe_stem`); when that name is taken by different
content (on disk, or by another tool of this run) the next free
``<name>-2.star``, ``-3``... is used. An existing file with the same content
is reused, so a second run writes nothing new. The config cites the file
relative to the config's own directory, which must hold it: a ``scriptFile``
is read from the config's folder and below (:func:`~transpiler.filenames.inside`),
so a ``--script-dir`` outside it is refused before anything is written.
"""

from __future__ import annotations

import os
from pathlib import Path

from transpiler.diagnostics import InputError
from transpiler.filenames import safe_stem
from transpiler.migrate.atomic import PlannedWrite
from transpiler.reading import UnreadableFile, read_text


class ScriptFiles:
    """The script files a run assigns, by the config file that cites them."""

    def __init__(self, directory: Path | None) -> None:
        self.directory = directory
        self._assigned: dict[Path, tuple[str, str]] = {}

    def assign(self, config: str, tool: str, script: str, destination: Path) -> str:
        """The ``scriptFile`` value for ``tool``'s script, cited from ``destination``."""
        assert self.directory is not None
        stem = safe_stem(tool)
        number = 1
        while True:
            name = f"{stem}.star" if number == 1 else f"{stem}-{number}.star"
            path = self.directory / name
            if self._free(path, script):
                break
            number += 1
        folder = destination.resolve().parent
        relative = os.path.relpath(path.resolve(), folder)
        if relative == ".." or relative.startswith("../"):
            raise InputError(
                f"--script-dir {self.directory} is outside the folder of {destination} "
                f"({folder}): a scriptFile is read from its config's folder and below"
            )
        self._assigned[path] = (config, script)
        return Path(relative).as_posix()

    def _free(self, path: Path, script: str) -> bool:
        taken = self._assigned.get(path)
        if taken is not None:
            return taken[1] == script
        if not path.exists():
            return True
        try:
            return read_text(path) == script
        except UnreadableFile:
            return False

    def read(self, path: Path) -> str:
        """A script file as this run leaves it: the script assigned to it, else what is there."""
        for assigned, (_, script) in self._assigned.items():
            if assigned.resolve() == path.resolve():
                return script
        return read_text(path)

    def forget(self, config: str) -> None:
        """Drop the files of a config that will not be written."""
        self._assigned = {p: v for p, v in self._assigned.items() if v[0] != config}

    def writes(self) -> list[PlannedWrite]:
        """The files to write (new or changed only), in path order."""
        planned = []
        for path, (_, script) in sorted(self._assigned.items()):
            try:
                if read_text(path) == script:
                    continue
            except UnreadableFile:
                pass
            planned.append(PlannedWrite(path, script.encode("utf-8")))
        return planned
