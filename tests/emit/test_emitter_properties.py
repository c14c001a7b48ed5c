"""Emitter guarantees: no injection, deterministic output, every valid workflow handled."""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import REPO_ROOT, UPSTREAM_CORPUS, outputs_across_hash_seeds
from transpiler.config.loader import load_bytes, load_paths
from transpiler.diagnostics import TranspilerError
from transpiler.emit.exact.script import emit_script
from transpiler.emit.library import LIBRARY_NAME, helper_library, library_text
from transpiler.emit.subset import SubsetViolation, check_subset
from transpiler.sim.scenario import scenario_from_document
from transpiler.starlark_runtime import run_starlark
from transpiler.validate import validate

HOSTILE = st.text(
    alphabet=st.characters(blacklist_categories=["Cs"], blacklist_characters="{}"),
    min_size=1,
    max_size=30,
)


def _tool(step_id: str, tool: str, literal: str, default: str) -> bytes:
    document: dict[str, Any] = {
        "compositeTools": [
            {
                "name": "hostile",
                "description": "strings from the YAML must arrive intact",
                "steps": [
                    {
                        "id": step_id,
                        "tool": tool,
                        "arguments": {"text": literal, literal: "key"},
                        "onError": {"action": "continue"},
                        "defaultResults": {"v": default},
                    }
                ],
                "output": {
                    "properties": {
                        "echo": {
                            "type": "string",
                            "description": "the default, read back",
                            "value": f'{{{{index .steps "{step_id}" "output" "v"}}}}',
                        }
                    }
                },
            }
        ]
    }
    # Every scalar double-quoted: PyYAML writes `08` plain, which a YAML reader (and Go's) reads
    # as the number 8, not the string the test means.
    return yaml.safe_dump(document, default_style='"').encode()


@given(
    step_id=st.from_regex(r"[A-Za-z][A-Za-z0-9_-]{0,12}", fullmatch=True),
    literal=HOSTILE,
    default=HOSTILE,
)
def test_no_yaml_string_can_inject_code(step_id: str, literal: str, default: str) -> None:
    """Step ids, tool names and strings reach the backend exactly, whatever they hold."""
    tool_name = "svc.tool"
    load = load_bytes(_tool(step_id, tool_name, literal, default), "hostile.yaml")
    if not validate(load).valid:
        return
    config = load.tools[0].effective
    emitted = emit_script(config, "hostile.yaml")
    scenario = scenario_from_document({"backends": {tool_name: {"results": [{"isError": True}]}}})
    trace = run_starlark(emitted.script, scenario, modules=emitted.modules)
    assert trace.outcome == "success", trace.error
    assert [call.args for call in trace.calls] == [{"text": literal, literal: "key"}]
    assert trace.output == {"echo": default}


def test_emitted_scripts_are_byte_identical_across_hash_seeds() -> None:
    program = (
        "from transpiler.config.loader import load_paths\n"
        "from transpiler.diagnostics import TranspilerError\n"
        "from transpiler.emit.exact.script import emit_script\n"
        "for t in load_paths(['corpus/example', 'corpus/goldens', 'corpus/scenarios']).tools:\n"
        "    try:\n"
        "        print(emit_script(t.effective, t.origin.file).script)\n"
        "    except TranspilerError as error:\n"
        "        print(error)\n"
    )
    outputs = outputs_across_hash_seeds(program, ("0", "1", "12345"))
    assert len(outputs) == 1


def _valid_upstream_tools() -> list[Any]:
    load = load_paths([UPSTREAM_CORPUS])
    report = validate(load)
    tools: list[Any] = []
    for unit in report.units:
        if unit.valid:
            tools.extend(unit.unit.tools)
    return tools


def test_every_valid_upstream_workflow_emits_or_says_why() -> None:
    """Each tool vMCP would run becomes a script inside the subset, or a named refusal."""
    emitted, refused = 0, []
    for tool in _valid_upstream_tools():
        try:
            result = emit_script(tool.effective, tool.origin.file)
        except TranspilerError as error:
            refused.append(f"{tool.effective.name}: {error}")
            continue
        check_subset(result.script)
        assert "def run(params):" in result.script
        emitted += 1
    assert emitted > 0
    assert all(reason.strip() for reason in refused)
    print(json.dumps({"emitted": emitted, "refused": refused}, indent=1))


def test_the_helper_library_is_inside_the_subset() -> None:
    check_subset(library_text())
    library = helper_library()
    check_subset(library.source(library.definitions))


def test_the_library_is_in_sections_by_go_package_and_every_helper_says_why() -> None:
    lines = library_text().splitlines()
    rule = "# " + "=" * 75
    opening = [i for i in range(1, len(lines) - 1) if lines[i] == rule and lines[i - 1] == ""]
    packages = [lines[i + 1].removeprefix("# ").split(":")[0] for i in opening]
    assert packages == [
        "Values",
        "unicode/utf8",
        "strconv",
        "fmt",
        "encoding/json",
        "text/template",
        "vMCP's workflow engine",
    ]
    for definition in helper_library().definitions.values():
        assert definition.source.startswith("# "), f"{definition.name} has no comment"
        assert rule not in definition.source


@pytest.mark.parametrize(
    "script",
    [
        'load("other.star", "go_text")\n',
        f'load("{LIBRARY_NAME}", "no_such_helper")\n',
        f'load("{LIBRARY_NAME}", text="go_text")\n',
        f'def run(params):\n    load("{LIBRARY_NAME}", "go_text")\n',
        "def run(params):\n    return go_text(1)\n",
    ],
)
def test_only_a_top_level_load_of_library_helpers_is_in_the_subset(script: str) -> None:
    with pytest.raises(SubsetViolation):
        check_subset(script)
    check_subset(f'load("{LIBRARY_NAME}", "go_text")\ndef run(params):\n    return go_text(1)\n')


def test_unknown_fix_is_refused() -> None:
    tool = load_paths([REPO_ROOT / "corpus" / "example"]).tools[0].effective
    with pytest.raises(TranspilerError, match="unknown --fix"):
        emit_script(tool, "x", fixes=["no-such-quirk"])
