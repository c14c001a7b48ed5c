"""vMCP composite-tool configuration: load it as vMCP does, model it, judge it as vMCP does.

- :mod:`~transpiler.config.loader`: files, directories, documents and manifests
  to :class:`~transpiler.config.units.LoadResult` (``load_paths``, ``load_bytes``).
- :mod:`~transpiler.config.model`: the frozen model (``CompositeToolConfig``...).
- :mod:`~transpiler.validate`: every phase's verdict (``validate``).
"""
