"""``load()`` of Starlark modules on both engines, and ``run --library-path``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.starlark_runtime.helpers import calls, run, scenario
from transpiler.cli import main
from transpiler.starlark_runtime import GoOnlyScript
from transpiler.starlark_runtime.library import library_modules

MODULES = {
    "math.star": 'load("consts.star", "BASE")\ndef scale(x):\n    return x * BASE\nLIMIT = 3\n',
    "consts.star": "BASE = 10\n_HIDDEN = 1\n",
    "tools.star": 'def fetch(q):\n    return call_tool("t.get", {"q": q})\n',
    "cycle_a.star": 'load("cycle_b.star", "b")\na = 1\n',
    "cycle_b.star": 'load("cycle_a.star", "a")\nb = 1\n',
    "broken.star": 'x = {}["k"]\n',
    "failing.star": 'fail("not configured")\n',
    "loads_missing.star": 'load("nowhere.star", "q")\n',
    "loops.star": "def count():\n    n = 0\n    while n < 3:\n        n += 1\n    return n\n",
}


def _script(load_line: str, body: str = "{}") -> str:
    return f"{load_line}\ndef run(params):\n    return {body}\n"


def test_load_binds_symbols_and_aliases(engine: str) -> None:
    script = _script('load("math.star", "scale", limit="LIMIT")', '{"v": [scale(2), limit]}')
    trace = run(script, scenario(), engine, modules=MODULES)
    assert (trace.outcome, trace.output) == ("success", {"v": [20, 3]})


def test_a_module_calls_the_builtins(engine: str) -> None:
    world = scenario({"t.get": {"results": [{"structuredContent": {"n": 1}}]}})
    trace = run(_script('load("tools.star", "fetch")', "fetch(7)"), world, engine, modules=MODULES)
    assert trace.output == {"n": 1}
    assert calls(trace) == [("t.get", {"q": 7}, 1, 0.0, 0.0, "ok")]


def test_a_module_is_run_once_per_run(engine: str) -> None:
    modules = {
        "noisy.star": 'log("loading")\nX = 1\n',
        "other.star": 'load("noisy.star", "X")\nY = X + 1\n',
    }
    script = _script('load("noisy.star", "X")\nload("other.star", "Y")', '{"xy": [X, Y]}')
    trace = run(script, scenario(), engine, modules=modules)
    assert (trace.output, trace.logs) == ({"xy": [1, 2]}, ["loading"])


@pytest.mark.parametrize(
    ("load_line", "error"),
    [
        ('load("zz.star", "f")', "cannot load zz.star: no such module"),
        (
            'load("loads_missing.star", "q")',
            "cannot load loads_missing.star: cannot load nowhere.star: no such module",
        ),
        (
            'load("cycle_a.star", "a")',
            "cannot load cycle_a.star: cannot load cycle_b.star: cannot load cycle_a.star: "
            "cycle in load graph",
        ),
        ('load("failing.star", "x")', "cannot load failing.star: fail: not configured"),
    ],
)
def test_load_failures_read_the_same_on_both_engines(
    load_line: str, error: str, engine: str
) -> None:
    trace = run(_script(load_line), scenario(), engine, modules=MODULES)
    assert (trace.outcome, trace.error) == ("error", error)


@pytest.mark.parametrize(
    ("load_line", "rust", "go"),
    [
        (
            'load("broken.star", "x")',
            'cannot load broken.star: Key `"k"` was not found',
            'cannot load broken.star: key "k" not in dict',
        ),
        (
            'load("math.star", "nope")',
            "Module has no symbol `nope`",
            "load: name nope not found in module math.star",
        ),
        (
            'load("math.star", "BASE")',
            "Module symbol `BASE` is not exported",
            "load: name BASE not found in module math.star",
        ),
        (
            'load("consts.star", "_HIDDEN")',
            "Cannot import private symbol `_HIDDEN`",
            "script does not parse: script.star:1:22: "
            "load: names with leading underscores are not exported: _HIDDEN",
        ),
    ],
    ids=["a module's runtime error", "a missing symbol", "no re-export", "a private name"],
)
def test_load_failures_worded_by_each_engine(
    load_line: str, rust: str, go: str, engine: str
) -> None:
    trace = run(_script(load_line), scenario(), engine, modules=MODULES)
    assert (trace.outcome, trace.error) == ("error", rust if engine == "rust" else go)


def test_while_in_a_module_is_go_only(engine: str) -> None:
    script = _script('load("loops.star", "count")', '{"n": count()}')
    if engine == "rust":
        with pytest.raises(GoOnlyScript, match=r"loops\.star uses `while`.*go engine"):
            run(script, scenario(), engine, modules=MODULES)
    else:
        assert run(script, scenario(), engine, modules=MODULES).output == {"n": 3}


def _library(tmp_path: Path) -> tuple[Path, Path]:
    first, second = tmp_path / "first", tmp_path / "second"
    (first / "net").mkdir(parents=True)
    second.mkdir()
    (first / "util.star").write_text("WHO = 'first'\n")
    (second / "util.star").write_text("WHO = 'second'\n")
    (second / "extra.star").write_text("EXTRA = 1\n")
    (first / "net" / "http.star").write_text("PORT = 80\n")
    (tmp_path / "secret.star").write_text("SECRET = 42\n")
    (first / "link.star").symlink_to(tmp_path / "secret.star")
    return first, second


def test_library_path_first_match_wins_and_nothing_escapes(tmp_path: Path) -> None:
    first, second = _library(tmp_path)
    modules = library_modules([first, second])
    assert sorted(modules) == ["extra.star", "net/http.star", "util.star"]
    assert modules["util.star"] == "WHO = 'first'\n"


@pytest.mark.parametrize(
    "name",
    ["../secret.star", "{secret}", "net/../../secret.star", "link.star"],
)
def test_library_path_refuses_names_that_leave_it(tmp_path: Path, name: str, engine: str) -> None:
    first, second = _library(tmp_path)
    name = name.format(secret=tmp_path / "secret.star")
    script = _script(f'load("{name}", "SECRET")', '{"s": SECRET}')
    trace = run(script, scenario(), engine, modules=library_modules([first, second]))
    assert trace.error == f"cannot load {name}: no such module"


def test_run_command_takes_library_paths(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], engine: str
) -> None:
    first, second = _library(tmp_path)
    script = tmp_path / "tool.star"
    script.write_text(
        _script(
            'load("util.star", "WHO")\nload("extra.star", "EXTRA")\nload("net/http.star", "PORT")',
            '{"who": WHO, "extra": EXTRA, "port": PORT}',
        )
    )
    world = tmp_path / "scenario.json"
    world.write_text(json.dumps({"backends": {}}))
    argv = ["run", "--form", "starlark", str(script), "--scenario", str(world), "--engine", engine]
    argv += ["--library-path", str(first), "--library-path", str(second)]
    assert main(argv) == 0
    trace = json.loads(capsys.readouterr().out)
    assert trace["output"] == {"who": "first", "extra": 1, "port": 80}


def test_run_command_reports_a_go_only_script(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "loop.star"
    script.write_text("def run(params):\n    while True:\n        pass\n")
    world = tmp_path / "scenario.json"
    world.write_text(json.dumps({"backends": {}}))
    assert main(["run", "--form", "starlark", str(script), "--scenario", str(world)]) == 2
    assert "loop.star uses `while`" in capsys.readouterr().err
