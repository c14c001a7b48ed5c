"""What ``serve`` serves: each scripted tool of the configuration, read once, in one place.

A scripted tool is served with its entry as written (name, description,
parameters as ``inputSchema``, output as ``outputSchema``, annotations) and
its script with the modules it loads. A composite tool not yet migrated is
served as the readable script the emitter writes for it, listed with the
entry ``migrate`` would write (:func:`transpiler.listing.migrated`). Each
served tool keeps the composite tool it replaced where there is one (beside
it, in a baseline, or in the composite baseline ``migrate --write`` left
beside its file), for ``--shadow``. The pairing is ``check``'s
(:mod:`transpiler.pairs`); a tool vMCP would not take is not served, and why
is returned beside the catalog.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from transpiler.config.target import DEFAULT_TARGET, Target
from transpiler.config.units import LoadedTool
from transpiler.harness.running.check import CheckOptions
from transpiler.listing import ListedTool, migrated
from transpiler.pairs import Loaded, Pairing, Request, Script, Where, pair_inputs, scripts_of
from transpiler.pipeline import emit


@dataclass(frozen=True)
class ServedTool:
    """One tool as ``serve`` lists and runs it: its listing, its script (and the modules it
    loads), its ``timeout`` (0: THV-0051's default), where it comes from, and the composite
    tool it replaced (None: a scripted tool with no composite tool to shadow)."""

    listed: ListedTool
    script: str
    where: str
    modules: dict[str, str] = field(default_factory=dict)
    timeout_ns: int = 0
    composite: LoadedTool | None = None

    @property
    def name(self) -> str:
        """The tool's name, as clients call it."""
        return self.listed.name


@dataclass(frozen=True)
class Catalog:
    """The served tools by name, and each tool of the configuration that is not served, why."""

    tools: dict[str, ServedTool]
    refused: tuple[str, ...] = ()


def read_catalog(
    paths: Sequence[str], library_path: Sequence[str] = (), target: Target = DEFAULT_TARGET
) -> Catalog:
    """The tools ``serve`` serves from the configuration files or directories ``paths``, read
    for ``target``."""
    where = Where(tuple(paths), target=target)
    request = Request(where, library_path=tuple(library_path), sidecars=True)
    config = request.config.read()
    composites = request.composites()
    baseline = composites.read() if composites is not None else None
    scripts = scripts_of(config, library_path)
    pairing = pair_inputs(config, baseline, library_path, scripts)
    tools: dict[str, ServedTool] = {}
    refused = [str(problem) for problem in pairing.unreadable]
    for item in pairing.pairs:
        composite = item.composite(config, baseline)
        if item.refusal is not None:
            refused.append(f"{item.tool}: not served: {item.refusal}")
        elif item.script is not None:
            tools[item.tool] = _scripted(item.script, composite, target)
        else:
            served = _emitted(composite, target)
            if isinstance(served, str):
                refused.append(f"{item.tool}: not served: the emitter cannot express it: {served}")
            else:
                tools[item.tool] = served
    for script in _unpaired(pairing, scripts):
        tools.setdefault(
            script.entry.listed.name if script.entry else script.where, script_tool(script)
        )
    return Catalog(dict(sorted(tools.items())), tuple(refused))


def _unpaired(pairing: Pairing, scripts: Mapping[str, Loaded]) -> list[Script]:
    """The scripted tools no composite tool pairs with (written by hand, or whose composite
    tool is gone without a baseline)."""
    left = set(pairing.unpaired)
    return [
        script
        for script in scripts.values()
        if isinstance(script, Script)
        and script.entry is not None
        and script.entry.listed.name in left
    ]


def script_tool(script: Script, composite: LoadedTool | None = None) -> ServedTool:
    """A scripted tool as served: its entry as written."""
    assert script.entry is not None
    return ServedTool(
        script.entry.listed,
        script.text,
        script.where,
        dict(script.modules),
        script.entry.timeout_ns,
        composite,
    )


def _scripted(script: Script, composite: LoadedTool, target: Target) -> ServedTool:
    if script.entry is None:
        return ServedTool(
            migrated(composite.config, None, target),
            script.text,
            script.where,
            dict(script.modules),
            0,
            composite,
        )
    return script_tool(script, composite)


def _emitted(composite: LoadedTool, target: Target) -> ServedTool | str:
    """A composite tool not yet migrated, as the readable script the emitter writes (and
    listed as ``migrate`` writes its entry for ``target``)."""
    emitted = emit(composite, CheckOptions(style="readable", target=target))
    if isinstance(emitted, str):
        return emitted
    where = f"{composite.origin.file}:{composite.config.where.at.line} (emitted, readable)"
    return ServedTool(
        migrated(composite.config, None, target),
        emitted.script,
        where,
        dict(emitted.modules),
        composite.effective.timeout,
        composite,
    )
