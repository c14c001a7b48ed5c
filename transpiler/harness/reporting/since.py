"""An earlier ``check --report-json``, for ``check --since``: which pairs need no new check.

The report is read whole (a regular file, at most :data:`MAX_REPORT_BYTES`)
and each entry is held to the shape ``--report-json`` writes; anything else
is not such a report, and ``check`` stops (exit 2) naming the file and the
entry. A well-formed entry is carried over, its pair not checked again, only
when its certificate is complete (every field a certificate has, none empty
where a passing verdict needs it), sealed (its ``seal`` is the SHA-256 of its
other fields, :func:`~transpiler.harness.running.check.seal_of`), says the entry's
tool, file, verdict and declared classes, and holds the digest the pair has
now; otherwise the pair is checked again. The seal binds the verdict to the
pair's digest against edits and entries pieced together, not against a
forger: anyone can compute it, so the report must come from a trusted run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final

from transpiler.config.datafile import load_json
from transpiler.diagnostics import InputError
from transpiler.harness.judging.verdict import Verdict
from transpiler.harness.running.check import ToolReport, seal_of

#: Largest earlier report read (reports hold every witness's traces).
MAX_REPORT_BYTES: Final = 128 * 1024 * 1024

#: A previous report's well-formed entries by (file, tool).
Since = Mapping[tuple[str, str], dict[str, Any]]

_Check = Callable[[Any], bool]


def _is_text(value: Any) -> bool:
    return isinstance(value, str)


def _is_whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _are_texts(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _is_text_map(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(item, str) for item in value.values())


def _is_mapping(value: Any) -> bool:
    return isinstance(value, dict)


def _is_verdict(value: Any) -> bool:
    return value in {str(verdict) for verdict in Verdict}


#: What ``--report-json`` writes for each tool.
_ENTRY: Final[dict[str, _Check]] = {
    "tool": _is_text,
    "file": _is_text,
    "verdict": _is_verdict,
    "passes": lambda value: isinstance(value, bool),
    "reason": _is_text,
    "declared": _are_texts,
    "witnesses": _is_mapping,
    "findings": _are_texts,
    "listing": lambda value: isinstance(value, list) and all(map(_is_mapping, value)),
    "certificate": _is_mapping,
    "counterexample": lambda value: value is None or isinstance(value, dict),
}
#: What a certificate holds (:func:`~transpiler.harness.running.check.certificate`).
CERTIFICATE: Final[dict[str, _Check]] = {
    "file": _is_text,
    "tool": _is_text,
    "yaml_sha256": lambda value: value is None or isinstance(value, str),
    "script_sha256": _is_text,
    "modules_sha256": _is_text_map,
    "pair_sha256": _is_text,
    "script_source": _is_text,
    "style": _is_text,
    "engines": _are_texts,
    "interpreters": _is_text_map,
    "seed": _is_whole,
    "paths": lambda value: isinstance(value, dict) and all(map(_is_whole, value.values())),
    "coverage": _is_mapping,
    "scenarios": _is_whole,
    "verdict": _is_verdict,
    "declared": _are_texts,
    "observed": lambda value: isinstance(value, dict) and all(map(_is_mapping, value.values())),
    "findings": _are_texts,
    "listing": lambda value: isinstance(value, list) and all(map(_is_mapping, value)),
    "notes": _are_texts,
    "domain": _are_texts,
    "deviations_requested": _are_texts,
    "seal": _is_text,
}


def read_since(path: Path) -> Since:
    """The entries of the report at ``path``, by (file, tool); InputError when it is not a
    report of ``check --report-json``."""
    return read_report(path)[1]


def read_report(
    path: Path, what: str = "the earlier report"
) -> tuple[dict[str, Any], dict[tuple[str, str], dict[str, Any]]]:
    """The report at ``path`` and its entries by (file, tool), in its order; InputError when it
    is not a report of ``check --report-json``."""
    data = load_json(path, MAX_REPORT_BYTES, what)
    tools = data.get("tools") if isinstance(data, dict) else None
    if not isinstance(tools, list):
        raise InputError(f"{path}: no list of tools: not a report of check --report-json")
    entries: dict[tuple[str, str], dict[str, Any]] = {}
    for number, entry in enumerate(tools, 1):
        problem = _malformed(entry)
        if problem is not None:
            tool = entry.get("tool") if isinstance(entry, dict) else None
            named = f" ({tool})" if isinstance(tool, str) else ""
            raise InputError(
                f"{path}: entry {number}{named}: not a report of check --report-json: {problem}"
            )
        entries[(entry["file"], entry["tool"])] = entry
    return data, entries


def _malformed(entry: Any) -> str | None:
    """What makes ``entry`` something ``--report-json`` never writes, or None."""
    if not isinstance(entry, dict):
        return "an entry is a mapping"
    for key, fits in _ENTRY.items():
        if key not in entry:
            return f"{key} is missing"
        if not fits(entry[key]):
            return f"{key} is {_shown(entry[key])}"
    certificate = entry["certificate"]
    for key, fits in CERTIFICATE.items():
        if key in certificate and not fits(certificate[key]):
            return f"certificate.{key} is {_shown(certificate[key])}"
    return None


def _shown(value: Any) -> str:
    """A value as an error shows it (a long one cut short)."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def carried(entry: dict[str, Any], digest: str) -> ToolReport | str | None:
    """The entry as the report of a pair whose digest is ``digest`` now: carried over when its
    certificate vouches for it; else why not (the digest matches, but the certificate does not
    vouch for the verdict); None when the pair changed since."""
    certificate = entry["certificate"]
    if certificate.get("pair_sha256") != digest:
        return None
    missing = [key for key in CERTIFICATE if key not in certificate]
    if missing:
        return f"its certificate is incomplete (no {', '.join(missing)})"
    if certificate["seal"] != seal_of(certificate):
        return "its certificate's seal does not match its content"
    for key in ("tool", "file", "verdict", "declared"):
        if certificate[key] != entry[key]:
            return f"its {key} is not its certificate's"
    passing = entry["verdict"] in (Verdict.EQUIVALENT, Verdict.EQUIVALENT_EXCEPT)
    if passing and certificate["scenarios"] < 1:
        return "its certificate counts no scenario"
    return ToolReport.unchanged(entry)
