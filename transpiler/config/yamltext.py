"""Write new YAML text: scalars, block mappings of plain data, literal blocks for scripts.

Output is deterministic and reads back (with PyYAML and with yaml.v3's rules)
as exactly the value written: a string stays plain only when no resolver
could read it as anything else, otherwise it is double-quoted.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

import yaml

from transpiler.config.yamlresolve import STR_TAG, resolve

_PLAIN: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_ ./()+-]*")
_NOT_PRINTABLE: Final = re.compile("[\x7f-\x9f\u2028\u2029\ufeff]")


def scalar(value: object) -> str:
    """One scalar (string, bool, int, float or None) as YAML text."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return json.dumps(value)
    if not isinstance(value, str):
        raise TypeError(f"not a scalar: {type(value).__name__}")
    if _plain_is_safe(value):
        return value
    quoted = json.dumps(value, ensure_ascii=False)
    return _NOT_PRINTABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", quoted)


def _plain_is_safe(text: str) -> bool:
    if not _PLAIN.fullmatch(text) or text.endswith(" "):
        return False
    return resolve("", text)[0] == STR_TAG and isinstance(yaml.safe_load(text), str)


def block(value: Mapping[str, Any], indent: int, step: int) -> str:
    """A mapping as block YAML lines at column ``indent`` (each line ends with a newline).

    Nested mappings become nested blocks; lists of scalars are written in flow
    style (``[a, b]``); an empty mapping is ``{}``.
    """
    lines: list[str] = []
    pad = " " * indent
    for key, item in value.items():
        head = f"{pad}{scalar(key)}:"
        if isinstance(item, Mapping) and item:
            lines.append(head + "\n" + block(item, indent + step, step))
        elif isinstance(item, Mapping):
            lines.append(f"{head} {{}}\n")
        elif isinstance(item, Sequence) and not isinstance(item, str):
            lines.append(f"{head} [{', '.join(scalar(x) for x in item)}]\n")
        else:
            lines.append(f"{head} {scalar(item)}\n")
    return "".join(lines)


def literal_block(key: str, text: str, indent: int, step: int) -> str:
    """``key: |`` and ``text`` as a literal block scalar whose content sits at ``indent + step``.

    ``text`` ends with at most one line break (``|``, or ``|-`` without one):
    a kept run of trailing line breaks (``|+``) would swallow the blank lines
    that follow it in the file. An indentation indicator is added when the
    first line starts with a space.
    """
    body = text.removesuffix("\n")
    if body.endswith("\n"):
        raise ValueError("a literal block cannot end with several line breaks")
    chomp = "" if text.endswith("\n") else "-"
    first = next((line for line in body.split("\n") if line.strip()), "")
    indicator = str(step) if first.startswith(" ") else ""
    pad = " " * (indent + step)
    lines = [f"{pad}{line}" if line else "" for line in body.split("\n")]
    return f"{' ' * indent}{key}: |{indicator}{chomp}\n" + "\n".join(lines) + "\n"
