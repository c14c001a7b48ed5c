"""Re-read every rewritten file and compare it with what the migration rules predict.

The prediction is computed on parsed data, independently of the text
splicer: documents parsed from the original text, with the same edits
applied to plain values. The rewritten text must parse to exactly that, and
must still load (yaml.v3 rules) with the expected number of composite tools.
It, and every script file it cites, must also be within the limits every
reader applies (:data:`~transpiler.reading.MAX_FILE_BYTES`), or no command
could read what was written. And the target must load it: the rewritten file
may hold no finding the target refuses that the original does not hold
(:func:`target_refusal`), so nothing is written that the vMCP it is for refuses.
"""

from __future__ import annotations

import copy
import math
from collections import Counter
from collections.abc import Mapping
from typing import Any

import yaml

from transpiler.config.loader import load_bytes
from transpiler.config.scripted import ScriptReader
from transpiler.config.target import Target
from transpiler.diagnostics import Diagnostic, Severity
from transpiler.inputs.textspan import Text
from transpiler.inputs.view import composite_view
from transpiler.inputs.yamlspan import parse_spans
from transpiler.migrate.entry import ScriptedBody
from transpiler.migrate.rewrite import SCRIPTED_KIND, DocumentEdits, ToolEdit
from transpiler.reading import MAX_FILE_BYTES
from transpiler.validate import validate

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_DELETED = object()


class VerificationError(Exception):
    """The rewritten text does not read back as the migration rules say it must."""


class OverLimit(VerificationError):
    """The rewritten file, or a script file it cites, would be past a reader's limit."""


class TargetRefuses(VerificationError):
    """The target would refuse the rewritten file: the first finding it refuses that the
    original file does not hold."""

    def __init__(self, target: Target, finding: Diagnostic) -> None:
        where = f"{finding.location} ({finding.phase})" if finding.phase else str(finding.location)
        super().__init__(
            f"the target {target} ({target.description}) would refuse the migrated file: "
            f"{where}: {finding.message}"
        )
        self.finding = finding


def target_refusal(
    original: tuple[str, str], rewritten: tuple[str, str], target: Target, read: ScriptReader
) -> None:
    """Raise :class:`TargetRefuses` when the rewritten ``(file, text)`` holds an error under
    ``target`` that the original ``(file, text)`` does not (the same rule, tool and message;
    the ``scriptFile`` s it cites read with ``read``)."""
    before = Counter(_key(d) for d in _errors(*original, target, read))
    for finding in _errors(*rewritten, target, read):
        key = _key(finding)
        if before[key] > 0:
            before[key] -= 1
        else:
            raise TargetRefuses(target, finding)


#: Findings a file judged alone cannot settle: a reference names a definition that may be in
#: another input (migrate moves a reference only to a definition the run leaves scripted).
_ACROSS_FILES = frozenset({"K8S.refNotFound"})


def _errors(file: str, text: str, target: Target, read: ScriptReader) -> list[Diagnostic]:
    report = validate(load_bytes(text.encode("utf-8"), file, target), read=read)
    return [
        d
        for d in report.diagnostics
        if d.severity is Severity.ERROR and d.rule not in _ACROSS_FILES
    ]


def _key(finding: Diagnostic) -> tuple[str, str | None, str]:
    return finding.rule, finding.tool, finding.message


def verify(
    file: str, old: str, new: str, edits: Mapping[int, DocumentEdits], composite_tools: int
) -> None:
    """Raise :class:`VerificationError` unless ``new`` is ``old`` with ``edits`` applied, and
    :class:`OverLimit` when it or a script file it cites could not be read back."""
    _within_limits(new, edits)
    try:
        documents = parse_spans(new)
        actual = list(yaml.load_all(new, Loader=_Loader))
    except Exception as error:
        raise VerificationError(f"the rewritten text does not parse: {error}") from None
    expected = expected_documents(list(yaml.load_all(old, Loader=_Loader)), edits)
    if _canon(actual) != _canon(expected):
        raise VerificationError("the rewritten text does not read back as the migrated data")
    view = composite_view(Text(new), documents)
    load = load_bytes(view.encode("utf-8"), file)
    if load.input_errors:
        problem = load.input_errors[0].render()
        raise VerificationError(f"the rewritten text does not load: {problem}")
    if len(load.tools) != composite_tools:
        raise VerificationError(
            f"the rewritten text has {len(load.tools)} composite tools, not {composite_tools}"
        )


def _within_limits(new: str, edits: Mapping[int, DocumentEdits]) -> None:
    sizes = [("the migrated file", len(new.encode("utf-8")))]
    for edit in (tool for document in edits.values() for tool in document.tools):
        if edit.body is not None and edit.body.script_file is not None:
            what = f"the script file {edit.body.script_file}"
            sizes.append((what, len(edit.body.script.encode("utf-8"))))
    for what, size in sizes:
        if size > MAX_FILE_BYTES:
            raise OverLimit(
                f"{what} would be {size} bytes, and no command reads a file over "
                f"{MAX_FILE_BYTES} bytes"
            )


def expected_documents(documents: list[Any], edits: Mapping[int, DocumentEdits]) -> list[Any]:
    """``documents`` with the migration applied to plain data."""
    result: list[Any] = []
    for index, document in enumerate(documents):
        edit = edits.get(index)
        if edit is None:
            result.append(document)
            continue
        changed, added = _document(copy.deepcopy(document), edit)
        if changed is not _DELETED:
            result.append(changed)
        if added is not None:
            result.append(added)
    return result


def _document(document: Any, edits: DocumentEdits) -> tuple[Any, Any]:
    added: Any = None
    lists: dict[str, list[tuple[int, ToolEdit]]] = {}
    for edit in edits.tools:
        if edit.path == "spec":
            scripted = _definition(document, edit.body) if edit.body is not None else None
            if scripted is not None and edit.remove:
                document = scripted
            elif scripted is not None:
                added = scripted
            elif edit.remove:
                document = _DELETED
            continue
        container, _, index = edit.path.rpartition("compositeTools[")
        lists.setdefault(container.rstrip("."), []).append((int(index.rstrip("]")), edit))
    for container, tool_edits in lists.items():
        mapping = _at(document, container)
        items = mapping["compositeTools"]
        moved = [_scripted(items[i], e.body) for i, e in sorted(tool_edits) if e.body is not None]
        gone = {i for i, e in tool_edits if e.remove}
        _move(mapping, "compositeTools", "scriptedTools", gone, moved)
    if edits.refs:
        config = _at(document, "spec.config")
        refs = config["compositeToolRefs"]
        present = {r.get("name") for r in config.get("scriptedToolRefs") or []}
        chosen = [i for i, ref in enumerate(refs) if ref.get("name") in edits.refs]
        moved = [refs[i] for i in chosen if refs[i].get("name") not in present]
        gone = set() if edits.keep_refs else set(chosen)
        _move(config, "compositeToolRefs", "scriptedToolRefs", gone, moved)
    return document, added


def _move(
    mapping: dict[str, Any], source: str, target: str, gone: set[int], moved: list[Any]
) -> None:
    kept = [item for i, item in enumerate(mapping[source]) if i not in gone]
    if kept:
        mapping[source] = kept
    else:
        del mapping[source]
    if moved:
        mapping[target] = (mapping.get(target) or []) + moved


def _at(document: Any, path: str) -> Any:
    node = document
    for part in filter(None, path.split(".")):
        node = node[part]
    return node


def _scripted(item: dict[str, Any], body: ScriptedBody) -> dict[str, Any]:
    drop = {"steps", "annotations", *(("output",) if body.output is not None else ())}
    scripted = {key: value for key, value in item.items() if key not in drop}
    if body.output is not None:
        scripted["output"] = body.output
    if body.annotations is not None:
        scripted["annotations"] = body.annotations
    if body.script_file is not None:
        scripted["scriptFile"] = body.script_file
    else:
        scripted["script"] = body.script
    return scripted


def _definition(document: dict[str, Any], body: ScriptedBody) -> dict[str, Any]:
    scripted = copy.deepcopy(document)
    scripted["kind"] = SCRIPTED_KIND
    scripted["spec"] = _scripted(scripted["spec"], body)
    return scripted


def _canon(value: Any) -> Any:
    """A comparable form: NaN equal to itself, mappings order-free."""
    if isinstance(value, dict):
        return ("map", sorted((repr(k), _canon(v)) for k, v in value.items()))
    if isinstance(value, list):
        return ("list", [_canon(v) for v in value])
    if isinstance(value, float) and math.isnan(value):
        return ("nan",)
    return (type(value).__name__, repr(value))
