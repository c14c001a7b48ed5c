"""Input files as a git revision holds them (``check --baseline-git REV``).

Each path given (a file or a directory, as in the working tree) is looked up
in the revision; a directory gives its ``*.yaml *.yml *.json`` files, as
:func:`~transpiler.config.loader.discover` does on disk. Files are named
``REV:path`` (the path relative to the repository's top), so every
diagnostic says where the text came from. Nothing is written anywhere.
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from pathlib import Path

from transpiler.config.loader import MAX_FILE_BYTES, SUFFIXES
from transpiler.diagnostics import InputError
from transpiler.inputs.files import SourceFile, source_from_bytes

_GIT_SECONDS = 60


def read_revision(revision: str, paths: Sequence[str | Path]) -> list[SourceFile]:
    """The files under ``paths`` as ``revision`` holds them, in path order."""
    if not revision or revision.startswith("-"):
        raise InputError(f"--baseline-git needs a revision, not {revision!r}")
    files: list[SourceFile] = []
    for given in paths:
        top = _top(Path(given))
        relative = Path(given).resolve().relative_to(top).as_posix()
        listed = _git(top, "ls-tree", "-r", "-z", "--name-only", revision, "--", relative or ".")
        names = sorted(n for n in listed.decode("utf-8").split("\0") if n)
        chosen = [n for n in names if n == relative or Path(n).suffix in SUFFIXES]
        if not chosen:
            raise InputError(f"{revision}:{relative or '.'}: no such file or directory")
        for name in chosen:
            files.append(_file(top, revision, name))
    return files


def _file(top: Path, revision: str, name: str) -> SourceFile:
    label = Path(f"{revision}:{name}")
    size = int(_git(top, "cat-file", "-s", f"{revision}:{name}"))
    if size > MAX_FILE_BYTES:
        return SourceFile(label, problem=f"file is {size} bytes; the limit is {MAX_FILE_BYTES}")
    return source_from_bytes(label, _git(top, "cat-file", "blob", f"{revision}:{name}"))


def _top(path: Path) -> Path:
    """The top of the git work tree holding ``path`` (which may no longer exist there)."""
    folder = path.resolve()
    while not folder.is_dir():
        folder = folder.parent
    return Path(_git(folder, "rev-parse", "--show-toplevel").decode("utf-8").strip())


def _git(where: Path, *arguments: str) -> bytes:
    try:
        done = subprocess.run(
            ["git", "-C", str(where), *arguments],
            capture_output=True,
            timeout=_GIT_SECONDS,
            check=False,
        )
    except FileNotFoundError:
        raise InputError("--baseline-git needs git, which is not installed") from None
    except subprocess.TimeoutExpired:
        raise InputError(f"git {arguments[0]} took more than {_GIT_SECONDS} s") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise InputError(f"git {arguments[0]}: {message[-1] if message else 'failed'}")
    return done.stdout
