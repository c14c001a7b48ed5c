"""The plan of reviewed changes: what a change does to what each tool is held to.

Under ``check --baseline-git REV`` (the pre-commit hook gives ``HEAD``) each tool name is held,
on each side of the change, to:

- its **record**, the composite tool its script is certified against: its entry in a
  composite baseline (``FILE.composite-baseline``) when there is one and the tool has a
  script, else its composite tool in the configuration (a composite tool beside a recorded
  script is **beside** it, not its record);
- its **script**, the scripted tool of its name, with the deviation classes its header
  declares;
- the **policy** file next to the first PATH.

REV's side is read as the revision holds it (``scriptFile`` s included), the change's from the
work tree. Each difference is one :class:`~transpiler.changes.Change`: a record edited (the
entry's YAML diff; the script is certified against the record as the change leaves it, and
its verdict against REV's record is checked too and given, so a reviewer sees the behaviour
change itself), a composite tool put beside a recorded script (checked too, its verdict
given), a tool renamed (a name gone and a name come whose records are alike but for the
name), retired (gone), added, migrated (a script added to a composite tool, or removed from
one), its declared classes widened or narrowed, the policy changed. Each kind's level is the
strictest the policy says at REV or in the change (``changes:``), so a change cannot loosen
its own review.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

from transpiler.changes import Change, ChangeKind, Level, strictest
from transpiler.config.units import LoadedTool
from transpiler.declaration import declared_in
from transpiler.deviations import Deviation
from transpiler.diagnostics import InputError
from transpiler.harness.reporting.places import work_tree_file
from transpiler.harness.reporting.reports import counterexample_json, witness_lines
from transpiler.harness.running.check import CheckOptions, ToolReport
from transpiler.inert import one_line
from transpiler.inputs.files import Inputs
from transpiler.inputs.git import revision_bytes
from transpiler.inputs.scripted import Counterpart
from transpiler.pairs import Pair, Pairing, Request, Script, Where
from transpiler.pipeline import tool_location
from transpiler.policy import POLICY_FILE, Policy, find_policy, load_policy
from transpiler.sidecar import SUFFIX, entry_of

from .batch import check_all

#: Most lines of a record's diff shown (the JSON report has them all).
DIFF_LINES = 60


@dataclass(frozen=True)
class Record:
    """A composite tool as one side holds it: its position in that side's inputs, the tool,
    and its text as a composite-baseline entry writes it."""

    index: int
    tool: LoadedTool
    text: str

    @property
    def entry(self) -> bool:
        """Whether it was read from a composite baseline."""
        return self.tool.origin.file.endswith(SUFFIX)

    @property
    def where(self) -> str:
        """``file:line``."""
        return f"{self.tool.origin.file}:{tool_location(self.tool).line}"


@dataclass(frozen=True)
class Holding:
    """What one tool name is held to on one side: its record, its scripted tool, and a
    composite tool beside a recorded script."""

    record: Record | None
    script: Counterpart | None
    beside: Record | None = None

    def declared(self) -> frozenset[Deviation]:
        """The classes its script's header declares (none without a script)."""
        text = self.script.script if self.script is not None else None
        return declared_in(text).classes if text is not None else frozenset()


def holdings(inputs: Inputs) -> dict[str, Holding]:
    """What each tool name of ``inputs`` is held to (see the module's docstring)."""
    assert inputs.load is not None
    sources = {source.name: source for source in inputs.files}
    entries: dict[str, Record] = {}
    composites: dict[str, Record] = {}
    for index, tool in enumerate(inputs.load.tools):
        source = sources[tool.origin.file]
        text = entry_of(source, tool, "").body if source.documents is not None else ""
        record = Record(index, tool, text)
        (entries if record.entry else composites).setdefault(tool.config.name, record)
    scripts: dict[str, Counterpart] = {}
    for counterpart in inputs.scripted.counterparts():
        scripts.setdefault(counterpart.tool, counterpart)
    held: dict[str, Holding] = {}
    for name in sorted({*entries, *composites, *scripts}):
        entry, composite, script = entries.get(name), composites.get(name), scripts.get(name)
        if script is not None and entry is not None:
            held[name] = Holding(entry, script, composite)
        else:
            held[name] = Holding(composite or entry, script)
    return held


@dataclass(frozen=True)
class _Policies:
    """The policy file at REV and in the change (None where there is none or it cannot be
    read), and its text on each side."""

    path: Path
    before: Policy | None
    after: Policy | None
    texts: tuple[str | None, str | None]
    unreadable: str | None = None

    def level(self, kind: ChangeKind) -> tuple[Level, str | None]:
        """The strictest level either side gives ``kind``, and which policy denies it."""
        sides = [p for p in (self.before, self.after) if p is not None]
        level = strictest([p.level(kind) for p in sides])
        denying = [str(p.source) for p in sides if p.level(kind) is Level.DENY]
        return level, " and ".join(dict.fromkeys(denying)) or None


def review(
    request: Request,
    pairing: Pairing,
    reports: Sequence[ToolReport],
    options: CheckOptions,
    jobs: int | None = None,
) -> tuple[Change, ...]:
    """Every reviewed change of the request (none when it is not a change's), with the verdicts
    of the records it replaced and of composite tools beside recorded scripts checked now."""
    before_where = request.before()
    if before_where is None:
        return ()
    revision = before_where.revision
    assert revision is not None
    before = holdings(before_where.read())
    after = holdings(request.after().read())
    scripts = {item.tool: item.script for item in pairing.pairs if item.script is not None}
    earlier = _earlier_verdicts(request, before_where, before, after, scripts, options, jobs)
    checked = check_all(pairing.beside, request, options, jobs)
    beside = {item.tool: report for item, report in zip(pairing.beside, checked, strict=True)}
    verdicts = {report.tool: report for report in reports}
    found: list[Change] = []
    renamed = _renames(before, after)
    for old, new in renamed:
        found.append(_renamed(old, new, after[new]))
    gone = sorted(set(before) - set(after) - {old for old, _ in renamed})
    come = sorted(set(after) - set(before) - {new for _, new in renamed})
    found += [_retired(name, before[name], revision) for name in gone]
    found += [_added(name, after[name]) for name in come]
    for name in sorted(set(before) & set(after)):
        was, now = before[name], after[name]
        found += _migrated(name, was, now)
        found += _recorded(name, was, now, revision, verdicts.get(name), earlier.get(name))
        found += _beside(name, was, now, beside.get(name))
        found += _declared(name, was, now, verdicts.get(name))
    policies = _policies(request, revision)
    found += _policy_changes(policies, revision)
    return tuple(_leveled(change, policies) for change in found)


def _earlier_verdicts(
    request: Request,
    before_where: Where,
    before: Mapping[str, Holding],
    after: Mapping[str, Holding],
    scripts: Mapping[str, Script],
    options: CheckOptions,
    jobs: int | None,
) -> dict[str, ToolReport]:
    """Each script whose record the change edits, checked against REV's record."""
    pairs = []
    for name in sorted(set(before) & set(after)):
        was, now, script = before[name].record, after[name].record, scripts.get(name)
        if was is not None and now is not None and script is not None and _edited(was, now):
            pairs.append(Pair(True, was.index, name, was.tool.origin.file, script))
    earlier = Request(request.config, before_where, library_path=request.library_path)
    checked = check_all(pairs, earlier, options, jobs)
    return {item.tool: report for item, report in zip(pairs, checked, strict=True)}


def _shape(record: Record, named: bool = True) -> Any:
    """A record's data (its name left out unless ``named``), or its text where it is not YAML
    alone (an alias to an anchor outside it)."""
    try:
        data = yaml.safe_load(record.text)
    except yaml.YAMLError:
        return record.text
    if named:
        return data
    if isinstance(data, list) and data and isinstance(data[0], dict):
        return [{k: v for k, v in data[0].items() if k != "name"}, *data[1:]]
    if isinstance(data, dict):
        return {
            key: {k: v for k, v in value.items() if k != "name"}
            if key in ("metadata", "spec") and isinstance(value, dict)
            else value
            for key, value in data.items()
        }
    return data


def _edited(was: Record, now: Record) -> bool:
    return bool(_shape(was) != _shape(now))


def _diff(was: Record, now: Record) -> tuple[str, ...]:
    """The unified diff of two records' texts, cut to :data:`DIFF_LINES`."""
    texts = was.text.splitlines(), now.text.splitlines()
    lines = list(difflib.unified_diff(*texts, was.where, now.where, lineterm=""))
    if len(lines) > DIFF_LINES:
        lines = [*lines[:DIFF_LINES], f"... ({len(lines) - DIFF_LINES} more lines)"]
    return tuple(lines)


def _renames(before: Mapping[str, Holding], after: Mapping[str, Holding]) -> list[tuple[str, str]]:
    """Names gone and names come whose records are alike but for the name (first come first)."""
    gone = [n for n in sorted(set(before) - set(after)) if before[n].record is not None]
    come = [n for n in sorted(set(after) - set(before)) if after[n].record is not None]
    found: list[tuple[str, str]] = []
    for old in gone:
        was = before[old].record
        assert was is not None
        for new in come:
            now = after[new].record
            assert now is not None
            same_side = (before[old].script is None) == (after[new].script is None)
            if same_side and _shape(was, named=False) == _shape(now, named=False):
                found.append((old, new))
                come.remove(new)
                break
    return found


def _script_place(script: Counterpart, line: int | None = None) -> tuple[str, int | None]:
    """Where a scripted tool is (its script file and ``line`` of it, when it has one)."""
    head, _, inner = script.where.partition(" (")
    config, _, entry_line = head.rpartition(":")
    path = inner.rstrip(")").split(": ")[0] if inner else ""
    if path and line is not None:
        return path, line
    return config, int(entry_line) if entry_line.isdigit() else None


def _place(holding: Holding) -> tuple[str, int | None]:
    if holding.script is not None:
        return _script_place(holding.script)
    assert holding.record is not None
    return holding.record.tool.origin.file, tool_location(holding.record.tool).line


def _renamed(old: str, new: str, now: Holding) -> Change:
    file, line = _place(now)
    what = "its record and its script" if now.script is not None else "its composite tool"
    summary = f"{old} -> {new}: renamed; {what} moved together ({file}:{line})"
    return Change(ChangeKind.RENAME, (old, new), summary, file, line)


def _retired(name: str, was: Holding, revision: str) -> Change:
    file, _ = _place(was)
    if was.script is None:
        what = f"its composite tool ({_where(was)})"
    elif was.record is None:
        what = f"its scripted tool ({was.script.where})"
    else:
        what = f"its scripted tool ({was.script.where}) and its record ({_where(was)})"
    summary = f"{name}: retired; {what} removed"
    return Change(ChangeKind.RETIRE, (name,), summary, work_tree_file(file, revision))


def _added(name: str, now: Holding) -> Change:
    file, line = _place(now)
    record, script = now.record, now.script
    if script is None and record is not None and record.entry:
        what = f"a record ({record.where}) with no scripted tool"
    elif script is None:
        what = f"a composite tool ({file}:{line}), checked against the script the emitter writes"
    elif record is None:
        what = f"a scripted tool ({script.where}) with no record: nothing checks it"
    else:
        what = f"a scripted tool ({script.where}), certified against its record ({record.where})"
    return Change(ChangeKind.ADD, (name,), f"{name}: added: {what}", file, line)


def _migrated(name: str, was: Holding, now: Holding) -> list[Change]:
    if was.script is None and now.script is not None:
        file, line = _place(now)
        against = (
            f"against its record ({now.record.where})"
            if now.record is not None
            else f"against the composite tool the revision holds ({_where(was)}); no "
            "composite baseline records it, so once merged nothing checks the script"
        )
        summary = f"{name}: migrated: its scripted tool ({now.script.where}) replaces the "
        summary += f"composite tool, certified {against}"
        return [Change(ChangeKind.MIGRATE, (name,), summary, file, line)]
    if was.script is not None and now.script is None and now.record is not None:
        if now.record.entry:
            return []  # a record with no script: not converted, and the report says why
        file, line = _place(now)
        summary = f"{name}: its scripted tool is removed: the composite tool ({file}:{line}) "
        summary += "serves it again"
        return [Change(ChangeKind.MIGRATE, (name,), summary, file, line)]
    return []


def _where(holding: Holding) -> str:
    return holding.record.where if holding.record is not None else "nowhere"


def _recorded(
    name: str,
    was: Holding,
    now: Holding,
    revision: str,
    report: ToolReport | None,
    earlier: ToolReport | None,
) -> list[Change]:
    if was.record is None or now.record is None or now.script is None:
        return []
    if not _edited(was.record, now.record):
        return []
    verdict = str(report.verdict) if report is not None else "not checked in this shard"
    before = str(earlier.verdict) if earlier is not None else "not checked"
    summary = (
        f"{name}: its record is edited ({now.record.where}); the script, certified against it "
        f"as edited: {verdict}; against {revision}'s record ({was.record.where}): {before}"
    )
    details = (*_diff(was.record, now.record), *_verdict_lines(f"{revision}'s record", earlier))
    data = {"before": _verdict_json(earlier)}
    file, line = now.record.tool.origin.file, tool_location(now.record.tool).line
    return [Change(ChangeKind.RECORD, (name,), summary, file, line, details, data=data)]


def _beside(name: str, was: Holding, now: Holding, report: ToolReport | None) -> list[Change]:
    composite, record = now.beside, now.record
    if composite is None or record is None:
        return []
    if was.beside is not None and not _edited(was.beside, composite):
        return []
    verdict = str(report.verdict) if report is not None else "not checked"
    summary = (
        f"{name}: a composite tool beside its script ({composite.where}) is not what the script "
        f"is checked against: it stays certified against its record ({record.where}); the "
        f"script against the composite tool beside it: {verdict}"
    )
    details = (*_diff(record, composite), *_verdict_lines("the composite tool beside", report))
    file, line = composite.tool.origin.file, tool_location(composite.tool).line
    data = {"beside": _verdict_json(report)}
    return [Change(ChangeKind.RECORD, (name,), summary, file, line, details, data=data)]


def _declared(name: str, was: Holding, now: Holding, report: ToolReport | None) -> list[Change]:
    if was.script is None or now.script is None:
        return []
    before, after = was.declared(), now.declared()
    observed = set(report.observed) if report is not None else set()
    found = []
    widened = sorted(after - before)
    if widened:
        shown = [
            f"{c} ({'shows' if c in observed else 'not observed'} in this run)" for c in widened
        ]
        line = declared_in(now.script.script or "").lines.get(widened[0])
        file, at = _script_place(now.script, line)
        summary = f"{name}: its script's header declares {', '.join(shown)} too"
        data = {"classes": widened, "observed": [c for c in widened if c in observed]}
        found.append(Change(ChangeKind.WIDEN, (name,), summary, file, at, data=data))
    narrowed = sorted(before - after)
    if narrowed:
        file, at = _script_place(now.script)
        summary = f"{name}: its script's header no longer declares {', '.join(narrowed)}"
        data = {"classes": narrowed}
        found.append(Change(ChangeKind.NARROW, (name,), summary, file, at, data=data))
    return found


def _verdict_lines(against: str, report: ToolReport | None) -> tuple[str, ...]:
    """A verdict for a reviewer: what differs, or the witnesses of the classes that showed."""
    if report is None:
        return ()
    lines = [f"against {against}: {report.verdict}"]
    example = report.counterexample
    if example is not None:
        lines.append(f"what differs (on {example.engine}):")
        for difference in example.differences:
            lines += ["  " + line for line in difference.render().splitlines()]
    else:
        for witness in report.witnesses.values():
            lines += ["  " + one_line(line) for line in witness_lines(witness)]
        if report.reason:
            lines += ["  " + one_line(line) for line in report.reason.splitlines()]
    return tuple(lines)


def _verdict_json(report: ToolReport | None) -> dict[str, Any] | None:
    if report is None:
        return None
    example = report.counterexample
    return {
        "verdict": str(report.verdict),
        "reason": report.reason,
        "observed": list(report.observed),
        "counterexample": counterexample_json(example) if example is not None else None,
    }


def _policies(request: Request, revision: str) -> _Policies:
    paths = list(request.config.paths)
    found = find_policy(paths)
    first = Path(paths[0])
    path = found or (first if first.is_dir() else first.parent) / POLICY_FILE
    after_text = path.read_text(errors="replace") if found is not None else None
    after = load_policy(found) if found is not None else None
    try:
        content = revision_bytes(revision, path)
    except InputError as error:
        return _Policies(path, None, after, (None, after_text), str(error))
    if content is None:
        return _Policies(path, None, after, (None, after_text))
    label = Path(f"{revision}:{path}")
    before_text = content.decode("utf-8", "replace")
    try:
        before = load_policy(label, content)
    except InputError as error:
        return _Policies(path, None, after, (before_text, after_text), str(error))
    return _Policies(path, before, after, (before_text, after_text))


def _policy_changes(policies: _Policies, revision: str) -> list[Change]:
    before_text, after_text = policies.texts
    if before_text == after_text:
        return []
    file = str(policies.path)
    if before_text is None:
        summary = f"policy {file}: added"
    elif after_text is None:
        summary = f"policy {file}: removed"
    else:
        keys = _changed_keys(before_text, after_text)
        summary = f"policy {file}: " + ("; ".join(keys) if keys else "comments or layout changed")
    if policies.unreadable is not None:
        summary += f" ({revision}'s could not be read: {policies.unreadable})"
    diff = difflib.unified_diff(
        (before_text or "").splitlines(),
        (after_text or "").splitlines(),
        f"{file} ({revision})",
        file,
        lineterm="",
    )
    return [Change(ChangeKind.POLICY, (), summary, file, None, tuple(diff))]


def _changed_keys(before: str, after: str) -> list[str]:
    """``key: old -> new`` for each top-level key whose value differs."""
    try:
        was, now = yaml.safe_load(before) or {}, yaml.safe_load(after) or {}
    except yaml.YAMLError:
        return []
    if not isinstance(was, dict) or not isinstance(now, dict):
        return []
    return [
        f"{key}: {_value(was.get(key))} -> {_value(now.get(key))}"
        for key in sorted({*was, *now}, key=str)
        if was.get(key) != now.get(key)
    ]


def _value(value: Any) -> str:
    if value is None:
        return "(absent)"
    return one_line(yaml.safe_dump(value, default_flow_style=True, width=10**6).strip())


def _leveled(change: Change, policies: _Policies) -> Change:
    level, denying = policies.level(change.kind)
    if level is Level.ALLOW:
        return change
    details = change.details
    if denying is not None:
        details = (*details, f"{denying}: changes: {change.kind}: deny")
    return replace(change, details=details, level=level)
