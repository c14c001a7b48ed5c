"""Small data files a user names: the policy, a ``tools/list`` dump, a scenario, an earlier report.

Each is read whole, but only when it is a regular file (a FIFO or a device
would block or never end) and within a size limit checked while reading; YAML
is parsed within the loader's limits (nesting, aliases) and refused where a
mapping repeats a key, as yaml.v3 refuses it; JSON is refused past the same
nesting. Every refusal is an :class:`~transpiler.diagnostics.InputError`
naming the file (and the line, where there is one), never a bare "too deep"
or "too large".
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import yaml

from transpiler.config.yamlv3 import YamlSyntaxError
from transpiler.diagnostics import InputError
from transpiler.inputs.yamlspan import parse_spans, repeated_key


def read_regular(path: Path, limit: int, what: str) -> bytes:
    """The content of the regular file ``path`` (``what`` it is, for errors), at most ``limit``
    bytes."""
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as error:
        raise InputError(f"{path}: cannot read {what}: {error.strerror or error}") from None
    with os.fdopen(handle, "rb") as stream:
        if not stat.S_ISREG(os.fstat(stream.fileno()).st_mode):
            raise InputError(f"{path}: cannot read {what}: not a regular file")
        try:
            data = stream.read(limit + 1)
        except OSError as error:
            raise InputError(f"{path}: cannot read {what}: {error.strerror or error}") from None
    if len(data) > limit:
        raise InputError(f"{path}: {what} is over the limit of {limit} bytes")
    return data


def load_yaml(path: Path, limit: int, what: str) -> Any:
    """The one YAML (or JSON) document of ``path``, as plain Python data."""
    data = read_regular(path, limit, what)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(f"{path}: not UTF-8 text (byte {error.start})") from None
    try:
        documents = parse_spans(text)
    except YamlSyntaxError as error:
        raise InputError(f"{path}:{error.line}:{error.column}: {error.message}") from None
    if len(documents) > 1:
        raise InputError(f"{path}: a second YAML document; give one")
    repeated = repeated_key(documents[0].root) if documents and documents[0].root else None
    if repeated is not None:
        raise InputError(f"{path}: {repeated}")
    try:
        return yaml.safe_load(text)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = f":{mark.line + 1}" if mark is not None else ""
        raise InputError(f"{path}{line}: {error.problem or error.context}") from None
    except yaml.YAMLError as error:
        raise InputError(f"{path}: {error}") from None


def load_json(path: Path, limit: int, what: str) -> Any:
    """The JSON value of ``path``."""
    data = read_regular(path, limit, what)
    try:
        return json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise InputError(f"{path}: not UTF-8 text (byte {error.start})") from None
    except RecursionError:
        raise InputError(f"{path}: nested too deeply to be read") from None
    except ValueError as error:
        raise InputError(f"{path}: not JSON: {error}") from None
