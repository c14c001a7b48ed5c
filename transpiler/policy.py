"""The gate's policy file, ``vmcp-transpile.yaml``: what ``check`` accepts and how hard it looks.

A repository keeps the policy next to its vMCP configuration so that every CI
run of ``check`` is the same run::

    # vmcp-transpile.yaml
    accept: [error-text, missing-value]   # deviation classes a tool may show and pass;
                                          # "declared" (the default): every class the script
                                          # declares but listing-safety, which must be
                                          # named; [] (or strict: true): none
    engines: [go]                         # rust, go, or both
    examples: 200                         # random scenarios per tool
    paths: 64                             # outcome combinations per tool
    seed: 7
    style: readable                       # how scripts are emitted when a tool has none
    library_path: [lib]                   # directories for load(), relative to this file
    accept_gaps: [tool/step, tool/line:12]
                                          # gaps accepted by name: a step no scenario may
                                          # complete, the script's call sites on a line
                                          # (tool/MODULE:LINE: a module's) none may reach
    target: thv-0051                      # the vMCP the configuration is for (docs/target.md)
    changes: {widen: deny, record: warn}  # reviewed changes (transpiler.changes): allow
                                          # (a notice, the default), warn or deny each kind

The policy that governs a path is the nearest ``vmcp-transpile.yaml`` found
walking up from it (a directory given, else the file's folder) to the
repository root (the folder holding ``.git``; outside a repository, the
folder alone); one run applies one policy (:func:`find_policy`).

Options given on the command line win over the file. The file is read as
configurations are (a regular file of at most 2 MiB, nested at most as deep,
no key given twice); unknown keys and values of the wrong type (``strict:
"true"`` is text, not ``true``) are errors naming the file and the key (and the line, for
``changes``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from transpiler.diagnostics import InputError
from transpiler.reading import MAX_FILE_BYTES

if TYPE_CHECKING:
    from transpiler.changes import ChangeKind, Level
    from transpiler.config.target import Target
    from transpiler.deviations import Deviation

POLICY_FILE = "vmcp-transpile.yaml"
ENGINE_CHOICES = ("rust", "go", "both")
STYLE_CHOICES = ("readable", "exact")


@dataclass(frozen=True)
class Policy:
    """What a policy file says; None where it says nothing."""

    source: Path | None = None
    accept: frozenset[Deviation] | None = None
    engines: str | None = None
    examples: int | None = None
    paths: int | None = None
    seed: int | None = None
    style: str | None = None
    library_path: tuple[Path, ...] = ()
    accept_gaps: frozenset[str] = frozenset()
    target: Target | None = None
    changes: Mapping[ChangeKind, Level] = field(default_factory=dict)

    def level(self, kind: ChangeKind) -> Level:
        """What the policy makes of a reviewed change of ``kind`` (``allow`` unless it says)."""
        from transpiler.changes import Level

        return self.changes.get(kind, Level.ALLOW)


def find_policy(paths: Sequence[str]) -> Path | None:
    """The policy that governs every one of ``paths`` (see the module's docstring), as a path
    from the current directory; None when none has one. InputError when two paths are governed
    by different policies, or a directory given holds a policy of its own further down: one run
    applies one policy, and no policy is left unapplied."""
    governing: dict[Path | None, tuple[str, Path | None]] = {}
    for given in paths:
        found = nearest_policy(Path(given))
        for nested in _policies_below(Path(given)):
            raise InputError(
                f"{shown_path(nested)} governs the files below it, but {given} (policy: "
                f"{_named(found)}) holds them: check that folder in a run of its own"
            )
        governing.setdefault(None if found is None else found.resolve(), (given, found))
    if len(governing) > 1:
        (one, first), (other, second) = list(governing.values())[:2]
        raise InputError(
            f"{one} and {other} are governed by different policies ({_named(first)}, "
            f"{_named(second)}): one run applies one policy, so check the paths of each in a "
            "run of their own"
        )
    chosen = next(iter(governing.values()), ("", None))[1]
    return None if chosen is None else Path(shown_path(chosen))


def _named(policy: Path | None) -> str:
    return "none" if policy is None else shown_path(policy)


def nearest_policy(path: Path) -> Path | None:
    """The nearest policy walking up from ``path`` to its repository's root; None if none."""
    start = path.absolute()
    folder = start if start.is_dir() else start.parent
    in_repository = any((above / ".git").exists() for above in (folder, *folder.parents))
    for above in (folder, *folder.parents) if in_repository else (folder,):
        candidate = above / POLICY_FILE
        if candidate.exists() or candidate.is_symlink():
            return candidate  # even when it is not a regular file: reading it says so
        if (above / ".git").exists():
            return None
    return None


def _policies_below(path: Path) -> list[Path]:
    """The policy files strictly below the directory ``path`` (none for a file)."""
    if not path.is_dir():
        return []
    return sorted(
        Path(folder, POLICY_FILE)
        for folder, _, names in os.walk(path)
        if POLICY_FILE in names and Path(folder) != path
    )


def shown_path(path: Path) -> str:
    """``path`` as a person reads it: from the current directory when it lies below it."""
    absolute = path.absolute()
    try:
        return str(absolute.relative_to(Path.cwd()))
    except ValueError:
        return str(absolute)


def load_policy(path: Path, content: bytes | None = None) -> Policy:
    """Read and check a policy file (``content``: its bytes, read elsewhere, e.g. from git)."""
    from transpiler.config.datafile import load_yaml

    data = load_yaml(path, MAX_FILE_BYTES, "the policy", content)
    if data is None:
        return Policy(path)
    if not isinstance(data, Mapping):
        raise InputError(f"{path}: the policy must be a mapping of options")
    known = {
        "accept",
        "strict",
        "engines",
        "examples",
        "paths",
        "seed",
        "style",
        "library_path",
        "accept_gaps",
        "target",
        "changes",
    }
    unknown = sorted(str(key) for key in data if key not in known)
    if unknown:
        raise InputError(f"{path}: unknown policy key(s): {', '.join(unknown)}")
    return Policy(
        source=path,
        accept=_accept(path, data),
        engines=_engines(path, data.get("engines")),
        examples=_count(path, data, "examples"),
        paths=_count(path, data, "paths"),
        seed=_count(path, data, "seed"),
        style=_choice(path, data, "style", STYLE_CHOICES),
        library_path=tuple(path.parent / entry for entry in _strings(path, data, "library_path")),
        accept_gaps=frozenset(_strings(path, data, "accept_gaps")),
        target=_target(path, data),
        changes=_changes(path, data.get("changes")),
    )


def _target(path: Path, data: Mapping[str, Any]) -> Target | None:
    from transpiler.config.target import TARGETS, target_named

    name = _choice(path, data, "target", tuple(TARGETS))
    return target_named(name) if name is not None else None


def _accept(path: Path, data: Mapping[str, Any]) -> frozenset[Deviation] | None:
    strict = data.get("strict")
    if strict is None:
        strict = False
    if not isinstance(strict, bool):
        raise InputError(f"{path}: strict: give true or false, not {strict!r}")
    if strict and "accept" in data:
        raise InputError(f"{path}: give accept or strict: true, not both")
    if strict:
        return frozenset()
    from transpiler.deviations import Deviation, read_ids

    value = data.get("accept", "declared")
    if value == "declared":
        return None
    classes, unknown = read_ids(_strings(path, data, "accept"))
    if unknown:
        raise InputError(
            f"{path}: accept: unknown deviation class(es) {', '.join(unknown)} "
            f"(known: {', '.join(sorted(Deviation))})"
        )
    return classes


def _engines(path: Path, value: Any) -> str | None:
    if value is None:
        return None
    engines = [value] if isinstance(value, str) else value
    valid = isinstance(engines, list) and engines and all(e in ENGINE_CHOICES for e in engines)
    if not valid:
        raise InputError(f"{path}: engines: give rust, go or both")
    chosen = set(engines)
    return "both" if "both" in chosen or chosen == {"rust", "go"} else engines[0]


def _count(path: Path, data: Mapping[str, Any], key: str) -> int | None:
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InputError(f"{path}: {key}: give a whole number (0 or more)")
    return value


def _choice(path: Path, data: Mapping[str, Any], key: str, choices: tuple[str, ...]) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if value not in choices:
        raise InputError(f"{path}: {key}: give one of {', '.join(choices)}")
    return str(value)


def _strings(path: Path, data: Mapping[str, Any], key: str) -> list[str]:
    value = data.get(key, [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise InputError(f"{path}: {key}: give a list of names")
    return list(value)


def _changes(path: Path, value: Any) -> dict[ChangeKind, Level]:
    """``changes:``, a mapping of change kinds to levels; a bad key or value is an error at its
    line."""
    from transpiler.changes import ChangeKind, Level
    from transpiler.config.datafile import locate

    if value is None:
        return {}
    kinds = ", ".join(ChangeKind)
    levels = f"{Level.ALLOW}, {Level.WARN} or {Level.DENY}"
    if not isinstance(value, Mapping):
        where = locate(str(path), ["changes"], MAX_FILE_BYTES)
        raise InputError(f"changes: give a mapping of change kinds ({kinds}) to {levels}", where)
    found: dict[ChangeKind, Level] = {}
    for key, level in value.items():
        where = locate(str(path), ["changes", str(key)], MAX_FILE_BYTES)
        if key not in tuple(ChangeKind):
            raise InputError(f"changes: unknown kind of change {key!r} (known: {kinds})", where)
        if level not in tuple(Level):
            raise InputError(f"changes: {key}: give {levels}, not {level!r}", where)
        found[ChangeKind(key)] = Level(level)
    return found
