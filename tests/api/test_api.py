"""The library API: load, validate, plan, transpile, check; cached, thread-safe, deterministic."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import transpiler
from tests.conftest import CORPUS, outputs_across_hash_seeds
from transpiler import api
from transpiler.diagnostics import InputError
from transpiler.emit.library import LIBRARY_NAME, library_text

EXAMPLE = CORPUS / "example" / "vmcp-config.yaml"
TINY = """\
compositeTools:
  - name: ping
    description: Ping
    steps:
      - id: p
        tool: ping
"""


def test_load_a_path_text_bytes_or_dict() -> None:
    from_path = transpiler.load(EXAMPLE)
    assert from_path.tools == (
        "deploy_with_approval",
        "investigate_incident",
        "scan_image_packages",
        "sync_inventory",
    )
    assert transpiler.load(str(EXAMPLE)) is from_path
    assert transpiler.load(CORPUS / "example").tools == from_path.tools
    assert transpiler.loads(TINY).tools == ("ping",)
    assert transpiler.load(TINY.encode()).tools == ("ping",)
    parsed = {
        "compositeTools": [
            {"name": "ping", "description": "Ping", "steps": [{"id": "p", "tool": "ping"}]}
        ]
    }
    assert transpiler.load(parsed).transpile("ping").converted


def test_bad_input_is_a_clear_error() -> None:
    with pytest.raises(InputError, match="no such file"):
        transpiler.load("no/such/config.yaml")
    with pytest.raises(InputError, match="not plain JSON"):
        transpiler.load({"compositeTools": [object()]})
    broken = transpiler.loads("compositeTools: [", name="broken.yaml")
    assert not broken.valid
    assert broken.validate().diagnostics[0].location.file == "broken.yaml"
    with pytest.raises(InputError, match="no composite tool named 'nope'"):
        transpiler.loads(TINY).transpile("nope")


def test_validate_plan_transpile_check() -> None:
    config = transpiler.load(EXAMPLE)
    assert config.validate().valid
    plan = config.plan("deploy_with_approval")
    assert plan.levels == (("merge",), ("approval",), ("deploy",), ("announce",))
    result = config.transpile("deploy_with_approval")
    assert result.converted and result.script is not None
    assert result.location == f"{EXAMPLE}:14"
    assert "def run(params):" in result.script
    assert result.domain and all(note.kind == "domain" for note in result.domain)
    assert {entry.step for entry in result.source_map} >= {
        "merge",
        "approval",
        "deploy",
        "announce",
    }
    every = config.transpile()
    assert list(every) == list(config.tools) and every["deploy_with_approval"] is result
    check = config.check("sync_inventory")
    assert check.verdict in set(transpiler.Verdict)


def test_exact_scripts_load_their_helpers_unless_inlined() -> None:
    config = transpiler.load(EXAMPLE)
    loading = config.transpile("sync_inventory", style="exact")
    inline = config.transpile("sync_inventory", style="exact", inline_helpers=True)
    assert loading.modules == {LIBRARY_NAME: library_text()} and inline.modules == {}
    assert loading.script is not None and inline.script is not None
    assert f'load("{LIBRARY_NAME}", "vmcp_call", "vmcp_result")' in loading.script
    assert "load(" not in inline.script and "\ndef vmcp_call(" in inline.script
    assert config.transpile("sync_inventory").modules == {}


def test_a_tool_vmcp_rejects_is_not_converted_with_the_reason() -> None:
    config = transpiler.loads(TINY.replace("    description: Ping\n", ""), name="gw.yaml")
    result = config.transpile("ping")
    assert not result.converted and result.script is None
    assert result.reason is not None and "description is required" in result.reason
    message = config.deprecation_messages()["ping"]
    assert message.startswith('composite tool "ping"') and "cannot be migrated" in message


def test_deprecation_message_names_the_command() -> None:
    messages = transpiler.load(EXAMPLE).deprecation_messages()
    assert messages["sync_inventory"] == (
        'composite tool "sync_inventory" can be migrated to a Starlark scripted tool (THV-0051): '
        f"run `vmcp-transpile migrate {EXAMPLE}` to review the change, then add --write"
    )


def test_an_unchanged_config_is_served_from_the_cache(tmp_path: Path) -> None:
    path = tmp_path / "gw.yaml"
    path.write_text(TINY)
    first = transpiler.load(path)
    script = first.transpile("ping")
    assert transpiler.load(path) is first
    assert transpiler.load(path).transpile("ping") is script
    path.write_text(TINY.replace("Ping", "Ping!"))
    changed = transpiler.load(path)
    assert changed is not first and changed.transpile("ping") is not script


def test_options_are_part_of_the_cache_key() -> None:
    config = transpiler.loads(TINY)
    plain = config.transpile("ping")
    assert config.transpile("ping", tool_schemas={"ping": {"type": "object"}}) is not plain
    assert config.transpile("ping", fixes=()) is plain


def test_threads_share_one_computation(monkeypatch: pytest.MonkeyPatch) -> None:
    transpiler.clear_cache()
    calls: list[str] = []
    lock = threading.Lock()
    real = api._transpile

    def counted(*args: object, **kwargs: object) -> api.Transpiled:
        with lock:
            calls.append("x")
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(api, "_transpile", counted)
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda _: transpiler.load(EXAMPLE).transpile(), range(16)))
    assert all(result == results[0] for result in results)
    assert len(calls) == len(results[0])


def test_same_input_same_script_in_any_process() -> None:
    program = (
        "import transpiler; "
        f"print(transpiler.load({str(EXAMPLE)!r}).transpile('investigate_incident').script)"
    )
    outputs = outputs_across_hash_seeds(program, ("0", "1"))
    assert len(outputs) == 1
