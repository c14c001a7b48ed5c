"""``template render``: render Go templates given as JSON lines on stdin.

Input and output follow :mod:`transpiler.gotemplate.protocol` (one request
per line, one response per line); ``--engine go`` asks the Go oracle instead
of our renderer. The output is the protocol whatever ``--format`` says.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator

from transpiler.cli.common import EXIT_FAILED, EXIT_OK, add_format_option
from transpiler.gotemplate import (
    TemplateExecError,
    TemplateLimitError,
    TemplateOutputTooLarge,
    TemplateSyntaxError,
    TemplateUnsupportedError,
    parse,
    render,
)
from transpiler.gotemplate.oracle import start_oracle
from transpiler.gotemplate.protocol import (
    ProtocolError,
    RenderRequest,
    RenderResult,
    parse_request,
    response_line,
)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``template render``."""
    template = subparsers.add_parser("template")
    actions = template.add_subparsers(dest="template_command", metavar="ACTION")
    actions.required = True
    render_parser = actions.add_parser(
        "render",
        help="render JSON-lines requests from stdin (see transpiler.gotemplate.protocol)",
    )
    render_parser.add_argument(
        "--engine",
        choices=("python", "go"),
        default="python",
        help="our renderer (default) or Go's text/template via the oracle",
    )
    add_format_option(render_parser)
    render_parser.set_defaults(handler=run_render)


def render_request(request: RenderRequest) -> RenderResult:
    """Render one request with our renderer, errors classified as in the protocol."""
    try:
        return RenderResult(
            ok=True, out=render(parse(request.template, request.name), request.context)
        )
    except TemplateSyntaxError as error:
        return RenderResult(ok=False, kind="parse", error=error.go_message)
    except TemplateOutputTooLarge as error:
        return RenderResult(ok=False, kind="size", error=error.go_message)
    except TemplateLimitError as error:
        return RenderResult(ok=False, kind="limit", error=error.go_message)
    except TemplateUnsupportedError as error:
        return RenderResult(ok=False, kind="unsupported", error=error.go_message)
    except TemplateExecError as error:
        return RenderResult(ok=False, kind="exec", error=error.go_message)


def _requests(lines: Iterator[str]) -> Iterator[RenderRequest | RenderResult]:
    for line in lines:
        if not line.strip():
            continue
        try:
            yield parse_request(line)
        except ProtocolError as error:
            yield RenderResult(ok=False, kind="request", error=str(error))


def run_render(args: argparse.Namespace) -> int:
    """Handle ``template render``."""
    items = list(_requests(iter(sys.stdin)))
    requests = [item for item in items if isinstance(item, RenderRequest)]
    if args.engine == "go":
        with start_oracle() as oracle:
            rendered = iter(oracle.render_many(requests))
    else:
        rendered = iter([render_request(request) for request in requests])
    failed = False
    for item in items:
        result = next(rendered) if isinstance(item, RenderRequest) else item
        failed = failed or result.kind == "request"
        sys.stdout.write(response_line(result) + "\n")
    sys.stdout.flush()
    return EXIT_FAILED if failed else EXIT_OK
