"""Reading run cases (shared conformance files and our corpus) and checking traces against them.

A case file holds ``config`` (one composite tool, read with yaml.v3 typing
through the project's config loader), ``scenario`` and ``expect``. The
``expect`` fields are those of shared/conformance/README.md, plus a few our
corpus uses for exact texts:

- ``error``: the workflow error text exactly; ``client_text``: the client's
  text content exactly; ``client_result``: the whole client result;
- ``steps.<id>.error`` / ``error_contains`` and ``steps.<id>: absent``;
- ``call_sequence``: the calls in issue order, each a subset of the trace's
  call record (``tool``, ``args``, ``attempt``, ``start``, ``end``, ``group``,
  ``result``);
- ``elicitations`` entries may give ``answer`` and ``schema``;
- ``logs_contain``, ``incomplete``.

Numbers in expectations keep their kind: ``42`` must be a Go int, ``42.0`` a
float (README "Numbers").
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from transpiler.config.godecode import GoDecoder
from transpiler.config.loader import load_bytes
from transpiler.config.model import CompositeToolConfig
from transpiler.config.yamlv3 import Kind, Node, parse_documents
from transpiler.golang.values import GoTime, GoValue, NilList, NilMap
from transpiler.sim.scenario import Scenario, scenario_from_document
from transpiler.sim.trace import NANOS_PER_SECOND, StepRecord, Trace, plain_json


@dataclass(frozen=True)
class RunCase:
    """One ``kind: run`` case."""

    tool: CompositeToolConfig
    scenario: Scenario
    expect: dict[str, Any]


def yaml_nodes(path: Path) -> dict[str, Node]:
    """The top-level keys of a YAML file as yaml.v3 nodes."""
    document = next(parse_documents(path.read_bytes()))
    assert document.root is not None and document.root.kind is Kind.MAPPING
    content = document.root.content
    return {content[i].value: content[i + 1] for i in range(0, len(content), 2)}


def go_value(node: Node) -> GoValue:
    """A free YAML value decoded with yaml.v3's typing."""
    decoder = GoDecoder()
    value = decoder.any_value(node)
    assert not decoder.issues, decoder.issues
    return value


def load_tool(path: Path) -> CompositeToolConfig:
    """The case's ``config`` block, loaded by the project loader as a vMCP config file would be.

    The block's source lines become the single ``compositeTools`` entry of a
    config document, so yaml.v3 typing, strict decoding and the loader's
    defaults (S10, S11) all apply.
    """
    lines = path.read_text(encoding="utf-8").splitlines()
    start = lines.index("config:") + 1
    end = next(
        (i for i in range(start, len(lines)) if lines[i][:1] not in ("", " ", "#")), len(lines)
    )
    block = [line[2:] for line in lines[start:end] if line.strip()]
    text = "compositeTools:\n" + "\n".join(
        ("- " if i == 0 else "  ") + line for i, line in enumerate(block)
    )
    load = load_bytes(text.encode("utf-8"), str(path))
    assert not load.errors and len(load.tools) == 1, [d.render() for d in load.errors]
    return load.tools[0].effective


def load_run_case(path: Path) -> RunCase:
    """Read a run case file."""
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    return RunCase(
        tool=load_tool(path),
        scenario=scenario_from_document(document.get("scenario"), str(path)),
        expect=document.get("expect") or {},
    )


def case_kind(path: Path) -> str | None:
    """The ``kind`` of a case file (None when it has none)."""
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    return document.get("kind") if isinstance(document, dict) else None


# --- comparisons ---------------------------------------------------------------


def same(expected: Any, actual: Any) -> bool:
    """Exact equality where ``42`` only matches a Go int and ``42.0`` only a float.

    A Go time matches its JSON text (what a backend receives).
    """
    if isinstance(actual, GoTime):
        return bool(expected == plain_json(actual))
    if expected is None:
        return actual is None or isinstance(actual, NilMap | NilList)
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    if isinstance(expected, int):
        return isinstance(actual, int) and int(actual) == expected
    if isinstance(expected, float):
        both_nan = isinstance(actual, float) and math.isnan(actual) and math.isnan(expected)
        return isinstance(actual, float) and (actual == expected or both_nan)
    if isinstance(expected, dict):
        return (
            isinstance(actual, dict)
            and set(actual) == set(expected)
            and all(same(v, actual[k]) for k, v in expected.items())
        )
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(actual) == len(expected)
            and all(same(e, a) for e, a in zip(expected, actual, strict=True))
        )
    return bool(expected == actual)


def includes(expected: Any, actual: Any) -> bool:
    """Deep subset: objects key by key recursively, arrays and scalars exactly."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            k in actual and includes(v, actual[k]) for k, v in expected.items()
        )
    return same(expected, actual)


def _match_calls(expected: list[dict[str, Any]], trace: Trace) -> list[str]:
    remaining = [(call.tool, call.args) for call in trace.calls]
    problems: list[str] = []
    ordered = sorted(expected, key=lambda entry: "args" not in entry)
    for entry in ordered:
        found = next(
            (
                i
                for i, (tool, args) in enumerate(remaining)
                if tool == entry["tool"] and ("args" not in entry or same(entry["args"], args))
            ),
            None,
        )
        if found is None:
            problems.append(f"expected call {entry} not made")
        else:
            remaining.pop(found)
    problems.extend(f"unexpected call {tool} {args}" for tool, args in remaining)
    return problems


def _check_steps(expected: dict[str, Any], trace: Trace) -> list[str]:
    problems: list[str] = []
    steps = trace.steps or {}
    for step_id, want in expected.items():
        if want == "absent":
            if step_id in steps:
                problems.append(f"step {step_id} recorded but expected absent")
            continue
        record = steps.get(step_id)
        if record is None:
            problems.append(f"step {step_id} not recorded")
            continue
        for key, value in want.items():
            verdict = _step_field_matches(key, value, record)
            if verdict is None:
                problems.append(f"step {step_id}: unknown expectation {key}")
            elif not verdict:
                problems.append(f"step {step_id}: {key} expected {value!r}, got {record}")
    return problems


def _step_field_matches(key: str, want: Any, record: StepRecord) -> bool | None:
    """Whether one step expectation holds (None for an unknown field)."""
    if key == "status":
        return bool(want == record.status)
    if key == "output":
        return same(want, record.output)
    if key == "output_includes":
        return includes(want, record.output)
    if key == "retries":
        return bool(want == record.retries)
    if key == "error":
        return bool(want == record.error)
    if key == "error_contains":
        return record.error is not None and want in record.error
    return None


def _client_text(trace: Trace) -> str:
    content = trace.client_result.get("content") or [{}]
    return str(content[0].get("text", ""))


def _check_sequence(expected: list[dict[str, Any]], trace: Trace) -> list[str]:
    actual = [call.to_json() for call in trace.calls]
    if len(actual) != len(expected):
        return [f"call sequence: expected {len(expected)} calls, got {actual}"]
    return [
        f"call {index}: expected {want}, got {got}"
        for index, (want, got) in enumerate(zip(expected, actual, strict=True))
        if not all(same(value, got.get(key)) for key, value in want.items())
    ]


def _check_elicitations(expected: list[dict[str, Any]], trace: Trace) -> list[str]:
    actual = [record.to_json() for record in trace.elicitations]
    if len(actual) != len(expected):
        return [f"elicitations: expected {expected}, got {actual}"]
    return [
        f"elicitation {index}: expected {want}, got {got}"
        for index, (want, got) in enumerate(zip(expected, actual, strict=True))
        if not all(same(value, got.get(key)) for key, value in want.items())
    ]


def check(trace: Trace, expect: dict[str, Any]) -> list[str]:
    """Every way ``trace`` breaks ``expect`` (empty when it meets it)."""
    problems: list[str] = []
    error = trace.error or ""
    text = _client_text(trace)

    def need(ok: bool, message: str) -> None:
        if not ok:
            problems.append(message)

    for key, want in expect.items():
        if key == "outcome":
            need(trace.outcome == want, f"outcome {trace.outcome} ({trace.error})")
        elif key == "output":
            need(same(want, trace.output), f"output {trace.output!r}")
        elif key == "output_includes":
            need(includes(want, trace.output), f"output {trace.output!r}")
        elif key == "error":
            need(trace.error == want, f"error {trace.error!r}")
        elif key == "error_contains":
            need(want in error, f"error {error!r} lacks {want!r}")
        elif key == "error_not_contains":
            need(all(part not in error for part in want), f"error {error!r} has one of {want}")
        elif key == "client_result":
            need(same(want, trace.client_result), f"client result {trace.client_result}")
        elif key == "client_text":
            need(text == want, f"client text {text!r}")
        elif key == "text_contains":
            need(all(part in text for part in want), f"client text {text!r} lacks one of {want}")
        elif key == "text_not_contains":
            need(all(part not in text for part in want), f"client text {text!r} has one of {want}")
        elif key == "calls":
            problems.extend(_match_calls(want, trace))
        elif key == "call_sequence":
            problems.extend(_check_sequence(want, trace))
        elif key == "steps":
            problems.extend(_check_steps(want, trace))
        elif key == "levels":
            actual = [set(level) for level in trace.levels or []]
            need(actual == [set(level) for level in want], f"levels {trace.levels}")
        elif key == "elicitations":
            problems.extend(_check_elicitations(want, trace))
        elif key == "virtual_duration":
            seconds = trace.virtual_duration_ns / NANOS_PER_SECOND
            need(math.isclose(seconds, float(want)), f"virtual duration {seconds}")
        elif key == "logs_contain":
            need(all(any(part in log for log in trace.logs) for part in want), f"logs {trace.logs}")
        elif key == "incomplete":
            need(trace.incomplete == want, f"incomplete {trace.incomplete}")
        elif key not in ("notes", "rules"):
            problems.append(f"unknown expectation {key}")
    return problems
