"""Calls of every template function over one root, for the tests that go through the table.

Each function of :data:`transpiler.gotemplate.functions.FUNCTIONS` has its
calls here (a test fails when one has none): the renderer and Go must agree on
each, and so must each style's script where it writes the function. A call that
succeeds comes first; it reads only string, number and list parameters, so a
readable script can write it where the row gives a plain form. Every call compiles in
the exact style where the row names a helper.
"""

from __future__ import annotations

from typing import Any

CONTEXT: dict[str, Any] = {
    "params": {
        "s": "héllo", "h": "<a href='x'>&</a> é", "u": "é\u2028x", "n": 2.5, "i": 3,
        "items": ["c", "a", "b"], "m": {"k": "v", "n": 1.5}, "t": '{"a": [1, 2], "b": "x"}',
        "b": True, "empty": "",
    },
    "steps": {},
}  # fmt: skip

CALLS: dict[str, tuple[str, ...]] = {
    "and": ("{{and .params.s .params.n}}", "{{and .params.empty .params.s}}"),
    "or": ("{{or .params.empty .params.s}}", "{{or .params.s .params.n}}"),
    "call": ("{{call .params.s}}", "{{call .params.nope 1}}"),
    "html": ("{{html .params.h}}", "{{html .params.h .params.n}}"),
    "js": ("{{js .params.h}}", "{{js .params.u .params.items}}"),
    "urlquery": ("{{urlquery .params.h}}", "{{urlquery .params.s .params.n}}"),
    "index": (
        "{{index .params.items 1}}",
        '{{index .params.m "k"}}',
        '{{index .params.m "nope"}}',
        "{{index .params.items 9}}",
        "{{index .params.s 1}}",
    ),
    "slice": ("{{slice .params.items 1 2}}", "{{slice .params.s 1 3}}", "{{slice .params.n 1}}"),
    "len": ("{{len .params.items}}", "{{len .params.u}}", "{{len .params.n}}"),
    "not": ("{{not .params.s}}", "{{not .params.empty}}"),
    "print": ("{{print .params.n .params.items}}", "{{print .params.s .params.m}}"),
    "printf": (
        '{{printf "%s: %d items, %v" .params.s (len .params.items) .params.n}}',
        '{{printf "%5.2f|%q|%t" .params.n .params.s .params.b}}',
        '{{printf "%d" .params.s}}',
    ),
    "println": ("{{println .params.s .params.m}}",),
    "eq": ('{{eq .params.s "x" "héllo"}}', "{{eq .params.n .params.i}}"),
    "ne": ('{{ne .params.s "x"}}', "{{ne .params.items .params.items}}"),
    "lt": ("{{lt .params.n 4.0}}", '{{lt .params.s "z"}}'),
    "le": ("{{le .params.n 2.5}}", "{{le .params.n .params.s}}"),
    "gt": ("{{gt .params.n 1.0}}", '{{gt .params.s "a"}}'),
    "ge": ("{{ge .params.n 3.0}}", "{{ge .params.b .params.b}}"),
    "json": ("{{json .params.items}}", "{{json .params.m}}", "{{json .params.h}}"),
    "quote": ("{{quote .params.u}}", "{{quote .params.n}}"),
    "fromJson": ("{{(fromJson .params.t).b}}", '{{fromJson "nope"}}', "{{fromJson .params.n}}"),
}
