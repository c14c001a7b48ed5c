"""Rendering and parsing speed of typical composite-tool templates.

Usage: python benchmarks/bench_templates.py. Prints renders per second with
the parse cache warm, and parse time per template without the cache.
"""

from __future__ import annotations

import time

from transpiler.golang.values import GoValue, Int64
from transpiler.gotemplate import parse, render
from transpiler.gotemplate.parser import parse_template

TEMPLATES = {
    "param": "Issue: {{.params.title}}",
    "step output": "Created: {{.steps.create.output.url}}",
    "condition": '{{and (eq .steps.fetch.status "completed") (gt .steps.fetch.output.count 0.0)}}',
    "json": "{{json .steps.fetch.output}}",
    "index": '{{index .steps "fetch" "output" "items"}}',
    "fromJson": "{{(fromJson .steps.fetch.output.text).name}}",
    "printf": '{{printf "%s has %v items (%.1f%%)" .params.title .steps.fetch.output.count 12.5}}',
    "range": (
        "{{range $i, $e := .steps.fetch.output.items}}{{if $i}}, {{end}}{{$e.name | quote}}{{end}}"
    ),
    "with/else": "{{with .steps.fetch.output.missing}}{{.}}{{else}}{{.workflow.id}}{{end}}",
}

CONTEXT: dict[str, GoValue] = {
    "params": {"title": "Weekly report", "repo": "stacklok/toolhive"},
    "steps": {
        "fetch": {
            "status": "completed",
            "output": {
                "count": 3.0,
                "items": [{"name": "alpha"}, {"name": "beta"}, {"name": "gamma"}],
                "text": '{"name": "Alice", "email": "alice@example.com"}',
            },
            "content": {},
        },
        "create": {"status": "completed", "output": {"url": "http://example.com/1"}, "content": {}},
    },
    "vars": {},
    "workflow": {"id": "wf-123", "duration_ms": Int64(0), "step_count": 0, "status": "pending"},
}


def renders_per_second(text: str, seconds: float = 0.3) -> float:
    """Renders per second with the parse cache warm."""
    parse(text)
    count, started = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - started) < seconds:
        for _ in range(50):
            render(parse(text), CONTEXT)
        count += 50
    return count / elapsed


def parse_microseconds(text: str, rounds: int = 200) -> float:
    """Average time to parse the template without the cache."""
    started = time.perf_counter()
    for _ in range(rounds):
        parse_template(text, "expand")
    return (time.perf_counter() - started) / rounds * 1e6


def main() -> None:
    """Print one line per template."""
    print(f"{'template':<12} {'renders/s':>10} {'parse µs':>9}")
    for name, text in TEMPLATES.items():
        print(f"{name:<12} {renders_per_second(text):>10,.0f} {parse_microseconds(text):>9.1f}")


if __name__ == "__main__":
    main()
