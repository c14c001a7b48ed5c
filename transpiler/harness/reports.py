"""``check``'s reports: console lines, JSON, JUnit XML, Markdown for reviews.

Every text from the input or a script (tool and file names, messages,
values) is shown inert and clipped by the rules of :mod:`transpiler.inert`.

Every report says, per tool, the verdict, the deviation classes the script
declares with a witness for each one observed (the smallest scenario where it
showed, composite and script side by side), the tool's findings (vMCP quirks
that fire on its ordinary run) and, when the script differs, the minimal
counterexample.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import jinja2
import yaml

from transpiler.deviations import CLASSES
from transpiler.filenames import safe_stem
from transpiler.harness.check import Counterexample, ToolReport, Witness
from transpiler.harness.relation import Difference
from transpiler.inert import (
    clipped,
    clipped_data,
    markdown_block,
    markdown_code,
    markdown_text,
    one_line,
    shown_lines,
)
from transpiler.sim.trace import Trace, plain_json

_MARKDOWN = jinja2.Environment(autoescape=False, keep_trailing_newline=True)
_MARKDOWN.filters.update(
    block=markdown_block,
    cell=lambda text: markdown_code(str(text), cell=True),
    code=lambda text: markdown_code(str(text)),
    prose=markdown_text,
)
#: Every text from the input or a script goes through a filter of transpiler.inert.
_MARKDOWN_TEMPLATE = _MARKDOWN.from_string(
    """\
| tool | file | verdict | deviations observed | scenarios | paths | call sites reached | engines |
|---|---|---|---|---|---|---|---|
{% for r in reports -%}
{%- set sites = call_sites(r) -%}
| {{ r.tool | cell }} | {{ r.file | cell }} | **{{ r.verdict | prose }}** \
| {{ r.observed | join(", ") | prose or "none" }} \
| {{ r.scenarios }} | {{ r.distinct_paths }} reached, {{ r.paths_run }}/{{ r.paths_enumerated }} \
| {{ "%d/%d" % (sites.reached, sites.reachable) if sites else "" }} \
| {{ r.engines | join(", ") | prose }} |
{% endfor %}
{% if interpreters %}
Interpreters: {% for name, version in interpreters.items() %}{{ name | prose }} \
{{ version | code }}{{ ", " if not loop.last }}{% endfor %}.
{% endif %}
{% for r in reports if r.reason or r.witnesses or r.findings or r.declared \
or call_sites(r).never -%}
### {{ r.tool | code }}: {{ r.verdict | prose }}
{% if r.reason %}
{{ r.reason | block }}
{% endif %}
{%- if call_sites(r).never %}
Call sites of the script no scenario reached:
{% for site in call_sites(r).never %}
- {{ site.at | code }} {{ site.builtin | code }}: {{ site.text | code }}
{%- endfor %}
{% endif %}
{%- if r.findings %}
Findings (vMCP quirks that fire on an ordinary run of this tool):
{% for f in r.findings %}
- {{ f.render() | prose }}
{%- endfor %}
{% endif %}
{%- for c in r.declared %}
{%- set w = r.witnesses.get(c) %}
{%- if w %}
**{{ c | code }}**: {{ classes[c].title | prose }}. \
Witness ({{ w.engine | prose }}, {{ w.size }} bytes):

{{ side_by_side(w) | block }}
{% else %}
**{{ c | code }}**: not observed in {{ r.scenarios }} scenarios.
{% endif %}
{%- endfor %}
{% endfor %}"""
)


def call_sites(report: ToolReport) -> dict[str, Any]:
    """The script's reachable call sites as its certificate counts them (reached, reachable,
    and those never reached); empty when the certificate has none."""
    script = report.certificate.get("coverage", {}).get("script")
    if not script:
        return {}
    reachable = [site for site in script["call_sites"] if site["reachable"]]
    return {
        "reached": sum(bool(site["scenarios"]) for site in reachable),
        "reachable": len(reachable),
        "never": script["never_reached"],
    }


def console_line(report: ToolReport) -> str:
    """One line per tool for the console: verdict, tool, file, script, what was run."""
    if report.carried is not None:
        detail = "unchanged since the earlier report: not checked again"
    else:
        detail = (
            f"{report.scenarios} scenarios, {report.distinct_paths} paths "
            f"({report.paths_run}/{report.paths_enumerated} combinations), {report.seconds:.1f}s"
        )
    script = f"; script {one_line(report.script_source)}" if report.script_source else ""
    observed = f" [{one_line(', '.join(report.observed))}]" if report.observed else ""
    verdict = one_line(str(report.verdict))
    return f"{verdict:>17}  {one_line(report.tool)}  ({one_line(report.file)}{script})  " + (
        detail + observed
    )


def report_json(
    reports: Sequence[ToolReport], accept: frozenset[str] | None, unpaired: Sequence[str] = ()
) -> dict[str, Any]:
    """Every tool's verdict, classes with witnesses, findings, certificate, counterexample; the
    scripted tools that had no composite tool to be checked against. Every text is clipped
    (:func:`~transpiler.inert.clipped_data`)."""
    document = {
        "tools": [
            dict(r.carried, passes=r.passes(accept))
            if r.carried is not None
            else {
                "tool": r.tool,
                "file": r.file,
                "verdict": str(r.verdict),
                "passes": r.passes(accept),
                "reason": r.reason,
                "declared": list(r.declared),
                "witnesses": {c: witness_json(w) for c, w in r.witnesses.items()},
                "findings": [f.render() for f in r.findings],
                "certificate": r.certificate,
                "counterexample": None
                if r.counterexample is None
                else counterexample_json(r.counterexample),
            }
            for r in reports
        ],
        "passed": sum(r.passes(accept) for r in reports),
        "total": len(reports),
        "unpaired": list(unpaired),
    }
    return dict(clipped_data(document))


def _differences_json(differences: Sequence[Difference]) -> list[dict[str, str]]:
    return [{"field": d.field, "composite": d.composite, "script": d.script} for d in differences]


def witness_json(witness: Witness) -> dict[str, Any]:
    """A witness: the scenario, the classes that excuse it, what differs, both traces."""
    return {
        "class": witness.deviation,
        "engine": witness.engine,
        "excused_by": sorted(witness.classes),
        "differences": _differences_json(witness.differences),
        "scenario": witness.scenario.to_json(),
        "composite": witness.composite.to_json(),
        "script": witness.script.to_json(),
    }


def counterexample_json(example: Counterexample) -> dict[str, Any]:
    """A counterexample: the scenario, the engine, the differing fields and both traces."""
    return {
        "engine": example.engine,
        "differences": _differences_json(example.differences),
        "scenario": example.scenario.to_json(),
        "saved_to": example.saved_to,
        "composite": example.composite.to_json(),
        "script": example.script.to_json(),
    }


def _essentials(name: str, trace: Trace) -> list[str]:
    result = json.dumps(plain_json(trace.client_result))
    lines = [f"{name}: {trace.outcome}; {one_line(clipped(result, 300))}"]
    for call in trace.calls:
        arguments = one_line(json.dumps(plain_json(call.args)))
        lines.append(f"  call {one_line(call.tool)} attempt {call.attempt} {arguments}")
    for request in trace.elicitations:
        message = one_line(json.dumps(request.message))
        lines.append(f"  elicit {message} -> {one_line(request.answer)}")
    return lines


def side_by_side(example: Counterexample | Witness) -> str:
    """What differs, then both runs' essentials, for a person reading the report: lines whose
    texts from the input or the script are each clipped and on one line."""
    lines = [f"scenario: {one_line(json.dumps(example.scenario.to_json(), sort_keys=True))}"]
    for difference in example.differences:
        lines.append(difference.render())
    lines += _essentials("composite", example.composite) + _essentials("script", example.script)
    return "\n".join(lines)


def interpreters(reports: Sequence[ToolReport]) -> dict[str, str]:
    """The interpreter versions the certificates record (see ``engine_versions``)."""
    found: dict[str, str] = {}
    for report in reports:
        found.update(report.certificate.get("interpreters", {}))
    return dict(sorted(found.items()))


def junit(reports: Sequence[ToolReport], accept: frozenset[str] | None) -> str:
    """One JUnit test case per tool (a tool the gate does not let through fails); the
    interpreter versions as suite properties. Every text is made inert (no character XML 1.0
    forbids is left)."""
    suite = ElementTree.Element(
        "testsuite",
        name="vmcp-starlark-equivalence",
        tests=str(len(reports)),
        failures=str(sum(not r.passes(accept) for r in reports)),
    )
    properties = ElementTree.SubElement(suite, "properties")
    for name, version in interpreters(reports).items():
        ElementTree.SubElement(properties, "property", name=one_line(name), value=one_line(version))
    for report in reports:
        case = ElementTree.SubElement(
            suite,
            "testcase",
            classname=one_line(report.file),
            name=one_line(report.tool),
            time=f"{report.seconds:.3f}",
        )
        if not report.passes(accept):
            verdict = one_line(str(report.verdict))
            failure = ElementTree.SubElement(case, "failure", message=verdict)
            failure.text = shown_lines(report.reason or ", ".join(report.observed))
    return ElementTree.tostring(suite, encoding="unicode") + "\n"


def markdown(reports: Sequence[ToolReport]) -> str:
    """A table a reviewer reads in a pull request, then each tool's classes and witnesses."""
    return str(
        _MARKDOWN_TEMPLATE.render(
            reports=reports,
            classes=CLASSES,
            side_by_side=side_by_side,
            call_sites=call_sites,
            interpreters=interpreters(reports),
        )
    )


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
