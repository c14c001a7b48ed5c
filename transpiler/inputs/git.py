"""Input files as a git revision holds them (``check --baseline-git REV``).

Each path given (a file or a directory, as in the working tree) is looked up
in the revision; a directory gives its ``*.yaml *.yml *.json`` files, as
:func:`~transpiler.config.loader.discover` does on disk. A symbolic link is
followed inside the revision, as the file system would follow it in a
checkout: a link to a file reads that file, the path given may be a link to a
directory, and a link that leaves the repository, points at nothing the
revision holds, or loops is an unreadable file (exit 2); a revision the
repository does not hold stops the run, saying how to fetch it (a shallow CI
checkout: ``fetch-depth: 0``). Files are named
``REV:path`` (the path relative to the repository's top), so every diagnostic
says where the text came from; a ``scriptFile`` a revision's configuration
cites is read from the revision too (:func:`revision_reader`). A path the work
tree holds but the revision does not is new since the revision: nothing is read
for it. Nothing is written anywhere.
"""

from __future__ import annotations

import posixpath
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from transpiler.config.loader import MAX_FILE_BYTES, SUFFIXES
from transpiler.diagnostics import InputError
from transpiler.inputs.files import SourceFile, source_from_bytes
from transpiler.inputs.scripted import ScriptReader
from transpiler.reading import UnreadableFile, read_text

_GIT_SECONDS = 60
#: Most symbolic links followed to reach one file (Linux's own limit).
MAX_LINKS = 40
_LINK_MODE = "120000"


@dataclass(frozen=True)
class _Entry:
    """One entry of a git tree: its mode, type (blob, tree, commit) and path from the top."""

    mode: str
    kind: str
    path: str


def read_revision(
    revision: str,
    paths: Sequence[str | Path],
    suffixes: Sequence[str] = SUFFIXES,
    required: bool = True,
) -> list[SourceFile]:
    """The files under ``paths`` as ``revision`` holds them (a path given, or a file with one of
    ``suffixes`` under it), in path order; a path that holds none is an input error when
    ``required`` (unless the work tree holds it: it is new since the revision)."""
    if not revision or revision.startswith("-"):
        raise InputError(f"--baseline-git needs a revision, not {revision!r}")
    files: list[SourceFile] = []
    held: set[Path] = set()
    for given in paths:
        top = _top(Path(given))
        if top not in held:
            _holds(top, revision)
            held.add(top)
        relative = _relative(Path(given), top)
        entries = _list(top, revision, relative or ".", recursive=True)
        if len(entries) == 1 and entries[0].path == relative and entries[0].mode == _LINK_MODE:
            target = _follow(top, revision, entries[0])
            if isinstance(target, _Entry) and target.kind == "tree":
                entries = _list(top, revision, target.path, recursive=True)
        chosen = [e for e in entries if e.path == relative or Path(e.path).suffix in suffixes]
        if not required:
            chosen = [e for e in chosen if Path(e.path).suffix in suffixes]
        elif not chosen and not Path(given).exists():
            raise InputError(f"{revision}:{relative or '.'}: no such file or directory")
        for entry in chosen:
            source = _file(top, revision, entry, given=entry.path == relative)
            if source is not None:
                files.append(source)
    return files


def _holds(top: Path, revision: str) -> None:
    """Stop, saying how to get it, when the repository at ``top`` does not hold ``revision``
    (a CI checkout is shallow and holds one commit, not the branch to compare with)."""
    try:
        _git(top, "rev-parse", "--verify", "--quiet", f"{revision}^{{tree}}")
    except InputError:
        shallow = _git(top, "rev-parse", "--is-shallow-repository").strip() == b"true"
        hint = (
            "this clone is shallow: check out the history (`fetch-depth: 0` in "
            "actions/checkout) or fetch it (`git fetch --unshallow origin`)"
            if shallow
            else "fetch it first (`git fetch origin`), or name a revision it holds"
        )
        missing = f"--baseline-git {revision}: this repository does not hold it"
        raise InputError(f"{missing}; {hint}") from None


def _file(top: Path, revision: str, entry: _Entry, given: bool) -> SourceFile | None:
    """The file ``entry`` holds (through its links); None for what a directory walk skips."""
    label = Path(f"{revision}:{entry.path}")
    content = _blob(top, revision, entry, given)
    if isinstance(content, bytes):
        return source_from_bytes(label, content)
    if content is None:
        return None  # a link to a directory, or a submodule: a walk on disk skips it too
    return SourceFile(label, problem=content)


def _blob(top: Path, revision: str, entry: _Entry, given: bool = True) -> bytes | str | None:
    """The bytes of the file ``entry`` holds (through its links), or why it cannot be read;
    None for a directory or submodule a walk skips (not ``given``)."""
    target = _follow(top, revision, entry)
    if isinstance(target, str):
        return target
    if target.kind != "blob":
        return f"not a file in {revision} (a {target.kind})" if given else None
    name = f"{revision}:{target.path}"
    size = int(_git(top, "cat-file", "-s", name))
    if size > MAX_FILE_BYTES:
        return f"file is {size} bytes; the limit is {MAX_FILE_BYTES}"
    return _git(top, "cat-file", "blob", name)


def revision_bytes(revision: str, path: str | Path) -> bytes | None:
    """The work tree's file ``path`` as ``revision`` holds it (links followed inside it); None
    when the revision holds nothing there. One it holds but that cannot be read (a link out of
    the repository, a directory, over the size limit) raises :class:`UnreadableFile`."""
    top = _top(Path(path))
    relative = _relative(Path(path), top)
    exact = [e for e in _list(top, revision, relative, recursive=False) if e.path == relative]
    if not exact:
        return None
    content = _blob(top, revision, exact[0])
    if not isinstance(content, bytes):
        raise UnreadableFile(f"{revision}:{relative}", str(content))
    return content


def revision_reader(revision: str, where: str | Path) -> ScriptReader:
    """Reads a file named as :func:`read_revision` names the files of ``revision`` (``REV:path``,
    the path from the top of the repository holding ``where``) from the revision, and any other
    from the file system: how a revision's configuration reads the ``scriptFile`` it cites."""
    prefix = f"{revision}:"
    top = _top(Path(where))

    def read(path: Path) -> str:
        label = str(path)
        if not label.startswith(prefix):
            return read_text(path)
        relative = posixpath.normpath(label[len(prefix) :])
        exact = [e for e in _list(top, revision, relative, recursive=False) if e.path == relative]
        content = _blob(top, revision, exact[0]) if exact else f"{revision} does not hold it"
        if not isinstance(content, bytes):
            raise UnreadableFile(path, str(content))
        try:
            return content.decode("utf-8")
        except UnicodeDecodeError as error:
            raise UnreadableFile(path, f"not UTF-8 text (byte {error.start})") from None

    return read


def _follow(top: Path, revision: str, entry: _Entry) -> _Entry | str:
    """The entry ``entry``'s symbolic links lead to, or why they lead nowhere readable."""
    seen = 0
    first = None
    while entry.mode == _LINK_MODE:
        link = _git(top, "cat-file", "blob", f"{revision}:{entry.path}").decode("utf-8", "replace")
        first = first or link
        seen += 1
        if seen > MAX_LINKS:
            return f"a symbolic link to {first}, then more than {MAX_LINKS} in a row (a loop?)"
        joined = posixpath.normpath(posixpath.join(posixpath.dirname(entry.path), link))
        if posixpath.isabs(link) or joined == ".." or joined.startswith("../"):
            return f"a symbolic link to {first}, outside the repository"
        found = _list(top, revision, joined, recursive=False)
        exact = [e for e in found if e.path == joined]
        if not exact:
            return f"a symbolic link to {first}, which {revision} does not hold"
        entry = exact[0]
    return entry


def _list(top: Path, revision: str, path: str, recursive: bool) -> list[_Entry]:
    """The entries of ``revision`` at ``path`` (every file under it when ``recursive``)."""
    arguments = ["ls-tree", "-z", *(["-r"] if recursive else []), revision, "--", path]
    entries = []
    for line in _git(top, *arguments).decode("utf-8", "surrogateescape").split("\0"):
        if line:
            header, _, name = line.partition("\t")
            mode, kind, _ = header.split(" ", 2)
            entries.append(_Entry(mode, kind, name))
    return sorted(entries, key=lambda e: e.path)


def _relative(path: Path, top: Path) -> str:
    """``path`` from the top of the work tree (a symbolic link as such, not where it points)."""
    absolute = path.absolute()
    located = absolute.parent.resolve() / absolute.name if absolute.name else absolute.resolve()
    if not located.is_relative_to(top):
        raise InputError(f"{path}: not inside the git work tree {top}")
    relative = located.relative_to(top).as_posix()
    return "" if relative == "." else relative


def _top(path: Path) -> Path:
    """The top of the git work tree holding ``path`` (which may no longer exist there)."""
    folder = path.resolve()
    while not folder.is_dir():
        folder = folder.parent
    return Path(_git(folder, "rev-parse", "--show-toplevel").decode("utf-8").strip())


def committed_in_git(path: Path) -> bool:
    """Whether git holds ``path`` as it is now: tracked, with no change since the last commit
    (False where there is no git, no work tree, or git cannot say)."""
    try:
        folder = path.resolve().parent
        listed = _git(folder, "ls-files", "--error-unmatch", "--", path.name)
        status = _git(folder, "status", "--porcelain", "--", path.name)
    except (InputError, OSError):
        return False
    return bool(listed.strip()) and not status.strip()


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
