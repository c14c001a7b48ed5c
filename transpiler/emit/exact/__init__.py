"""The exact style: scripts bug-compatible with vMCP's Go engine (:func:`.script.emit_script`).

Templates compile to Starlark that calls the Go-emulation helpers of
``vmcp_compat.star`` (:mod:`transpiler.emit.library`); each step kind has its
lowering (``tool_step``, ``elicitation_step``, ``foreach_step``), assembled by
``emitter`` into ``def run(params)``.
"""
