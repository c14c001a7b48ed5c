"""``serve``: the migrated tools as a real MCP server, on the official MCP SDK.

Each scripted tool of a configuration (:mod:`.catalog`) is listed as ``check``
lists it and runs, per ``tools/call``, on go.starlark.net or starlark-rust with
THV-0051's builtins and limits (:mod:`.server`, :mod:`.hosts`), its
``call_tool`` reaching the backend MCP servers BACKENDS.yaml names
(:mod:`.backends_file`, :mod:`.sessions`, :mod:`.live`) in real time, its
``elicit`` and ``log`` the connected client (:mod:`.clients`; from MCP
2026-07-28 by multi-round-trip requests, :mod:`.rounds`). ``--shadow`` judges
every call against the composite workflow it replaced (:mod:`.shadow`);
``--record DIR`` keeps each call's exchange as a scenario for ``check
--scenarios`` (:mod:`.exchange`). Transports: stdio (the default) and
streamable HTTP (:mod:`.transports`). This package is the only one that
imports the SDK.
"""
