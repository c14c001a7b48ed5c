"""``--backends BACKENDS.yaml``: which MCP server each workload a script calls is.

```yaml
backends:
  github:                      # scripts call its tools as github.<tool>
    command: [github-mcp-server, stdio]
    env: {GITHUB_TOKEN: "${GITHUB_TOKEN}"}      # optional: the command's environment
  argocd:
    url: http://127.0.0.1:8080/mcp              # streamable HTTP
    headers: {Authorization: "Bearer ${ARGOCD_TOKEN}"}
```

Each backend gives ``command`` (stdio: the program and its arguments) or
``url`` (streamable HTTP), not both. ``${NAME}`` in ``headers``, ``env`` and
``url`` is read from the environment when the backend is connected, never
when the file is read, and the values are never logged: an error names the
variable, not its value. A variable that is not set is an error naming it.
A command runs with the MCP SDK's default environment (``PATH``, ``HOME`` and
the like, not every variable of serve's) plus its ``env``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from transpiler.config.datafile import load_yaml
from transpiler.diagnostics import InputError

MAX_BACKENDS_BYTES = 1024 * 1024
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_KEYS = frozenset({"command", "env", "url", "headers"})


@dataclass(frozen=True)
class BackendSpec:
    """One workload's MCP server: a command (stdio) or a URL (streamable HTTP)."""

    workload: str
    command: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)

    def expanded_url(self) -> str:
        """The URL with its ``${NAME}`` read from the environment."""
        assert self.url is not None
        return expand(self.url, f"backend {self.workload}: url")

    def expanded_headers(self) -> dict[str, str]:
        """The headers with their ``${NAME}`` read from the environment."""
        where = f"backend {self.workload}: headers"
        return {name: expand(value, where) for name, value in self.headers.items()}

    def expanded_env(self) -> dict[str, str]:
        """The command's own variables, ``env`` expanded (over the SDK's default environment)."""
        where = f"backend {self.workload}: env"
        return {name: expand(value, where) for name, value in self.env.items()}


class MissingVariable(Exception):
    """A ``${NAME}`` the environment does not set (the message names it, not a value)."""


def expand(text: str, where: str) -> str:
    """``text`` with each ``${NAME}`` replaced by the environment's value."""

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        found = os.environ.get(name)
        if found is None:
            raise MissingVariable(f"{where}: the environment variable {name} is not set")
        return found

    return _VARIABLE.sub(value, text)


def load_backends(path: Path) -> dict[str, BackendSpec]:
    """The backends of ``path``, by workload name."""
    document = load_yaml(path, MAX_BACKENDS_BYTES, "the backends file")
    if not isinstance(document, dict) or set(document) != {"backends"}:
        raise InputError(f"{path}: a backends file is a mapping with one key, `backends`")
    backends = document["backends"] or {}
    if not isinstance(backends, dict):
        raise InputError(f"{path}: `backends` must map each workload to its server")
    return {str(name): _backend(path, str(name), spec) for name, spec in backends.items()}


def _backend(path: Path, name: str, spec: Any) -> BackendSpec:
    where = f"{path}: backend {name}"
    if not name or "." in name:
        raise InputError(f"{where}: a workload name is not empty and has no dot")
    if not isinstance(spec, dict):
        raise InputError(f"{where}: must be a mapping with `command` or `url`")
    unknown = sorted(str(key) for key in spec if key not in _KEYS)
    if unknown:
        raise InputError(f"{where}: unknown key(s) {', '.join(unknown)}")
    command, url = spec.get("command"), spec.get("url")
    if (command is None) == (url is None):
        raise InputError(f"{where}: give `command` (stdio) or `url` (streamable HTTP), one of them")
    if command is not None:
        if (
            not isinstance(command, list)
            or not command
            or not all(isinstance(part, str) for part in command)
        ):
            raise InputError(f"{where}: `command` is a non-empty list of strings")
        if "headers" in spec:
            raise InputError(f"{where}: `headers` go with `url`, not with `command`")
        return BackendSpec(name, tuple(command), env=_strings(where, spec, "env"))
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise InputError(f"{where}: `url` is an http:// or https:// URL")
    if "env" in spec:
        raise InputError(f"{where}: `env` goes with `command`, not with `url`")
    return BackendSpec(name, url=url, headers=_strings(where, spec, "headers"))


def _strings(where: str, spec: Mapping[str, Any], key: str) -> dict[str, str]:
    value = spec.get(key) or {}
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise InputError(f"{where}: `{key}` maps names to strings")
    return dict(value)
