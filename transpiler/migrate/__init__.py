"""Rewrite configuration files: composite tools become Starlark scripted tools (THV-0051).

:func:`~transpiler.migrate.runner.migrate` plans (and with ``write``
performs) the migration of files and directories; the modules each do one
part: span trees (``yamlspan``), text regions (``textspan``), YAML output
(``yamltext``, ``output_schema``), edits (``entry``, ``relocate``,
``rewrite``), inputs (``sources``, ``view``, ``existing``), per-tool outcomes
(``outcome``, ``verdict``), checks (``verify``), writes (``atomic``,
``scriptfiles``) and the report (``summary``).
"""
