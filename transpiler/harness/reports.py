"""``check``'s reports: console lines, JSON, JUnit XML, a Markdown table for reviews."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import jinja2
import yaml

from transpiler.filenames import safe_stem
from transpiler.harness.check import Counterexample, ToolReport
from transpiler.sim.trace import plain_json

_MARKDOWN = jinja2.Template(
    """\
| tool | file | verdict | scenarios | paths | engines |
|---|---|---|---|---|---|
{% for r in reports -%}
| `{{ r.tool }}` | `{{ r.file }}` | **{{ r.verdict }}** | {{ r.scenarios }} \
| {{ r.distinct_paths }} reached, {{ r.paths_run }}/{{ r.paths_enumerated }} combinations \
| {{ r.engines | join(", ") }} |
{% endfor %}
{% for r in reports if r.reason -%}
### `{{ r.tool }}`: {{ r.verdict }}

```
{{ r.reason }}
```
{% endfor %}""",
    autoescape=False,
    keep_trailing_newline=True,
)


def console_line(report: ToolReport) -> str:
    """One line per tool for the console."""
    detail = (
        f"{report.scenarios} scenarios, {report.distinct_paths} paths "
        f"({report.paths_run}/{report.paths_enumerated} combinations), {report.seconds:.1f}s"
    )
    return f"{report.verdict:>13}  {report.tool}  ({report.file})  {detail}"


def report_json(reports: Sequence[ToolReport]) -> dict[str, Any]:
    """Every tool's verdict, reason, certificate and counterexample as JSON."""
    return {
        "tools": [
            {
                "tool": r.tool,
                "file": r.file,
                "verdict": r.verdict,
                "reason": r.reason,
                "certificate": r.certificate,
                "counterexample": None
                if r.counterexample is None
                else counterexample_json(r.counterexample),
            }
            for r in reports
        ],
        "certified": sum(r.certified for r in reports),
        "total": len(reports),
    }


def counterexample_json(example: Counterexample) -> dict[str, Any]:
    """A counterexample: the scenario, the engine, the differing field and both traces."""
    return {
        "engine": example.engine,
        "field": example.difference.field,
        "scenario": example.scenario.to_json(),
        "saved_to": example.saved_to,
        "composite": example.composite.to_json(),
        "script": example.script.to_json(),
    }


def side_by_side(example: Counterexample) -> str:
    """Both traces' essentials, for a person reading the console."""
    lines = [f"first difference ({example.engine} engine): {example.difference.render()}"]
    for name, trace in (("composite", example.composite), ("script", example.script)):
        lines.append(
            f"{name}: outcome {trace.outcome}; result {json.dumps(plain_json(trace.client_result))}"
        )
        for call in trace.calls:
            lines.append(
                f"  call {call.tool} attempt {call.attempt} {json.dumps(plain_json(call.args))}"
            )
    return "\n".join(lines)


def junit(reports: Sequence[ToolReport]) -> str:
    """One JUnit test case per tool."""
    suite = ElementTree.Element(
        "testsuite",
        name="vmcp-starlark-equivalence",
        tests=str(len(reports)),
        failures=str(sum(not r.certified for r in reports)),
    )
    for report in reports:
        case = ElementTree.SubElement(
            suite, "testcase", classname=report.file, name=report.tool, time=f"{report.seconds:.3f}"
        )
        if not report.certified:
            failure = ElementTree.SubElement(case, "failure", message=report.verdict)
            failure.text = report.reason
    return ElementTree.tostring(suite, encoding="unicode") + "\n"


def markdown(reports: Sequence[ToolReport]) -> str:
    """A table a reviewer reads in a pull request, then the reason for each problem."""
    return str(_MARKDOWN.render(reports=reports))


def save_counterexample(example: Counterexample, directory: Path, tool: str) -> str:
    """Write the scenario as YAML that ``run`` replays; returns its path.

    The file name is made from the tool's name but always lies in ``directory``
    (a name that had to change gets a hash of itself, so names stay distinct).
    """
    directory.mkdir(parents=True, exist_ok=True)
    stem = safe_stem(tool)
    if stem != tool:
        stem += "-" + hashlib.sha256(tool.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    path = directory / f"{stem}.{example.engine}.scenario.yaml"
    path.write_text(yaml.safe_dump(example.scenario.to_json(), sort_keys=True, allow_unicode=True))
    return str(path)
