"""Each THV-0051 builtin's semantics, pinned on both engines."""

from __future__ import annotations

from tests.starlark_runtime.helpers import calls, run, scenario
from transpiler.profile import FAILURE_PREFIX, TIMEOUT_TEXT

OK = {"results": [{"structuredContent": {"v": 1}}]}


def test_call_tool_returns_structured_content_with_whole_floats_as_ints(engine: str) -> None:
    world = scenario(
        {"t.get": {"results": [{"structuredContent": {"n": 3, "x": 2.5, "s": "a"}}]}},
        params={"q": 7},
    )
    trace = run(
        "def run(params):\n"
        '    r = call_tool("t.get", {"q": params["q"]})\n'
        '    return {"types": [type(r["n"]), type(r["x"])], "r": r}\n',
        world,
        engine,
    )
    assert trace.outcome == "success"
    assert trace.output == {"types": ["int", "float"], "r": {"n": 3, "x": 2.5, "s": "a"}}
    assert calls(trace) == [("t.get", {"q": 7}, 1, 0.0, 0.0, "ok")]


def test_text_content_surfaces_as_text_key(engine: str) -> None:
    world = scenario(
        {"t.legacy": {"results": [{"content": [{"type": "text", "text": '{"a": 1}'}]}]}}
    )
    trace = run(
        "def run(params):\n"
        '    raw = call_tool("t.legacy", {})\n'
        '    return {"raw": raw, "decoded": json.decode(raw["text"])}\n',
        world,
        engine,
    )
    assert trace.output == {"raw": {"text": '{"a": 1}'}, "decoded": {"a": 1}}


def test_call_tool_halts_on_is_error_and_on_transport_error(engine: str) -> None:
    world = scenario(
        {
            "t.bad": {"results": [{"isError": True, "content": [{"type": "text", "text": "no"}]}]},
            "t.down": {"results": [{"transportError": "connection reset"}]},
        }
    )
    bad = run('def run(params):\n    call_tool("t.bad", {})\n    return {}\n', world, engine)
    assert bad.outcome == "error"
    assert bad.error == "call_tool: t.bad: tool execution failed: no"
    assert bad.client_result == {
        "content": [{"type": "text", "text": FAILURE_PREFIX + bad.error}],
        "isError": True,
    }
    down = run('def run(params):\n    return call_tool("t.down", {})\n', world, engine)
    assert down.error == "call_tool: t.down: connection reset"
    missing = run('def run(params):\n    return call_tool("t.none", {})\n', world, engine)
    assert missing.error == "call_tool: t.none: tool not found: t.none"
    assert missing.calls == []


def test_try_call_tool_returns_ok_error_output(engine: str) -> None:
    world = scenario(
        {
            "t.ok": OK,
            "t.bad": {"results": [{"isError": True, "structuredContent": {"message": "denied"}}]},
        }
    )
    trace = run(
        "def run(params):\n"
        '    good = try_call_tool("t.ok", {})\n'
        '    bad = try_call_tool("t.bad", {"a": [1, 2]})\n'
        '    return {"good": [good.ok, good.error, good.output],\n'
        '            "bad": [bad.ok, bad.error, bad.output]}\n',
        world,
        engine,
    )
    assert trace.output == {
        "good": [True, None, {"v": 1}],
        "bad": [False, "tool execution failed: denied", None],
    }


def test_retry_backs_off_exponentially_on_the_virtual_clock(engine: str) -> None:
    world = scenario(
        {
            "t.flaky": {
                "results": [
                    {"transportError": "busy", "times": 3},
                    {"structuredContent": {"done": True}},
                ]
            }
        }
    )
    trace = run(
        "def run(params):\n"
        '    return retry(lambda: call_tool("t.flaky", {}), max_attempts=5, delay="2s")\n',
        world,
        engine,
    )
    assert trace.output == {"done": True}
    assert [(c[2], c[3]) for c in calls(trace)] == [(1, 0.0), (2, 2.0), (3, 5.0), (4, 9.5)]


def test_retry_exhausted_halts_with_the_last_error(engine: str) -> None:
    world = scenario(
        {
            "t.flaky": {
                "results": [
                    {"transportError": "first", "times": 1},
                    {"transportError": "second"},
                ]
            }
        }
    )
    trace = run(
        "def run(params):\n"
        '    return retry(lambda: call_tool("t.flaky", {}), max_attempts=2, delay="1s")\n',
        world,
        engine,
    )
    assert trace.outcome == "error"
    assert trace.error == "call_tool: t.flaky: second"
    assert len(trace.calls) == 2
    assert trace.virtual_duration_ns == 1_000_000_000


def test_retry_treats_a_failed_try_call_tool_result_as_a_failed_attempt(engine: str) -> None:
    world = scenario(
        {"t.flaky": {"results": [{"isError": True, "times": 1}, {"structuredContent": {"k": 1}}]}}
    )
    trace = run(
        "def run(params):\n"
        '    r = retry(lambda: try_call_tool("t.flaky", {}), max_attempts=3, delay="1s")\n'
        '    return {"ok": r.ok, "out": r.output}\n',
        world,
        engine,
    )
    assert trace.output == {"ok": True, "out": {"k": 1}}
    assert [c[2] for c in calls(trace)] == [1, 2]


def test_retry_catches_fail_inside_its_callable(engine: str) -> None:
    world = scenario({"t.count": {"results": [{"structuredContent": {"n": 1}}]}})
    trace = run(
        "def attempt():\n"
        '    call_tool("t.count", {})\n'
        '    fail("not yet")\n'
        "def run(params):\n"
        '    return retry(attempt, max_attempts=3, delay="1s")\n',
        world,
        engine,
    )
    assert trace.outcome == "error"
    assert trace.error == "not yet"
    assert [c[2] for c in calls(trace)] == [1, 2, 3]


def test_retry_rejects_bad_arguments(engine: str) -> None:
    world = scenario({"t.ok": OK})
    trace = run(
        'def run(params):\n    return retry(lambda: call_tool("t.ok", {}), max_attempts=0)\n',
        world,
        engine,
    )
    assert trace.outcome == "error"
    assert "max_attempts must be a positive int" in str(trace.error)


def test_parallel_returns_results_in_input_order_and_runs_concurrently(engine: str) -> None:
    world = scenario(
        {
            "t.slow": {"results": [{"structuredContent": {"who": "slow"}, "delay": "3s"}]},
            "t.fast": {"results": [{"structuredContent": {"who": "fast"}, "delay": "1s"}]},
        }
    )
    trace = run(
        "def run(params):\n"
        '    return {"r": parallel([lambda: call_tool("t.slow", {}),\n'
        '                           lambda: call_tool("t.fast", {})])}\n',
        world,
        engine,
    )
    assert trace.output == {"r": [{"who": "slow"}, {"who": "fast"}]}
    assert trace.virtual_duration_ns == 3_000_000_000


def test_parallel_caps_concurrency_at_ten(engine: str) -> None:
    world = scenario({"t.wait": {"results": [{"structuredContent": {}, "delay": "1s"}]}})
    trace = run(
        "def run(params):\n"
        '    fns = [lambda i=i: call_tool("t.wait", {"i": i}) for i in range(12)]\n'
        '    return {"n": len(parallel(fns))}\n',
        world,
        engine,
    )
    assert trace.output == {"n": 12}
    starts = sorted(c[3] for c in calls(trace))
    assert starts == [0.0] * 10 + [1.0] * 2
    assert trace.virtual_duration_ns == 2_000_000_000


def test_a_halt_inside_parallel_cancels_the_other_branches(engine: str) -> None:
    world = scenario(
        {
            "t.slow": {"results": [{"structuredContent": {}, "delay": "10s"}]},
            "t.bad": {"results": [{"isError": True, "delay": "2s"}]},
            "t.after": OK,
        }
    )
    trace = run(
        "def run(params):\n"
        '    parallel([lambda: call_tool("t.slow", {}), lambda: call_tool("t.bad", {})])\n'
        '    call_tool("t.after", {})\n'
        "    return {}\n",
        world,
        engine,
    )
    assert trace.outcome == "error"
    assert trace.error == "call_tool: t.bad: tool execution failed: tool execution error"
    assert calls(trace) == [
        ("t.slow", {}, 1, 0.0, 2.0, "cancelled"),
        ("t.bad", {}, 1, 0.0, 2.0, "isError"),
    ]


def test_a_halt_inside_parallel_inside_retry_is_retried(engine: str) -> None:
    world = scenario(
        {"t.flaky": {"results": [{"transportError": "x", "times": 1}, {"structuredContent": {}}]}}
    )
    trace = run(
        "def run(params):\n"
        '    fan = lambda: parallel([lambda: call_tool("t.flaky", {"b": 0}),\n'
        '                            lambda: call_tool("t.flaky", {"b": 1})])\n'
        '    return {"r": retry(fan, max_attempts=2, delay="1s")}\n',
        world,
        engine,
    )
    assert trace.outcome == "success"
    assert [(c[1], c[3], c[5]) for c in calls(trace)] == [
        ({"b": 0}, 0.0, "transport"),
        ({"b": 0}, 1.0, "ok"),
        ({"b": 1}, 1.0, "ok"),
    ]


def test_elicit_accept_decline_cancel_and_timeout(engine: str) -> None:
    world = scenario(
        {},
        elicitations=[
            {"action": "accept", "content": {"ok": True, "n": 2}},
            {"action": "decline"},
            {"action": "cancel"},
            {"timeout": True},
        ],
    )
    trace = run(
        "def run(params):\n"
        "    out = []\n"
        "    for i in range(4):\n"
        '        d = elicit("Proceed %d?" % i, {"type": "object"})\n'
        "        out.append([d.action, d.content])\n"
        '    return {"answers": out}\n',
        world,
        engine,
    )
    assert trace.output == {
        "answers": [
            ["accept", {"ok": True, "n": 2}],
            ["decline", None],
            ["cancel", None],
            ["cancel", None],
        ]
    }
    assert [(e.message, e.answer) for e in trace.elicitations] == [
        ("Proceed 0?", "accept"),
        ("Proceed 1?", "decline"),
        ("Proceed 2?", "cancel"),
        ("Proceed 3?", "timeout"),
    ]
    assert trace.virtual_duration_ns == 600_000_000_000


def test_log_records_messages(engine: str) -> None:
    trace = run('def run(params):\n    log("a")\n    log("b")\n    return {}\n', scenario(), engine)
    assert trace.logs == ["a", "b"]


def test_returned_dict_becomes_structured_content_and_go_json_text(engine: str) -> None:
    trace = run(
        'def run(params):\n    return {"b": "<&>", "a": 1.5, "c": [True, None]}\n',
        scenario(),
        engine,
    )
    assert trace.client_result == {
        "content": [
            {"type": "text", "text": '{"a":1.5,"b":"\\u003c\\u0026\\u003e","c":[true,null]}'}
        ],
        "structuredContent": {"b": "<&>", "a": 1.5, "c": [True, None]},
        "isError": False,
    }


def test_a_returned_int_beyond_int64_becomes_its_decimal_text(engine: str) -> None:
    script = "def run(params):\n    return {'big': 1 << 70, 'max': (1 << 63) - 1}\n"
    trace = run(script, scenario(), engine)
    assert trace.output == {"big": "1180591620717411303424", "max": 2**63 - 1}


def test_output_over_the_size_limit_fails(engine: str) -> None:
    trace = run(
        'def run(params):\n    return {"big": "x" * (11 * 1024 * 1024)}\n', scenario(), engine
    )
    assert trace.outcome == "error"
    assert str(trace.error).startswith(FAILURE_PREFIX + "output too large: ")


def test_a_runaway_loop_is_stopped_by_the_step_limit(engine: str) -> None:
    trace = run(
        "def run(params):\n"
        "    total = 0\n"
        "    for i in range(100000000):\n"
        "        total += i\n"
        '    return {"total": total}\n',
        scenario(),
        engine,
    )
    assert trace.outcome == "error"
    assert trace.error == "Starlark computation cancelled: too many steps"


def test_the_tool_timeout_stops_the_run(engine: str) -> None:
    world = scenario({"t.slow": {"results": [{"structuredContent": {}, "delay": "90s"}]}})
    trace = run(
        'def run(params):\n    return call_tool("t.slow", {})\n',
        world,
        engine,
        timeout_ns=60_000_000_000,
    )
    assert trace.outcome == "error"
    assert trace.client_result["content"][0]["text"] == TIMEOUT_TEXT
    assert calls(trace) == [("t.slow", {}, 1, 0.0, 60.0, "cancelled")]


def test_a_call_longer_than_five_minutes_times_out(engine: str) -> None:
    world = scenario({"t.slow": {"results": [{"structuredContent": {}, "delay": "6m"}]}})
    trace = run(
        'def run(params):\n    r = try_call_tool("t.slow", {})\n    return {"e": r.error}\n',
        world,
        engine,
    )
    assert trace.output == {"e": "context deadline exceeded"}
    assert trace.virtual_duration_ns == 300_000_000_000


def test_unknown_function_and_missing_run_are_errors(engine: str) -> None:
    missing = run("def main(params):\n    return {}\n", scenario(), engine)
    assert missing.error == "the script does not define run(params)"
    broken = run("def run(params:\n", scenario(), engine)
    assert str(broken.error).startswith("script does not parse: ")


def test_traces_are_byte_identical_across_runs(engine: str) -> None:
    world = scenario(
        {
            "t.slow": {"results": [{"structuredContent": {"x": 1}, "delay": "2s"}]},
            "t.flaky": {
                "results": [{"transportError": "x", "times": 2}, {"structuredContent": {}}]
            },
        },
        elicitations=[{"action": "accept", "content": {"go": True}}],
    )
    script = (
        "def run(params):\n"
        '    a = parallel([lambda: call_tool("t.slow", {}),\n'
        '                  lambda: retry(lambda: call_tool("t.flaky", {}), max_attempts=4)])\n'
        '    d = elicit("go?")\n'
        '    log("done")\n'
        '    return {"a": a, "d": d.action}\n'
    )
    first = run(script, world, engine).dumps()
    assert all(run(script, world, engine).dumps() == first for _ in range(3))
