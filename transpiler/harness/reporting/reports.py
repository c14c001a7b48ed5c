"""``check``'s reports: console lines, JSON, JUnit XML, Markdown for reviews.

Every text from the input or a script (tool and file names, messages,
values) is shown inert and clipped by the rules of :mod:`transpiler.inert`.

Every report says, per tool, the verdict, the deviation classes the script
declares with a witness for each one observed (the smallest scenario where it
showed: its site, and vMCP's value there beside the script's), the tool's findings (vMCP quirks
that fire on its ordinary run) and, when the script differs, the minimal
counterexample.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from xml.etree import ElementTree

import yaml

from transpiler.changes import Change, markdown_section
from transpiler.deviations import Deviation, accepts
from transpiler.filenames import safe_stem
from transpiler.harness.judging.entries import ListingDifference
from transpiler.harness.judging.fields import cut, field_differences
from transpiler.harness.judging.relation import Difference
from transpiler.harness.judging.sites import value_text
from transpiler.harness.reporting.places import difference_spot, work_tree_file
from transpiler.harness.running.check import Counterexample, ToolReport, Witness
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

if TYPE_CHECKING:
    import jinja2

#: The Markdown report's template, compiled on first use (:func:`_markdown_template`); every
#: text from the input or a script goes through a filter of transpiler.inert.
_MARKDOWN_SOURCE = (
    """\
**{{ passed }} of {{ reports | length }} tool(s) pass** ({{ policy | prose }}).
{%- if changes %}

{{ changes }}
{%- endif %}
{%- if failing %}

## Failing
{% for r in failing %}
### FAIL {{ r.tool | code }} ({{ r.file | code }}): {{ r.verdict | prose }}
{% set spot = spot_of(r) %}
{%- if spot.step %}
At step {{ spot.step | code }}{% if spot.tool %}, the call to {{ spot.tool | code }}{% endif %}.
{% endif %}
{%- if r.counterexample %}
What differs:

{{ difference_lines(r.counterexample) | join("\n") | block }}

Both runs:

{{ side_by_side(r.counterexample) | block }}
{% endif %}
{%- for c in refused(r) %}
{%- set w = r.witnesses.get(c) %}
**{{ c | code }}** ({{ c.about.title | prose }}) showed and is not accepted\
{%- if w %}; witness ({{ w.engine | prose }}):

{{ witness_block(w) | block }}
{% else %}.
{% endif %}
{%- endfor %}
{%- if r.listing %}
The `tools/list` entry differs:
{% for d in r.listing %}
- {{ d.render() | prose }}
{%- endfor %}
{% endif %}
{%- if r.reason and not r.counterexample %}
{{ r.reason | block }}
{% endif %}
{%- endfor %}
{%- endif %}

## Tools

| | tool | file | verdict | deviations observed | scenarios | paths | call sites reached \
| engines |
|---|---|---|---|---|---|---|---|---|
{% for r in reports -%}
{%- set sites = call_sites(r) -%}
| **{{ "PASS" if passes(r) else "FAIL" }}** \
| {{ r.tool | cell }} | {{ r.file | cell }} | {{ r.verdict | prose }} \
| {{ r.observed | join(", ") | prose or "none" }} \
| {{ r.scenarios }} | {{ r.distinct_paths }} reached, {{ r.paths_run }}/{{ r.paths_enumerated }} \
| {{ "%d/%d" % (sites.reached, sites.reachable) if sites else "" }} \
| {{ r.engines | join(", ") | prose }} |
{% endfor %}
{% if interpreters %}
Interpreters: {% for name, version in interpreters.items() %}{{ name | prose }} \
{{ version | code }}{{ ", " if not loop.last }}{% endfor %}.
{% endif %}
{% for r in reports if (r.reason and passes(r)) or r.observed or r.findings \
or r.declared or r.listing or call_sites(r).never -%}
### {{ r.tool | code }}: {{ r.verdict | prose }}
{% if r.reason and passes(r) %}
{{ r.reason | block }}
{% endif %}
{%- if call_sites(r).never %}
Call sites of the script no scenario reached:
{% for site in call_sites(r).never %}
- {{ site.at | code }} {{ site.builtin | code }}: {{ site.text | code }}
{%- endfor %}
{% endif %}
{%- if r.listing and passes(r) %}
The `tools/list` entry differs:
{% for d in r.listing %}
- {{ d.render() | prose }}
{%- endfor %}
{% endif %}
{%- set warned = r.findings | rejectattr("placeholder") | list %}
{%- if warned %}
Findings (vMCP quirks that fire on an ordinary run of this tool, and hints the script drops):
{% for f in warned %}
- {{ f.render() | prose }}
{%- endfor %}
{% endif %}
{%- set noted = r.findings | selectattr("placeholder") | list %}
{%- if noted %}
Notes (quirks that fire with the simulator's placeholder values, not known to fire on the \
backends' real data):
{% for f in noted %}
- {{ f.render() | prose }}
{%- endfor %}
{% endif %}
{%- for c in r.observed if c not in refused(r) %}
{%- set w = r.witnesses.get(c) %}
{%- if w %}
**{{ c | code }}**: {{ c.about.title | prose }}. \
Witness ({{ w.engine | prose }}, {{ w.size }} bytes):

{{ witness_block(w) | block }}
{% endif %}
{%- endfor %}
{%- set unseen = r.declared | reject("in", r.observed) | list %}
{%- if unseen %}
Declared, not observed in {{ r.scenarios }} scenarios: \
{% for c in unseen %}{{ c | code }}{{ ", " if not loop.last }}{% endfor %}.
{% endif %}
{% endfor %}"""
)


@functools.cache
def _markdown_template() -> jinja2.Template:
    import jinja2

    environment = jinja2.Environment(autoescape=False, keep_trailing_newline=True)
    environment.filters.update(
        block=markdown_block,
        cell=lambda text: markdown_code(str(text), cell=True),
        code=lambda text: markdown_code(str(text)),
        prose=markdown_text,
    )
    return environment.from_string(_MARKDOWN_SOURCE)


def policy_text(accept: frozenset[Deviation] | None) -> str:
    """What the gate lets through, in words."""
    if accept is None:
        return "equivalent, or equivalent except for the classes each script declares"
    if not accept:
        return "strict: equivalent only"
    return "equivalent, or equivalent except for " + ", ".join(sorted(accept))


def refused_classes(
    report: ToolReport, accept: frozenset[Deviation] | None
) -> tuple[Deviation, ...]:
    """The observed classes the gate does not accept."""
    return tuple(c for c in report.observed if not accepts(accept, c))


def not_accepted(report: ToolReport, accept: frozenset[Deviation] | None) -> str:
    """Why a tool that showed only declared classes still fails: the classes the gate does not
    accept, and where they are accepted; empty when there are none."""
    refused = refused_classes(report, accept)
    if not refused:
        return ""
    them = "it" if len(refused) == 1 else "them"
    return (
        f"not accepted: {', '.join(refused)} showed, and the policy's `accept:` (or --accept, "
        f"--strict) does not name {them}: accept {them} there, or keep the script from showing "
        f"{them}"
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


def console_line(report: ToolReport, accept: frozenset[Deviation] | None) -> str:
    """One line per tool for the console: PASS or FAIL (the gate's decision), the verdict,
    tool, file, script, what was run."""
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
    decision = "PASS" if report.passes(accept) else "FAIL"
    head = f"{decision}  {verdict:>17}  {one_line(report.tool)}"
    return f"{head}  ({one_line(report.file)}{script})  " + (detail + observed)


def report_json(
    reports: Sequence[ToolReport],
    accept: frozenset[Deviation] | None,
    unpaired: Sequence[str] = (),
    changes: Sequence[Change] = (),
) -> dict[str, Any]:
    """Every tool's verdict, classes with witnesses, findings, certificate, counterexample; the
    scripted tools that had no composite tool to be checked against; the reviewed changes.
    Every text is clipped (:func:`~transpiler.inert.clipped_data`)."""
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
                "listing": [d.to_json() for d in r.listing],
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
        "changes": [change.to_json() for change in changes],
    }
    return dict(clipped_data(document))


def _differences_json(differences: Sequence[Difference]) -> list[dict[str, str]]:
    return [
        {"field": d.field, "composite": d.composite, "script": d.script, **_why(d)}
        for d in differences
    ]


def _why(difference: Difference) -> dict[str, str]:
    return {"why": difference.why} if difference.why else {}


def witness_json(witness: Witness) -> dict[str, Any]:
    """A witness: its site, the variant the script takes there, what the values are and
    vMCP's and the script's value there; the scenario, the classes that excuse it, what
    differs in the whole traces, and both traces."""
    values = witness.site
    shown = witness.shown
    return {
        "class": witness.deviation,
        "engine": witness.engine,
        "site": None if values is None else {"step": values.step, "place": values.place},
        "variant": witness.variant,
        "shows": shown.field if values is None else values.shows,
        "vmcp": shown.composite if values is None else values.vmcp,
        "script": shown.script if values is None else values.script,
        "excused_by": sorted(witness.classes),
        "differences": _differences_json(witness.differences),
        "scenario": witness.scenario.to_json(),
        "traces": {"vmcp": witness.composite.to_json(), "script": witness.script.to_json()},
    }


def counterexample_json(example: Counterexample) -> dict[str, Any]:
    """A counterexample: the scenario, the engine, what differs (the relation's parts of the
    trace, and field by field), where it is saved and how to replay it, both traces."""
    return {
        "engine": example.engine,
        "differences": _differences_json(example.differences),
        "fields": [
            {
                "field": found.field,
                "tool": found.tool,
                "step": found.step,
                "attempt": found.attempt,
                "vmcp": found.vmcp,
                "script": found.script,
            }
            for found in field_differences(example.composite, example.script)
        ],
        "scenario": example.scenario.to_json(),
        "saved_to": example.saved_to,
        "replay": example.replay,
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


def listing_lines(found: Sequence[ListingDifference]) -> list[str]:
    """The ``tools/list`` entry's differences for a console: the fields' each on a line, the
    annotations' of one class on one line, each hint in brief (the reports say where vMCP's
    value comes from)."""
    lines = [d.render() for d in found if not d.brief]
    hints: dict[Deviation, list[str]] = {}
    for difference in found:
        if difference.brief:
            hints.setdefault(difference.deviation, []).append(difference.brief)
    lines += [f"{deviation} at annotations: {'; '.join(said)}" for deviation, said in hints.items()]
    return lines


def difference_lines(example: Counterexample) -> list[str]:
    """What differs, field by field, on which engine; then where the scenario is saved and the
    command that replays it (lines for a person, each value cut)."""
    lines = [f"differs on {example.engine}:"]
    for found in field_differences(example.composite, example.script):
        lines += [f"  {line}" for line in found.lines()]
    lines += example.advice
    if example.saved_to is not None:
        lines.append(f"scenario saved to {example.saved_to}")
    if example.replay is not None:
        lines.append(f"replay: {example.replay}")
    return lines


def witness_lines(witness: Witness) -> list[str]:
    """The witness's site, what its values are, and vMCP's value beside the script's."""
    values = witness.site
    if values is None:
        shown = witness.shown
        vmcp, script = cut(shown.composite), cut(shown.script)
        head = f"{witness.deviation}: {shown.field}"
    else:
        vmcp = cut(value_text(values.vmcp, values.shows))
        script = cut(value_text(values.script, values.shows))
        variant = f" ({witness.variant})" if witness.variant else ""
        head = f"{witness.deviation}{variant} at {values.where}: {values.shows}"
    return [head, f"  vMCP:   {vmcp}", f"  script: {script}"]


def witness_block(witness: Witness) -> str:
    """A witness for a person: its site and both values there, then the scenario (each line
    clipped and inert; the caller fences it)."""
    scenario = json.dumps(witness.scenario.to_json(), sort_keys=True)
    return "\n".join(one_line(line) for line in [*witness_lines(witness), f"scenario: {scenario}"])


def interpreters(reports: Sequence[ToolReport]) -> dict[str, str]:
    """The interpreter versions the certificates record (see ``engine_versions``)."""
    found: dict[str, str] = {}
    for report in reports:
        found.update(report.certificate.get("interpreters", {}))
    return dict(sorted(found.items()))


def junit(
    reports: Sequence[ToolReport], accept: frozenset[Deviation] | None, revision: str | None = None
) -> str:
    """One JUnit test case per tool, its class name the work tree's file (a tool the gate does
    not let through fails, naming the step where it differs); each tool's declared classes as
    its properties; the interpreter versions as suite properties. Every text is made inert (no
    character XML 1.0 forbids is left)."""
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
            classname=one_line(work_tree_file(report.file, revision)),
            name=one_line(report.tool),
            time=f"{report.seconds:.3f}",
        )
        classes = ElementTree.SubElement(case, "properties")
        ElementTree.SubElement(classes, "property", name="verdict", value=str(report.verdict))
        for deviation in report.declared:
            shown = "observed" if deviation in report.observed else "declared, not observed"
            ElementTree.SubElement(
                classes, "property", name=f"class:{one_line(deviation)}", value=shown
            )
        if not report.passes(accept):
            spot = difference_spot(report, accept)
            at = f" at step {one_line(spot.step)}" if spot.step else ""
            verdict = one_line(str(report.verdict))
            failure = ElementTree.SubElement(case, "failure", message=f"{verdict}{at}")
            failure.text = shown_lines(_failure_text(report, accept))
    return ElementTree.tostring(suite, encoding="unicode") + "\n"


def _failure_text(report: ToolReport, accept: frozenset[Deviation] | None) -> str:
    """A failure's body: the counterexample's differing fields then both runs, else the refused
    classes, else why."""
    if report.counterexample is not None:
        example = report.counterexample
        return "\n".join([*difference_lines(example), "", side_by_side(example)])
    refusal = not_accepted(report, accept)
    listing = [d.render() for d in report.listing]
    if refusal:
        return "\n".join([refusal, *listing])
    return "\n".join(filter(None, [*listing, report.reason])) or ", ".join(report.observed)


def markdown(
    reports: Sequence[ToolReport],
    accept: frozenset[Deviation] | None,
    changes: Sequence[Change] = (),
    revision: str = "",
) -> str:
    """What a reviewer reads in a pull request: the reviewed changes since ``revision``, the
    failures, each with what differs, then a table of every tool, then each tool's witnesses
    (classes declared and not observed on one line)."""
    return str(
        _markdown_template().render(
            changes=markdown_section(changes, revision),
            reports=reports,
            failing=[r for r in reports if not r.passes(accept)],
            passes=lambda report: report.passes(accept),
            passed=sum(r.passes(accept) for r in reports),
            policy=policy_text(accept),
            side_by_side=side_by_side,
            difference_lines=difference_lines,
            call_sites=call_sites,
            witness_block=witness_block,
            spot_of=lambda report: difference_spot(report, accept),
            refused=lambda report: refused_classes(report, accept),
            interpreters=interpreters(reports),
        )
    )


def save_counterexample(example: Counterexample, directory: Path, file: str, tool: str) -> str:
    """Write the scenario as YAML that ``run`` replays; returns its path,
    ``DIRECTORY/FILE/TOOL.ENGINE.scenario.yaml`` (FILE from the name of the composite tool's
    file, so tools of one name in two files are kept apart).

    Each name is made from its text but always lies in ``directory`` (a name that had to
    change gets a hash of itself, so names stay distinct).
    """
    folder = directory / _distinct(file, "file")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{_distinct(tool, 'tool')}.{example.engine}.scenario.yaml"
    path.write_text(yaml.safe_dump(example.scenario.to_json(), sort_keys=True, allow_unicode=True))
    return str(path)


def _distinct(text: str, fallback: str) -> str:
    """A file name made from ``text``, with a hash of ``text`` where it had to change."""
    stem = safe_stem(text, fallback)
    if stem != text:
        stem += "-" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return stem
