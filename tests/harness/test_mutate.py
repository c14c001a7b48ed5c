"""The gate measures itself: the mutation operators, the driver, and the ``mutate`` command."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.conftest import CORPUS
from transpiler.cli import main
from transpiler.emit.library import LIBRARY_NAME, library_text
from transpiler.gate.mutation import Tally, mutate_request
from transpiler.harness.coverage.mutants import OPERATORS, mutants
from transpiler.harness.judging.verdict import Verdict
from transpiler.harness.running.check import CheckOptions
from transpiler.pairs import Request, Where

EXAMPLE = CORPUS / "example" / "vmcp-config.yaml"
SMALL = ["--examples", "5", "--paths", "8"]

SCRIPT = '''\
# A header comment that no mutant touches: "svc.fetch" == 1
def run(params):
    """A docstring no mutant touches."""
    who = params.get("who", "nobody")
    first = call_tool("svc.fetch", {"who": who, "count": 2, "flag": True})
    if first["state"] == "ready":
        try_call_tool("svc.notify", {"text": "ready"})
    a, b = parallel([lambda: call_or("svc.a", {}), lambda: call_or("svc.b", {})])
    for item in first["items"][0:2]:
        log("héllo", "item")
    total = retry(lambda: call_tool("svc.count", {"n": len(range(3))}), max_attempts=3)
    return {"who": who, "total": total}


def call_or(tool, arguments):
    result = try_call_tool(tool, arguments)
    return result.output if result.ok else None


def go_text(value):
    return call_tool("svc.helper", {"value": "a helper of vmcp_compat.star is not mutated"})
'''


def _made(operator: str) -> list[tuple[int, str]]:
    """Each mutant of SCRIPT the operator makes: its line and the mutated text there."""
    return [(m.line, m.mutated) for m in mutants(SCRIPT) if m.operator == operator]


def test_argument_values_and_keys() -> None:
    assert _made("argument-value") == [
        (5, '    first = call_tool("svc.fetch", {"who": who, "count": 3, "flag": True})'),
        (5, '    first = call_tool("svc.fetch", {"who": who, "count": 2, "flag": False})'),
        (7, '        try_call_tool("svc.notify", {"text": ""})'),
        (7, '        try_call_tool("svc.notify", {"text": "readyx"})'),
    ]
    keys = _made("argument-key")
    assert keys[:6] == [
        (5, '    first = call_tool("svc.fetch", {"who_x": who, "count": 2, "flag": True})'),
        (5, '    first = call_tool("svc.fetch", {"count": 2, "flag": True})'),
        (5, '    first = call_tool("svc.fetch", {"who": who, "count_x": 2, "flag": True})'),
        (5, '    first = call_tool("svc.fetch", {"who": who, "flag": True})'),
        (5, '    first = call_tool("svc.fetch", {"who": who, "count": 2, "flag_x": True})'),
        (5, '    first = call_tool("svc.fetch", {"who": who, "count": 2})'),
    ]
    assert (7, '        try_call_tool("svc.notify", {})') in keys


def test_literal_texts_leave_calls_docstrings_and_helpers_to_others() -> None:
    assert _made("literal-text") == [
        (4, '    who = params.get("whox", "nobody")'),
        (6, '    if first["statex"] == "ready":'),
        (6, '    if first["state"] == "readyx":'),
        (9, '    for item in first["itemsx"][0:2]:'),
        (10, '        log("héllox", "item")'),
        (10, '        log("héllo", "itemx")'),
        (12, '    return {"whox": who, "total": total}'),
        (12, '    return {"who": who, "totalx": total}'),
    ]
    assert all(m.line < 20 for m in mutants(SCRIPT)), "go_text is vmcp_compat.star's"


def test_conditions_and_comparisons() -> None:
    assert _made("condition-negated") == [
        (6, '    if not (first["state"] == "ready"):'),
        (17, "    return result.output if not (result.ok) else None"),
    ]
    assert _made("comparison-flipped") == [(6, '    if first["state"] != "ready":')]


def test_calls_dropped_duplicated_retargeted_and_swapped() -> None:
    dropped = _made("call-dropped")
    assert (5, "    first = None") in dropped
    assert (7, "        None") in dropped
    assert (11, "    total = retry(lambda: None, max_attempts=3)") in dropped
    assert (16, "    result = None") in dropped, "call_or hands its arguments to try_call_tool"
    notify = '        try_call_tool("svc.notify", {"text": "ready"})'
    assert (7, f"{notify}\n{notify}") in _made("call-duplicated")
    assert _made("call-retargeted")[:2] == [
        (5, '    first = call_tool("svc.notify", {"who": who, "count": 2, "flag": True})'),
        (7, '        try_call_tool("svc.a", {"text": "ready"})'),
    ]
    assert (7, '        call_tool("svc.notify", {"text": "ready"})') in _made("call-kind-swapped")


def test_retry_defaults_parallel_outputs_and_loops() -> None:
    call = 'retry(lambda: call_tool("svc.count", {"n": len(range(3))})'
    assert _made("retry-count") == [
        (11, f"    total = {call}, max_attempts=4)"),
        (11, f"    total = {call}, max_attempts=2)"),
    ]
    assert _made("retry-delay") == [(11, f'    total = {call}, max_attempts=3, delay="1ms")')]
    assert _made("default-value") == [(4, '    who = params.get("who", "nobodyx")')]
    assert _made("parallel-order") == [
        (8, '    b, a = parallel([lambda: call_or("svc.a", {}), lambda: call_or("svc.b", {})])'),
        (8, '    a, b = parallel([lambda: call_or("svc.b", {}), lambda: call_or("svc.a", {})])'),
    ]
    branches = '[lambda: call_or("svc.a", {}), lambda: call_or("svc.b", {})]'
    assert _made("parallel-sequential") == [(8, f"    a, b = [f() for f in {branches}]")]
    assert _made("output-swap") == [(12, '    return {"who": total, "total": who}')]
    loops = [text.strip() for _, text in _made("loop-bound")]
    assert loops[:5] == [
        'for item in first["items"][0:2][1:]:',
        'for item in first["items"][1:2]:',
        'for item in first["items"][-1:2]:',
        'for item in first["items"][0:3]:',
        'for item in first["items"][0:1]:',
    ]
    assert any("len(range(4))" in text for text in loops)


def test_each_mutant_differs_from_the_script_only_at_its_site() -> None:
    made = mutants(SCRIPT)
    assert {m.operator for m in made} == set(OPERATORS)
    assert len({m.text for m in made}) == len(made)
    original = SCRIPT.split("\n")
    for mutant in made:
        assert mutant.text != SCRIPT
        lines = mutant.text.split("\n")
        site, changed = mutant.line - 1, mutant.mutated.split("\n")
        width = len(mutant.original.split("\n"))
        assert lines[:site] == original[:site], mutant
        assert original[site : site + width] == mutant.original.split("\n")
        assert lines[site : site + len(changed)] == changed
        assert lines[site + len(changed) :] == original[site + width :], mutant


def test_the_same_script_gives_the_same_mutants() -> None:
    assert mutants(SCRIPT) == mutants(SCRIPT)


def test_mutants_that_do_not_parse_or_change_nothing_are_left_out() -> None:
    script = (
        "def run(params):\n"
        '    for i in range(*params["bounds"]):\n'
        '        log(i)\n'
        '    return {"a": i, "b": i}\n'
    )
    made = mutants(script)
    # range((*params["bounds"]) + 1) does not parse; swapping two equal values changes nothing.
    assert [m.mutated for m in made if m.operator == "loop-bound"] == [
        '    for i in range(*params["bounds"])[1:]:'
    ]
    assert not [m for m in made if m.operator == "output-swap"]


def test_a_loaded_helper_that_calls_a_tool_is_a_tool_call() -> None:
    script = (
        f'load("{LIBRARY_NAME}", "vmcp_call")\n\n'
        "def run(params):\n"
        '    return vmcp_call("pull", "svc.export", {"format": "json"})\n'
    )
    made = mutants(script, {LIBRARY_NAME: library_text()})
    call = [(m.operator, m.mutated.strip().removeprefix("return vmcp_call")) for m in made]
    assert ("argument-key", '("pull", "svc.export", {"format_x": "json"})') in call
    assert ("call-retargeted", '("pull", "svc.export_x", {"format": "json"})') in call
    assert ("literal-text", '("pullx", "svc.export", {"format": "json"})') in call


def test_the_driver_kills_a_dropped_call_on_sync_inventory() -> None:
    request = Request(Where((str(EXAMPLE),)))
    options = CheckOptions(examples=5, paths=8)
    results, pairing = mutate_request(request, options, limit=200, only="sync_inventory")
    assert not pairing.unreadable
    [result] = results
    assert result.tool == "sync_inventory" and not result.reason
    assert result.by_operator()["call-dropped"] == Tally(1, 1, 1)
    dropped = next(v for v in result.verdicts if v.mutant.operator == "call-dropped")
    assert dropped.verdict is Verdict.DIFFERS and dropped.killed
    assert "lambda: None" in dropped.mutant.mutated
    assert result.tally.checked == sum(result.generated.values()) > 0


def test_the_limit_samples_with_the_seed() -> None:
    request = Request(Where((str(EXAMPLE),)))
    options = CheckOptions(examples=1, paths=2)
    first, _ = mutate_request(request, options, limit=3, only="sync_inventory")
    again, _ = mutate_request(request, options, limit=3, only="sync_inventory")
    picked = [v.mutant for v in first[0].verdicts]
    assert len(picked) == 3 and picked == [v.mutant for v in again[0].verdicts]
    made = mutants(_sync_inventory_script())
    assert [made.index(m) for m in picked] == sorted(made.index(m) for m in picked)


def _sync_inventory_script() -> str:
    from transpiler.config.loader import load_bytes
    from transpiler.pipeline import emit

    tools = load_bytes(EXAMPLE.read_bytes(), str(EXAMPLE)).tools
    tool = next(t for t in tools if t.config.name == "sync_inventory")
    emitted = emit(tool, CheckOptions())
    assert not isinstance(emitted, str)
    return emitted.script


def test_every_mutant_killed_exits_0_and_json_is_deterministic(
    capsys: pytest.CaptureFixture[str],
) -> None:
    command = ["mutate", str(EXAMPLE), "--tool", "sync_inventory", *SMALL, "--format", "json"]
    assert main(command) == 0
    first = capsys.readouterr().out
    assert main(command) == 0
    assert capsys.readouterr().out == first
    document = json.loads(first)
    assert document["total"]["survived"] == 0 and document["total"]["kill_rate"] == 1.0
    [tool] = document["tools"]
    assert tool["script_source"] == "emitted (readable)"
    assert tool["operators"]["call-dropped"]["killed"] == 1


def test_a_survivor_exits_1_and_is_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "sync.star"
    golden = (CORPUS / "goldens" / "handwritten" / "sync_inventory.star").read_text()
    unused = '    unused = "a text nobody reads"'
    script.write_text(golden.replace("    return", f"{unused}\n    return"))
    line = script.read_text().split("\n").index(unused) + 1
    command = ["mutate", str(EXAMPLE), "--tool", "sync_inventory", "--script", str(script)]
    assert main([*command, *SMALL]) == 1
    out = capsys.readouterr().out
    assert re.search(rf"survived \(equivalent(-except)?\): literal-text, line {line}\n", out)
    assert '    +     unused = "a text nobody readsx"' in out
    assert main([*command, *SMALL, "--format", "markdown"]) == 1
    table = capsys.readouterr().out
    assert table.startswith("| tool | mutants | killed | survived | kill rate |")
    assert "| `sync_inventory` |" in table and "literal-text 1/2" in table


def test_a_script_that_fails_the_gate_is_not_measured(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "wrong.star"
    script.write_text('def run(params):\n    return {"assets": []}\n')
    command = ["mutate", str(EXAMPLE), "--tool", "sync_inventory", "--script", str(script)]
    assert main([*command, *SMALL]) == 1
    assert "not measured: the script itself does not pass the gate" in capsys.readouterr().out


def test_unreadable_input_and_bad_options_exit_2(tmp_path: Path) -> None:
    assert main(["mutate", str(tmp_path / "missing.yaml"), *SMALL]) == 2
    assert main(["mutate", str(EXAMPLE), "--script", str(tmp_path / "x.star")]) == 2
    assert main(["mutate", str(EXAMPLE), "--tool", "no_such_tool", *SMALL]) == 2
    assert main(["mutate", str(EXAMPLE), "--limit", "0"]) == 2
