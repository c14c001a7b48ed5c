"""``check --merge``: the reports of a run's shards (``check --shard i/n --report-json``) as one.

Each shard's JSON report carries its run's identity (:func:`run_header`): which
shard it is, how many pairs the whole run has, and a digest of everything that
decides the verdicts (every pair of the whole pairing, the options, the policy's
accepted classes, the transpiler's code). Reports are merged only when they
share that digest and hold every shard 1..n exactly once and every pair of the
run; anything else is refused (exit 2) naming the report, so a merge never
passes a run some shard did not check. The merged entries keep the run's pair
order (shard i held every n-th pair from the i-th).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from transpiler.changes import Change
from transpiler.deviations import Deviation, read_ids
from transpiler.diagnostics import InputError
from transpiler.fingerprint import code_digest
from transpiler.harness.reporting.since import read_report
from transpiler.harness.running.check import CheckOptions, ToolReport
from transpiler.pairs import Pairing, Request

#: The key of a report's run header.
RUN = "run"


def run_header(
    request: Request,
    pairing: Pairing,
    options: CheckOptions,
    shard: tuple[int, int],
) -> dict[str, Any]:
    """What a shard's report says of its run (see the module's docstring)."""
    config = request.config.read()
    composites = request.composites()
    baseline = composites.read() if composites is not None else None
    pairs = [
        {
            "file": item.file,
            "tool": item.tool,
            "refusal": item.refusal,
            "composite": None
            if item.refusal is not None
            else repr(item.composite(config, baseline).effective),
            "script": None if item.script is None else item.script.text,
            "modules": None if item.script is None else dict(sorted(item.script.modules.items())),
        }
        for item in pairing.pairs
    ]
    accept = None if options.accept is None else sorted(options.accept)
    identity = {
        "pairs": pairs,
        "unpaired": list(pairing.unpaired),
        "unreadable": [problem.render() for problem in pairing.unreadable],
        "options": repr(replace(options, accept=None)),
        "accept": accept,
        "transpiler": code_digest(),
    }
    digest = hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()
    number, total = shard
    return {
        "digest": digest,
        "shard": [number, total],
        "pairs": len(pairing.pairs),
        "accept": accept,
        "unreadable": len(pairing.unreadable),
    }


@dataclass(frozen=True)
class Merged:
    """One run's reports put back together."""

    reports: list[ToolReport]
    accept: frozenset[Deviation] | None
    unpaired: tuple[str, ...]
    unreadable: int
    shards: int
    changes: tuple[Change, ...] = ()


def merge(paths: Sequence[Path]) -> Merged:
    """The shard reports at ``paths`` as one run; InputError naming the report that does not
    belong, or the shard that is missing."""
    shards: dict[int, tuple[Path, dict[str, Any], list[dict[str, Any]]]] = {}
    first: tuple[Path, dict[str, Any]] | None = None
    for path in paths:
        data, entries = read_report(path, "a shard's report")
        header = _header(path, data)
        number, total = header["shard"]
        if first is None:
            first = (path, header)
        elif header["digest"] != first[1]["digest"] or total != first[1]["shard"][1]:
            raise InputError(
                f"{path}: a report of another run than {first[0]} (other inputs, options, "
                "policy or transpiler, or another number of shards): merge the shards of one run"
            )
        if number in shards:
            raise InputError(f"{path}: shard {number}/{total} again (also {shards[number][0]})")
        shards[number] = (path, data, list(entries.values()))
    if first is None:
        raise InputError("--merge needs the JSON reports of a run's shards")
    header = first[1]
    total = header["shard"][1]
    missing = [f"{n}/{total}" for n in range(1, total + 1) if n not in shards]
    if missing:
        raise InputError(f"shard(s) {', '.join(missing)} missing: every shard of the run is needed")
    count = sum(len(entries) for _, _, entries in shards.values())
    if count != header["pairs"]:
        raise InputError(
            f"the shards hold {count} pair(s), their run has {header['pairs']}: a report was cut "
            "or edited"
        )
    ordered: list[dict[str, Any]] = []
    for index in range(header["pairs"]):
        number, position = index % total + 1, index // total
        ordered.append(shards[number][2][position])
    accept = None if header["accept"] is None else read_ids(header["accept"])[0]
    unpaired = tuple(shards[1][1].get("unpaired", ()))
    return Merged(
        [ToolReport.unchanged(entry) for entry in ordered],
        accept,
        unpaired,
        header["unreadable"],
        total,
        _changes(shards[1][0], shards[1][1]),
    )


def _changes(path: Path, data: dict[str, Any]) -> tuple[Change, ...]:
    """The reviewed changes the first shard's report holds (the first shard reports them)."""
    entries = data.get("changes", [])
    try:
        return tuple(Change.from_json(entry) for entry in entries)
    except (KeyError, TypeError, ValueError) as error:
        raise InputError(f"{path}: its changes are not a report's: {error}") from None


def _header(path: Path, data: dict[str, Any]) -> dict[str, Any]:
    """The run header of the report at ``path``, held to the shape :func:`run_header` gives."""
    header = data.get(RUN)
    fits = (
        isinstance(header, dict)
        and isinstance(header.get("digest"), str)
        and isinstance(header.get("shard"), list)
        and len(header["shard"]) == 2
        and all(_whole(value) for value in (*header["shard"], header.get("pairs")))
        and 1 <= header["shard"][0] <= header["shard"][1]
        and _whole(header.get("unreadable"))
        and (header.get("accept") is None or isinstance(header.get("accept"), list))
    )
    if not fits:
        raise InputError(
            f"{path}: no run header: not a report of check --report-json from this release"
        )
    assert isinstance(header, dict)
    return header


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
