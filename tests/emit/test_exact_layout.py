"""How the exact style lays out what the printer writes: the shapes its goldens depend on.

Template code is one line wherever it sits, a function compiled from a
template keeps ``else:`` and ``if`` apart, and a forEach step's per-item
call is laid out for the comprehension's column (the lambda before it does
not count toward its width).
"""

from __future__ import annotations

from typing import Any

import yaml

from transpiler.config.loader import load_bytes
from transpiler.emit import ir
from transpiler.emit.exact.nodes import introduce
from transpiler.emit.exact.script import emit_script


def _script(step: dict[str, Any]) -> str:
    tool = {
        "name": "t",
        "description": "d",
        "parameters": {"type": "object", "properties": {"x": {"type": "string"}}},
        "steps": [step],
    }
    config = yaml.safe_dump({"compositeTools": [tool]}, width=10**6).encode()
    return emit_script(load_bytes(config, "t.yaml").tools[0].effective, "t.yaml").script


def test_template_code_stays_on_one_line_in_a_broken_call() -> None:
    script = _script({"id": "a", "tool": "svc.echo", "arguments": {"v": "{{.params.x}}" * 6}})
    long = next(line for line in script.splitlines() if '"v": ' in line)
    assert len(long) > ir.WIDTH and long.count("go_text(") == 6
    assert "    a = vmcp_call(\n" in script


def test_template_functions_keep_else_and_if_apart() -> None:
    template = "{{$x := 1}}{{if .params.x}}a{{else if $x}}b{{end}}"
    script = _script({"id": "a", "tool": "svc.echo", "arguments": {"v": template}})
    assert "    else:\n        if go_truth(var_x):\n" in script and "elif" not in script


def test_the_per_item_call_is_laid_out_for_the_comprehension_column() -> None:
    tool = "svc." + "t" * 24
    step = {
        "id": "loop",
        "type": "forEach",
        "collection": "{{json .params.x}}",
        "step": {"type": "tool", "tool": tool, "arguments": {"a": "{{.forEach.item}}"}},
    }
    lines = _script(step).splitlines()
    call = f'vmcp_iterate("loop", index, item, "{tool}", {{"a": go_text(item)}})'
    each = f"            lambda index=index, item=item: {call}"
    assert each in lines and len(each) > ir.WIDTH
    assert "        parallel([" in lines and "        ])," in lines


def test_a_comment_and_blank_line_replace_the_blank_lines_before_a_body() -> None:
    body = [ir.Blank(), ir.Comment("own"), ir.Pass()]
    assert introduce(body, "new", blank=True) == [
        ir.Blank(),
        ir.Comment("new"),
        ir.Comment("own"),
        ir.Pass(),
    ]
    assert introduce(body, None, blank=False) == body
