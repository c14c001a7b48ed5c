"""An exact script that loads ``vmcp_compat.star`` behaves exactly like its inline form.

Both forms of every tool of our corpus run on the same scenarios (the
ordinary run, where every backend answers, and path-exhaustive outcome
combinations), on both engines; their traces must be byte-identical.
"""

from __future__ import annotations

import pytest

from tests.conftest import CORPUS
from tests.starlark_runtime.conftest import ENGINES
from transpiler.config.loader import LoadedTool, load_paths
from transpiler.emit.exact.script import emit_script
from transpiler.harness.scenarios.analysis import analyse
from transpiler.harness.scenarios.happy import happy_scenario
from transpiler.harness.scenarios.paths import combinations, sample_params
from transpiler.harness.scenarios.shapes import tool_shapes
from transpiler.starlark_runtime import run_starlark

SCENARIOS = 6


def _tools() -> list[LoadedTool]:
    return list(load_paths([CORPUS / "example", CORPUS / "goldens"]).tools)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("tool", _tools(), ids=lambda tool: tool.effective.name)
def test_loading_and_inline_forms_give_identical_traces(tool: LoadedTool, engine: str) -> None:
    config = tool.effective
    loading = emit_script(config, "forms.yaml")
    inline = emit_script(config, "forms.yaml", inline_helpers=True)
    assert loading.modules and not inline.modules
    params = sample_params(config.parameters)
    chosen, _, _ = combinations(tool_shapes(analyse(config)), config.name, params, SCENARIOS, 0)
    outcomes = set()
    for scenario in [happy_scenario(analyse(config)), *chosen]:
        ran = [
            run_starlark(
                emitted.script,
                scenario,
                engine=engine,
                timeout_ns=config.timeout,
                modules=emitted.modules,
            )
            for emitted in (loading, inline)
        ]
        assert ran[0].dumps() == ran[1].dumps()
        outcomes.add(ran[0].outcome)
    assert "success" in outcomes
